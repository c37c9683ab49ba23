import { sortLabelNames } from '../../src/labels/label.entity';

/** The order every answer lists a conversation's labels in; the list's statement writes the same (list-row.e2e). */
describe('sortLabelNames', () => {
  it('reads A–Z as a–z, so the case of a letter does not move a name', () => {
    expect(sortLabelNames(['b', 'VIP', 'a2', 'A', 'vat'])).toEqual(['A', 'a2', 'b', 'vat', 'VIP']);
  });

  it('orders by code point beyond A–Z: a capital É before é, both after z, an emoji after U+FFFD', () => {
    expect(sortLabelNames(['😀', 'éclair', '\uFFFD', 'Émile', 'zeta'])).toEqual(['zeta', 'Émile', 'éclair', '\uFFFD', '😀']);
  });

  it('leaves the names it is given as they are', () => {
    const names = ['b', 'a'];
    expect(sortLabelNames(names)).toEqual(['a', 'b']);
    expect(names).toEqual(['b', 'a']);
  });
});
