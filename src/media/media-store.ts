import type { Readable } from 'node:stream';

/** A byte range, both ends included (as HTTP counts them). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where the bytes of media live, behind one seam: the file system (`MEDIA_STORE=filesystem`) or
 * an S3-compatible service (`s3`). Bytes always stream, in and out; nothing holds a whole file.
 * Keys are the store's own (`storageKeyOf`), never taken from a request.
 */
export abstract class MediaStore {
  /** What the log says about where media is kept. */
  abstract readonly description: string;

  /**
   * Writes `body` under `key`, consuming it. Nothing is left under the key unless every byte
   * was written: a failed body (a refusal, a broken download) discards what was written so far.
   */
  abstract put(key: string, body: Readable): Promise<void>;

  /** The bytes under `key`, or the range of them. */
  abstract get(key: string, range?: ByteRange): Promise<Readable>;

  /** Removes `key`; nothing happens if it is not there. */
  abstract delete(key: string): Promise<void>;

  /** Checks at start-up that the store can be reached; throws with the reason. */
  abstract check(): Promise<void>;
}

/** The key of a media's bytes: spread over 256 prefixes by the random end of the id. */
export function storageKeyOf(mediaId: string): string {
  return `${mediaId.slice(-2)}/${mediaId}`;
}
