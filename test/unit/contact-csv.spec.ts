import { parse as parseStream, type Parser } from 'csv-parse';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { exportHeader, exportRow, LineCounter, readHeader, readRow, type CsvHeader, type ImportRow } from '../../src/contacts/contact-csv';
import { attributeKeyProblem, isAttributeValue, type ContactAttributes } from '../../src/contacts/contact-attributes';
import type { ContactRow } from '../../src/contacts/contact.entity';

const header = (columns: string[]): CsvHeader => {
  const read = readHeader(columns);
  if (typeof read === 'string') throw new Error(read);
  return read;
};

describe('contact CSV', () => {
  it('reads a contact line: phone normalised, fields trimmed, tags split and deduplicated, attribute cells typed', () => {
    const row = readRow(
      header(['phone', 'name', 'email', 'tags', 'n', 'f', 'b', 's', 'zip', 'empty']),
      ['1 631 555 1234', ' Ana ', 'ana@example.com ', ' vip ;es;;vip', '-1.5', '1e+21', 'false', ' x ', '007', ''],
      2,
    );
    expect(row).toEqual({
      line: 2,
      phone: '+16315551234',
      wa_user_id: null,
      name: 'Ana',
      email: 'ana@example.com',
      tags: ['vip', 'es'],
      setAttributes: { n: -1.5, f: 1e21, b: false, s: ' x ', zip: '007' },
      clearAttributes: ['empty'],
    });
  });

  it.each([
    ['1.0', '1.0'],
    ['01', '01'],
    ['+1', '+1'],
    ['Infinity', 'Infinity'],
    ['NaN', 'NaN'],
    ['TRUE', 'TRUE'],
    ['-0', '-0'],
    ['42', 42],
    ['true', true],
    ["'42", '42'],
    ["''x", "'x"],
  ])('types the attribute cell %j as %j', (cell, value) => {
    const row = readRow(header(['phone', 'a']), ['+16315551234', cell], 2) as ImportRow;
    expect(row.setAttributes).toEqual({ a: value });
  });

  it('writes text a spreadsheet would run or retype with a leading apostrophe, and plain text as it is', () => {
    const contact: ContactRow = {
      id: 'x',
      phone: '+16315551234',
      wa_user_id: null,
      username: null,
      name: '=HYPERLINK("x")',
      email: null,
      tags: ['-a', 'b'],
      attributes: { n: 42, s: '42', t: 'true', q: "'x", plain: 'hello', at: '@me', neg: -3 },
      blocked_at: null,
      opted_out_at: null,
      created_at: new Date(),
      updated_at: new Date(),
    };
    const keys = Object.keys(contact.attributes).sort();
    expect(exportHeader(keys)).toEqual(['phone', 'name', 'email', 'tags', 'wa_user_id', 'at', 'n', 'neg', 'plain', 'q', 's', 't']);
    expect(exportRow(contact, keys)).toEqual([
      '+16315551234',
      `'=HYPERLINK("x")`,
      '',
      "'-a;b",
      '',
      "'@me",
      '42',
      '-3',
      'hello',
      "''x",
      "'42",
      "'true",
    ]);
  });

  it('reads back exactly what it wrote, through CSV text, for any contact', () => {
    const key = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,10}$/).filter((k) => attributeKeyProblem(k) === null);
    const value = fc.oneof(
      fc.string({ minLength: 1, maxLength: 30 }).filter((s) => isAttributeValue(s) && !s.includes('\u0000')),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }).filter((s) => isAttributeValue(s) && !s.includes('\u0000')),
      fc.constantFrom('\tx', '\rx', 'a\r\nb', '"q"', 'a,b'),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
      fc.integer(),
      fc.boolean(),
      fc.constantFrom('42', 'true', 'false', "'", "'x", '=1', '-', '+', '@', '007', '1e+21', ' 4 '),
    );
    const text = (max: number) =>
      fc
        .oneof(fc.string({ maxLength: max }), fc.string({ unit: 'grapheme', maxLength: max }), fc.constantFrom('a\nb', '"q", x', '\t=1'))
        .map((s) => s.replaceAll('\u0000', '').trim());
    const contact = fc.record({
      name: fc.option(text(50).filter(Boolean), { nil: null }),
      email: fc.option(fc.constantFrom('a@example.com', 'b.c+d@example.org'), { nil: null }),
      tags: fc.uniqueArray(
        text(10).filter((tag) => tag !== '' && !tag.includes(';')),
        { maxLength: 5 },
      ),
      attributes: fc.dictionary(key, value, { maxKeys: 8 }),
    });
    fc.assert(
      fc.property(contact, ({ name, email, tags, attributes }) => {
        const row: ContactRow = {
          id: 'x',
          phone: '+16315551234',
          wa_user_id: 'US.1349120865530274',
          username: null,
          name,
          email,
          tags,
          attributes: attributes as ContactAttributes,
          blocked_at: null,
          opted_out_at: null,
          created_at: new Date(),
          updated_at: new Date(),
        };
        const keys = Object.keys(attributes).sort();
        const csv = stringify([exportHeader(keys), exportRow(row, keys)]);
        const [columns, cells] = parse(csv) as string[][];
        const read = readRow(header(columns), cells, 2) as ImportRow;
        expect(read).toEqual({
          line: 2,
          phone: row.phone,
          wa_user_id: row.wa_user_id,
          name,
          email,
          tags,
          setAttributes: attributes,
          clearAttributes: [],
        });
      }),
      { seed: 4242, numRuns: 500 },
    );
  });

  it.each([
    [['name'], /must have a phone or a wa_user_id column/],
    [['phone', 'PHONE'], /names the column "PHONE" twice/],
    [['phone', 'Tags', 'tags'], /names the column "tags" twice/],
    [['phone', '9lives'], /attribute key "9lives" must be/],
    [['phone', ' '], /Column 2 of the header row has no name/],
  ])('refuses the header %j', (columns, message) => {
    expect(readHeader(columns)).toMatch(message);
  });
});

