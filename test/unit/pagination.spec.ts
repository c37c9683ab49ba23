import { BadRequestException } from '@nestjs/common';
import { decodeCursor, encodeCursor, toPage } from '../../src/common/pagination';

describe('cursors', () => {
  const key = ['2026-11-22T16:41:46.123Z', '01a2047c-8e20-78c9-9d14-947d2651598e'];

  it('decode to the key they were made from', () => {
    expect(decodeCursor(encodeCursor(key), ['timestamp', 'uuid'])).toEqual(key);
  });

  it.each([
    ['not base64 JSON', 'nope'],
    ['the wrong number of values', encodeCursor([key[0]])],
    ['a value of the wrong kind', encodeCursor([key[0], 'not-a-uuid'])],
    ['a timestamp without milliseconds', encodeCursor(['2026-11-22T16:41:46Z', key[1]])],
  ])('refuses %s with a 400', (_, cursor) => {
    expect(() => decodeCursor(cursor, ['timestamp', 'uuid'])).toThrow(BadRequestException);
  });
});

describe('toPage', () => {
  const rows = [{ n: 1 }, { n: 2 }, { n: 3 }];

  it('drops the look-ahead row and points the cursor after the last row returned', () => {
    const page = toPage(rows, 2, (r) => [String(r.n)], (r) => r.n);
    expect(page.data).toEqual([1, 2]);
    expect(decodeCursor(page.next_cursor!, ['string'])).toEqual(['2']);
  });

  it('answers next_cursor null on the last page', () => {
    expect(toPage(rows, 3, (r) => [String(r.n)], (r) => r.n)).toEqual({ data: [1, 2, 3], next_cursor: null });
  });
});
