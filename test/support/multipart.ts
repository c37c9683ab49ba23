import { randomBytes } from 'node:crypto';

/** A multipart/form-data body with one file part. */
export function multipart(
  field: string,
  filename: string,
  contentType: string,
  bytes: Buffer,
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----test-${randomBytes(8).toString('hex')}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