describe('LineCounter', () => {
  /** The line each record ends on, or each malformed record's line, as csv-parse's own `info` reports them. */
  function reference(csv: string): string[] {
    const out: string[] = [];
    const records = parse(csv, {
      info: true,
      relax_column_count: true,
      skip_records_with_error: true,
      max_record_size: 64,
      on_skip: (error) => void out.push(`skip@${error?.lines}`),
    }) as unknown as { record: string[]; info: { lines: number } }[];
    // The skips were reported while parsing: put each one in place among the records by line.
    for (const { record, info } of records) out.push(`${record.join('|')}@${info.lines}`);
    return out.sort((a, b) => Number(a.split('@')[1]) - Number(b.split('@')[1]));
  }

  function counted(csv: string): Promise<string[]> {
    const out: string[] = [];
    const lines = new LineCounter();
    const parser: Parser = parseStream({
      relax_column_count: true,
      skip_records_with_error: true,
      max_record_size: 64,
      on_skip: (error) => {
        lines.skipped(parser.info.records, Number(error?.lines ?? 0));
        out.push(`skip@${error?.lines}`);
      },
    });
    parser.end(csv);
    return new Promise<string[]>((resolve, reject) => {
      parser.on('data', (record: string[]) => out.push(`${record.join('|')}@${lines.next(record)}`));
      parser.on('end', () => resolve(out.sort((a, b) => Number(a.split('@')[1]) - Number(b.split('@')[1]))));
      parser.on('error', reject);
    });
  }

  it.each([
    ['plain lines', 'phone,name\n+1,a\n+2,b\n'],
    ['CRLF line ends', 'phone,name\r\n+1,a\r\n+2,b\r\n'],
    ['empty lines and lines of empty fields', 'phone,name\n\n+1,a\n,\n\n+2,b\n'],
    ['line breaks inside quoted cells', 'phone,name\n+1,"two\nlines"\n+2,"three\r\nlines\nhere"\n+3,c\n'],
    ['CRLF line ends and line breaks inside quoted cells', 'phone,name\r\n+1,"two\r\nlines"\r\n+2,"x\ry"\r\n+3,c\r\n'],
    ['a malformed quote between good lines', 'phone,name\n+1,a\n+2,"bad"x\n+3,c\n'],
    ['a record longer than the limit', `phone,name\n+1,a\n+2,${'y'.repeat(100)}\n+3,c\n`],
    ['no line break at the end', 'phone,name\n+1,a\n+2,b'],
  ])('ends each record on the line csv-parse counts: %s', async (_, csv) => {
    expect(await counted(csv)).toEqual(reference(csv));
  });
});
