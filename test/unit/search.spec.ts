import { containsPattern, foldForSearch, prefixPattern, searchWords } from '../../src/common/search';

describe('search text', () => {
  it.each([
    ['Crème Brûlée', 'creme brulee'],
    ['ENVÍO', 'envio'],
    ['Ñandú', 'nandu'],
    ['ﬁle', 'file'],
    ['İstanbul', 'istanbul'],
    ['plain', 'plain'],
  ])('folds %j to %j', (text, folded) => {
    expect(foldForSearch(text)).toBe(folded);
  });

  it('splits a query into folded words, dropping empty ones', () => {
    expect(searchWords('  Días   ENVÍO\t3 ')).toEqual(['dias', 'envio', '3']);
    expect(searchWords('   ')).toEqual([]);
    expect(searchWords('order Refund ORDER')).toEqual(['order', 'refund']);
  });

  it('takes %, _ and \\ literally in LIKE patterns', () => {
    expect(containsPattern('100%_\\')).toBe('%100\\%\\_\\\\%');
    expect(prefixPattern('a_b%')).toBe('a\\_b\\%%');
  });
});
