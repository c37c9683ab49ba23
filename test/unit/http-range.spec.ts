import { contentDisposition, matchesEntityTag, parseRange } from '../../src/media/http-range';

describe('parseRange', () => {
  it.each([
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=100-', { start: 100, end: 999 }],
    ['bytes=-10', { start: 990, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=900-5000', { start: 900, end: 999 }],
    ['bytes=999-999', { start: 999, end: 999 }],
  ])('reads %s of 1000 bytes', (header, range) => {
    expect(parseRange(header, 1000)).toEqual(range);
  });

  it.each(['bytes=1000-', 'bytes=1000-1001', 'bytes=-0'])('calls %s of 1000 bytes unsatisfiable', (header) => {
    expect(parseRange(header, 1000)).toBe('unsatisfiable');
  });

  it.each([undefined, '', 'bytes=', 'bytes=-', 'items=0-1', 'bytes=5-1', 'bytes=0-1,3-4', 'bytes=a-b', 'bytes=0-1x'])(
    'answers the whole for %p',
    (header) => {
      expect(parseRange(header, 1000)).toBeNull();
    },
  );
});

describe('matchesEntityTag', () => {
  const etag = '"abc"';
  it('matches the tag itself, a weak form of it, one of a list, and *', () => {
    expect(matchesEntityTag('"abc"', etag)).toBe(true);
    expect(matchesEntityTag('W/"abc"', etag)).toBe(true);
    expect(matchesEntityTag('"x", "abc"', etag)).toBe(true);
    expect(matchesEntityTag('*', etag)).toBe(true);
  });

  it('does not match another tag, an unquoted one, or none', () => {
    expect(matchesEntityTag('"abd"', etag)).toBe(false);
    expect(matchesEntityTag('abc', etag)).toBe(false);
    expect(matchesEntityTag(undefined, etag)).toBe(false);
  });
});

describe('contentDisposition', () => {
  it('gives an ASCII name as is', () => {
    expect(contentDisposition('attachment', 'invoice-1001.pdf')).toBe(
      `attachment; filename="invoice-1001.pdf"; filename*=UTF-8''invoice-1001.pdf`,
    );
  });

  it('gives a name with quotes, backslashes and non-ASCII an ASCII fallback and the exact name percent-encoded', () => {
    expect(contentDisposition('inline', 'Résumé "final"\\(1).pdf')).toBe(
      `inline; filename="R_sum_ _final__(1).pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22%5C%281%29.pdf`,
    );
  });
});
