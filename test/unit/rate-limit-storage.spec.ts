import { InMemoryRateLimitStorage } from '../../src/rate-limit/rate-limit.storage';

describe('InMemoryRateLimitStorage', () => {
  let storage: InMemoryRateLimitStorage;
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-11-22T12:00:00Z') });
    storage = new InMemoryRateLimitStorage();
  });
  afterEach(() => {
    storage.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('blocks the hit after the limit, until the window ends', async () => {
    for (let i = 1; i <= 3; i++) expect(await storage.increment('k', 60_000, 3)).toMatchObject({ totalHits: i, isBlocked: false });
    expect(await storage.increment('k', 60_000, 3)).toMatchObject({ totalHits: 4, isBlocked: true, timeToBlockExpire: 60 });
    jest.advanceTimersByTime(59_000);
    expect(await storage.increment('k', 60_000, 3)).toMatchObject({ isBlocked: true, timeToExpire: 1 });
    jest.advanceTimersByTime(1_000);
    expect(await storage.increment('k', 60_000, 3)).toMatchObject({ totalHits: 1, isBlocked: false, timeToExpire: 60 });
  });

  it('counts keys separately', async () => {
    await storage.increment('a', 60_000, 1);
    await storage.increment('a', 60_000, 1);
    expect(await storage.increment('b', 60_000, 1)).toMatchObject({ totalHits: 1, isBlocked: false });
  });
});
