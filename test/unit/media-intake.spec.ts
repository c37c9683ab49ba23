import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHash } from 'node:crypto';
import { MediaIntake, MediaRefusal } from '../../src/media/media-intake';

async function run(intake: MediaIntake, chunks: Buffer[]): Promise<Buffer> {
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(chunks),
    intake,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        out.push(chunk);
        done();
      },
    }),
  );
  return Buffer.concat(out);
}

const tooLarge = (limit: number) => `over ${limit}`;

describe('MediaIntake', () => {
  it('passes every byte through, counted and hashed', async () => {
    const chunks = [Buffer.from('hello '), Buffer.from('world')];
    const intake = new MediaIntake({ maxBytes: 100, tooLarge });
    expect((await run(intake, chunks)).toString()).toBe('hello world');
    expect(intake.size).toBe(11);
    expect(intake.digest()).toBe(createHash('sha256').update('hello world').digest('hex'));
  });

  it('fails with a 413 as soon as the limit is crossed, before reading the rest', async () => {
    let read = 0;
    const source = Readable.from(
      (function* () {
        for (let i = 0; i < 100; i += 1) {
          read += 1;
          yield Buffer.alloc(10);
        }
      })(),
    );
    const intake = new MediaIntake({ maxBytes: 25, tooLarge });
    await expect(pipeline(source, intake, new Writable({ write: (_c, _e, done) => done() }))).rejects.toEqual(
      new MediaRefusal('over 25', 413),
    );
    expect(read).toBeLessThan(10);
  });

  it('lets the first bytes decide the limit, and holds them back until it has', async () => {
    const seen: number[] = [];
    const intake = new MediaIntake({
      maxBytes: 1000,
      sampleBytes: 8,
      tooLarge,
      decide: (sample) => {
        seen.push(sample.length);
        return { maxBytes: 12, mustBeText: false };
      },
    });
    await expect(run(intake, [Buffer.alloc(5), Buffer.alloc(5), Buffer.alloc(5)])).rejects.toEqual(new MediaRefusal('over 12', 413));
    expect(seen).toEqual([10]);
  });

  it('decides on the whole of an input shorter than the sample', async () => {
    const intake = new MediaIntake({ maxBytes: 1000, tooLarge, decide: (sample) => ({ maxBytes: sample.length, mustBeText: false }) });
    expect((await run(intake, [Buffer.from('abc')])).toString()).toBe('abc');
  });

  it('checks text to the end: UTF-8 split across chunks passes, NUL or invalid UTF-8 is a 415', async () => {
    const text = () => new MediaIntake({ maxBytes: 1000, sampleBytes: 1, tooLarge, decide: () => ({ maxBytes: 1000, mustBeText: true }) });
    const euro = Buffer.from('€');
    expect((await run(text(), [Buffer.from('a'), euro.subarray(0, 1), euro.subarray(1)])).toString()).toBe('a€');
    await expect(run(text(), [Buffer.from('a'), Buffer.from([0])])).rejects.toMatchObject({ status: 415 });
    await expect(run(text(), [Buffer.from('a'), Buffer.from([0xff])])).rejects.toMatchObject({ status: 415 });
    await expect(run(text(), [Buffer.from('a'), euro.subarray(0, 2)])).rejects.toMatchObject({ status: 415 });
  });
});
