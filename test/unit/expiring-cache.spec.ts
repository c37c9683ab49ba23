import { ExpiringCache } from '../../src/common/expiring-cache';

describe('ExpiringCache', () => {
  it('answers a value until its time, and nothing from then on', () => {
    const cache = new ExpiringCache<string>(10);
    cache.set('a', 'kept', 1_000);
    expect(cache.get('a', 999)).toBe('kept');
    expect(cache.get('a', 1_000)).toBeUndefined();
  });

  it('keeps a falsy value as a value (a revoked: false, a token row: null)', () => {
    const cache = new ExpiringCache<boolean | null>(10);
    cache.set('f', false, 1_000);
    cache.set('n', null, 1_000);
    expect(cache.get('f', 0)).toBe(false);
    expect(cache.get('n', 0)).toBeNull();
  });

  it('drops the oldest entry at its bound, and a value set again counts as the newest', () => {
    const cache = new ExpiringCache<number>(2);
    cache.set('a', 1, 1_000);
    cache.set('b', 2, 1_000);
    cache.set('a', 3, 1_000);
    cache.set('c', 4, 1_000);
    expect([cache.get('a', 0), cache.get('b', 0), cache.get('c', 0)]).toEqual([3, undefined, 4]);
  });

  it('forgets a deleted key at once', () => {
    const cache = new ExpiringCache<number>(2);
    cache.set('a', 1, 1_000);
    cache.delete('a');
    expect(cache.get('a', 0)).toBeUndefined();
  });
});
