import { containsPattern, searchWords } from '../../src/common/search';

describe('searchWords', () => {
  it('splits on any white space and drops empty words', () => {
    expect(searchWords('  refund\torder\n 42 ')).toEqual(['refund', 'order', '42']);
  });

  it('keeps each word once, in order', () => {
    expect(searchWords('order refund order')).toEqual(['order', 'refund']);
  });
});

describe('containsPattern', () => {
  it('matches anywhere, with the user’s %, _ and \\ taken literally', () => {
    expect(containsPattern('a%b_c\\d')).toBe('%a\\%b\\_c\\\\d%');
  });
});
