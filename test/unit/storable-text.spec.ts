import { findUnstorable, toStorable } from '../../src/common/storable-text';

describe('storable text', () => {
  it('finds the path of the first string holding NUL or an unpaired surrogate, keys included', () => {
    expect(findUnstorable({ a: 'ok', b: [{ c: 'x\u0000' }] }, '')).toBe('b.0.c');
    expect(findUnstorable({ a: { 'k\ud800': 1 } }, 'body')).toBe('body.a');
    expect(findUnstorable('lone \udc00', 'q')).toBe('q');
  });

  it('accepts surrogate pairs, other control characters, numbers and null', () => {
    expect(findUnstorable({ a: 'emoji 😀', b: 'tab\tand\u0001', c: 1, d: null, e: true }, '')).toBeNull();
  });

  it('replaces each unstorable character by U+FFFD in strings and keys, leaving the rest as it was', () => {
    const original = { 'k\u0000': ['a\u0000b', 'c\ud800d', '😀'], n: 1, z: null };
    expect(toStorable(original)).toEqual({ 'k\uFFFD': ['a\uFFFDb', 'c\uFFFDd', '😀'], n: 1, z: null });
    expect(original['k\u0000'][0]).toBe('a\u0000b');
  });
});
