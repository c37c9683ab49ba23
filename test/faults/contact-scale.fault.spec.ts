import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The contact book at scale: 100,000 lines imported in one request and exported back. A measure
 * of capacity more than a rule, and minutes on the embedded engine, so it runs here, in the slow
 * suite (CI: on both engines), rather than in `npm test`; contact-import-export.e2e.spec.ts holds
 * the import's and export's rules.
 */

const CSV = { 'content-type': 'text/csv' };

/** A CSV body's records (csv-parse), the header first. */
const recordsOf = (text: string): string[][] => parse(text, { bom: true }) as string[][];

/** The records after the header, ordered by phone (the export is newest first; a comparison needs one order). */
const byPhone = (records: string[][]): string[][] => records.slice(1).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

describe('contact import and export of 100,000 lines', () => {
  const LINES = 100_000;
  let t: TestApp;
  let token: string;
  let file: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = (await t.createUser({ role: 'agent' })).token;
    // The file as the export writes it (keys in code-point order, text marked where needed), so export and file compare cell by cell.
    const records: string[][] = [['phone', 'name', 'email', 'tags', 'wa_user_id', 'active', 'code', 'plan', 'seats']];
    for (let i = 0; i < LINES; i++) {
      const name = i % 1000 === 0 ? `Ünïcødé, "${i}"\nsecond line` : i % 997 === 0 ? `'=cmd ${i}` : `Customer ${i}`;
      records.push([
        `+1631${2_000_000 + i}`,
        name,
        i % 2 === 0 ? `c${i}@example.com` : '',
        i % 7 === 0 ? 'vip;es' : i % 3 === 0 ? 'b2b' : '',
        i % 13 === 0 ? `US.${1_000_000_000 + i}` : '',
        i % 4 === 0 ? String(i % 8 === 0) : '',
        i % 11 === 0 ? "'42" : '',
        i % 3 === 0 ? 'pro' : i % 3 === 1 ? 'basic' : '',
        i % 5 === 0 ? String(i) : '',
      ]);
    }
    file = stringify(records);
  });
  afterAll(() => t.close());

  async function timedImport(csv: string, what: string) {
    const started = process.hrtime.bigint();
    const answer = await t.request('POST', '/api/v1/contacts/import', { token, payload: csv, headers: CSV });
    const took = seconds(started);
    process.stdout.write(
      `contact import (${what}): ${LINES.toLocaleString('en-US')} lines, ${(csv.length / 1024 / 1024).toFixed(1)} MiB in ${took.toFixed(1)} s, ${Math.round(LINES / took).toLocaleString('en-US')} lines/s\n`,
    );
    expect(answer.status).toBe(200);
    return answer.body;
  }

  async function timedExport(): Promise<string> {
    const started = process.hrtime.bigint();
    const answer = await t.request('GET', '/api/v1/contacts/export', { token });
    const took = seconds(started);
    process.stdout.write(
      `contact export: ${LINES.toLocaleString('en-US')} contacts in ${took.toFixed(1)} s, ${Math.round(LINES / took).toLocaleString('en-US')} rows/s\n`,
    );
    expect(answer.status).toBe(200);
    return answer.text;
  }

  // The export equals the file cell for cell, so importing the export into an empty book is importing the file, done here first.
  it('imports 100,000 lines in one request, streams them back identical, and the export imported again changes nothing', async () => {
    expect(file.length).toBeLessThan(10 * 1024 * 1024);
    expect(await timedImport(file, 'create')).toEqual({ created: LINES, updated: 0, refused: [] });

    const exported = await timedExport();
    const expected = recordsOf(file);
    const records = recordsOf(exported);
    expect(records[0]).toEqual(expected[0]);
    expect(records).toHaveLength(LINES + 1);
    expect(byPhone(records)).toEqual(byPhone(expected));
    // The types survived: a number, a boolean, a number-like text.
    const sample = (await t.request('GET', `/api/v1/contacts?q=${encodeURIComponent('+16312000440')}`, { token })).body.data[0];
    expect(sample).toMatchObject({ name: 'Customer 440', email: 'c440@example.com', tags: [] });
    expect(sample.attributes).toEqual({ active: true, code: '42', seats: 440 });

    expect(await timedImport(exported, 'the export again: update')).toEqual({ created: 0, updated: LINES, refused: [] });
    const [{ count: changes }] = await t.sql<{ count: number }>(`SELECT count(*)::int AS count FROM events WHERE type = 'contact.updated'`);
    expect(changes).toBe(0);
  }, 600_000);
});

describe('a contact import of 5 million bad lines', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('keeps a bounded report (the first 1,000 refusals and a count) in bounded memory', async () => {
    const LINES = 5_000_000;
    // "x" is no phone: every line is refused, none is ever written, so no batch ever completes.
    const csv = `phone\n${'x\n'.repeat(LINES)}`;
    expect(csv.length).toBeLessThanOrEqual(10 * 1024 * 1024);
    global.gc?.();
    const baseline = process.memoryUsage().heapUsed;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 100);
    const started = process.hrtime.bigint();
    try {
      const answer = await t.request('POST', '/api/v1/contacts/import', { token: await t.adminToken(), payload: csv, headers: CSV });
      const took = seconds(started);
      expect(answer.status).toBe(200);
      expect(answer.body.created).toBe(0);
      expect(answer.body.refused).toHaveLength(1001);
      expect(answer.body.refused[0]).toEqual({ line: 2, error: expect.any(String) });
      expect(answer.body.refused[1000]).toEqual({
        line: 1002,
        error: `This line was refused too, and ${(LINES - 1001).toLocaleString('en-US').replace(/,/g, '')} more lines after it; only the first 1000 refusals are listed`,
      });
      const grewMiB = (peak - baseline) / 1024 / 1024;
      process.stdout.write(
        `contact import of ${LINES.toLocaleString('en-US')} bad lines: ${took.toFixed(1)} s, heap grew by at most ${grewMiB.toFixed(0)} MiB (the body itself is 10 MiB)\n`,
      );
      expect(grewMiB).toBeLessThan(64);
    } finally {
      clearInterval(sampler);
    }
  }, 300_000);
});
