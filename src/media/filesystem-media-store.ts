import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ByteRange, MediaStore } from './media-store';

/** Files written but not finished live here, so a crash mid-write never leaves a partial file under a real key. */
const PARTIAL = '.partial';

/** Media as files under MEDIA_DIR (default `<DATA_DIR>/media`): one process, or replicas sharing one volume. */
export class FilesystemMediaStore extends MediaStore {
  private readonly root: string;

  constructor(directory: string) {
    super();
    this.root = resolve(directory);
  }

  get description(): string {
    return `the file system under ${this.root}`;
  }

  async put(key: string, body: Readable): Promise<void> {
    const target = this.pathOf(key);
    const partial = join(this.root, PARTIAL, `${randomBytes(8).toString('hex')}-${key.replace(/\//g, '_')}`);
    await mkdir(dirname(partial), { recursive: true });
    try {
      await pipeline(body, createWriteStream(partial, { flags: 'wx' }));
      await mkdir(dirname(target), { recursive: true });
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  get(key: string, range?: ByteRange): Promise<Readable> {
    const stream = createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
    // Open before answering, so a missing file is an error here rather than mid-response.
    return new Promise((resolveStream, reject) => {
      stream.once('open', () => resolveStream(stream));
      stream.once('error', reject);
    });
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async check(): Promise<void> {
    await mkdir(join(this.root, PARTIAL), { recursive: true });
    await access(this.root);
  }

  private pathOf(key: string): string {
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + '/')) throw new Error(`A media key leaves the media directory: ${key}`);
    return path;
  }
}
