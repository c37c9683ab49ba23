import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The part of s3rver's API the tests use (it ships no types). */
interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  port: number;
  address: string;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

const BUCKET = 'team-inbox-media';

/**
 * A real S3-protocol server on loopback (s3rver: objects as files in a temporary directory, the
 * S3 REST API, SigV4 checked against its fixed S3RVER/S3RVER credentials), with one bucket.
 */
export class S3Server {
  private constructor(
    private readonly server: S3rverInstance,
    private readonly directory: string,
    readonly port: number,
  ) {}

  static async start(): Promise<S3Server> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- s3rver is CommonJS without types
    const S3rver = require('s3rver') as S3rverConstructor;
    const directory = mkdtempSync(join(tmpdir(), 'team-inbox-s3-'));
    const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: BUCKET }] });
    const { port } = await server.run();
    return new S3Server(server, directory, port);
  }

  /** The settings that point the service at this server. */
  get env(): Record<string, string> {
    return {
      MEDIA_STORE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${this.port}`,
      S3_REGION: 'us-east-1',
      S3_BUCKET: BUCKET,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    };
  }

  /** Every key in the bucket. */
  async keys(): Promise<string[]> {
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${this.port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const answer = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    client.destroy();
    return (answer.Contents ?? []).map((object) => object.Key!);
  }

  async close(): Promise<void> {
    await this.server.close();
    rmSync(this.directory, { recursive: true, force: true });
  }
}
