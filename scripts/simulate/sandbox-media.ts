import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import type { MediaOption } from './args';
import { UsageError } from './target';

/** The type WhatsApp would report for a file, by its extension (the service checks nothing of it). */
const TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.mp4': 'video/mp4',
  '.3gp': 'video/3gpp',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.aac': 'audio/aac',
  '.amr': 'audio/amr',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xls': 'application/vnd.ms-excel',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt': 'application/vnd.ms-powerpoint',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

export interface SandboxMedia {
  mediaId: string;
  mimeType: string;
  /** Base64, as the channel's webhook gives it. */
  sha256: string;
  filename: string;
  size: number;
  path: string;
}

/**
 * Puts a file where the sandbox channel of a service keeps "the channel's" media
 * (`<DATA_DIR>/sandbox-media/<id>` and `<id>.json`), as the real channel holds a customer's media
 * before the service downloads it; answers what the webhook says of it.
 */
export function putInSandbox(file: string, type: MediaOption, dataDir: string, write: boolean): SandboxMedia {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new UsageError(`--${type}: cannot read ${file}`);
  }
  const mimeType = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  const bytes = readFileSync(file);
  const digest = createHash('sha256').update(bytes);
  const mediaId = `sim-${randomBytes(12).toString('hex')}`;
  const directory = resolve(dataDir, 'sandbox-media');
  const hex = digest.copy().digest('hex');
  if (write) {
    mkdirSync(directory, { recursive: true });
    copyFileSync(file, join(directory, mediaId));
    writeFileSync(join(directory, `${mediaId}.json`), JSON.stringify({ mime_type: mimeType, sha256: hex, file_size: size }));
  }
  return { mediaId, mimeType, sha256: digest.digest('base64'), filename: basename(file), size, path: join(directory, mediaId) };
}
