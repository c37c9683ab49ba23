import { createHash } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';
import { TextDecoder } from 'node:util';

/** A refusal of the bytes themselves: empty (400), too large (413) or of a type the channel does not take (415). */
export class MediaRefusal extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413 | 415,
  ) {
    super(message);
    this.name = 'MediaRefusal';
  }
}

/** What the first bytes decided: the most the whole may be, and whether it must be UTF-8 text. */
export interface IntakeRules {
  maxBytes: number;
  mustBeText: boolean;
}

export interface IntakeOptions {
  /** The most any input may be, before and without `decide`. */
  maxBytes: number;
  /** Sentence of the 413 for a limit of `maxBytes`. */
  tooLarge(maxBytes: number): string;
  /** Reads the first `sampleBytes` (or all, if fewer) and answers the rules for the rest; throws a MediaRefusal to stop. */
  decide?(sample: Buffer): Promise<IntakeRules> | IntakeRules;
  sampleBytes?: number;
}

/** Enough for file-type to tell the Office formats inside a zip apart (their first entries), small enough to hold. */
const DEFAULT_SAMPLE_BYTES = 64 * 1024;

/**
 * The bytes of a media on their way into the store: counted, hashed (SHA-256) and checked as
 * they pass, never held whole. The first bytes are held back until `decide` has read them (the
 * type of an upload, and so its limit); past the limit the stream fails with a 413 at once, so
 * the caller stops reading and the store discards what it had written.
 */
export class MediaIntake extends Transform {
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private limit: number;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private decided: boolean;
  private text: TextDecoder | null = null;

  constructor(private readonly options: IntakeOptions) {
    super();
    this.limit = options.maxBytes;
    this.decided = !options.decide;
  }

  /** Bytes passed so far (all of them once the stream has ended). */
  get size(): number {
    return this.bytes;
  }

  /** Hex SHA-256 of the bytes; read it once the stream has ended. */
  digest(): string {
    return this.hash.digest('hex');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.decided) return this.settle(done, () => this.pass(chunk));
    this.held.push(chunk);
    this.heldBytes += chunk.length;
    if (this.heldBytes > this.limit) return done(new MediaRefusal(this.options.tooLarge(this.limit), 413));
    if (this.heldBytes < (this.options.sampleBytes ?? DEFAULT_SAMPLE_BYTES)) return done();
    this.decideThenPass(done);
  }

  override _flush(done: TransformCallback): void {
    const finish = () => {
      if (this.text) {
        try {
          this.text.decode();
        } catch {
          throw new MediaRefusal('The file is not plain UTF-8 text, and no other type could be read from its bytes', 415);
        }
      }
    };
    if (this.decided) return this.settle(done, finish);
    this.decideThenPass((error) => (error ? done(error) : this.settle(done, finish)));
  }

  private decideThenPass(done: TransformCallback): void {
    const sample = Buffer.concat(this.held);
    this.held = [];
    this.heldBytes = 0;
    Promise.resolve()
      .then(() => this.options.decide!(sample))
      .then(
        (rules) => {
          this.decided = true;
          this.limit = Math.min(this.limit, rules.maxBytes);
          if (rules.mustBeText) this.text = new TextDecoder('utf-8', { fatal: true });
          this.settle(done, () => this.pass(sample));
        },
        (error: Error) => done(error),
      );
  }

  private pass(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) throw new MediaRefusal(this.options.tooLarge(this.limit), 413);
    if (this.text) {
      if (chunk.includes(0)) throw new MediaRefusal('The file holds binary data (NUL bytes), so it is not plain text', 415);
      try {
        this.text.decode(chunk, { stream: true });
      } catch {
        throw new MediaRefusal('The file is not plain UTF-8 text, and no other type could be read from its bytes', 415);
      }
    }
    this.hash.update(chunk);
    if (chunk.length > 0) this.push(chunk);
  }

  private settle(done: TransformCallback, step: () => void): void {
    try {
      step();
      done();
    } catch (error) {
      done(error as Error);
    }
  }
}
