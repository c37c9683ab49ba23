import { channelErrorRule, judgeChannelError } from '../../src/messaging/channel-errors';

describe('judgeChannelError', () => {
  it('fails at once on the codes the channel would refuse again, whatever the HTTP status', () => {
    for (const code of [100, 368, 131026, 131047, 131049, 131050, 132000, 132001, 132069])
      expect(judgeChannelError(400, code, null)).toEqual({ retryable: false, retryAfterMs: null, accountBroken: false });
    expect(judgeChannelError(500, 131049, null).retryable).toBe(false);
  });

  it('retries the codes that ask to slow down, even with a 400, after the Retry-After or the pause the channel documents', () => {
    expect(judgeChannelError(400, 130429, null)).toEqual({ retryable: true, retryAfterMs: null, accountBroken: false });
    expect(judgeChannelError(400, 131048, '30')).toEqual({ retryable: true, retryAfterMs: 30_000, accountBroken: false });
    expect(judgeChannelError(400, 131056, null)).toEqual({ retryable: true, retryAfterMs: 6_000, accountBroken: false });
    expect(judgeChannelError(400, 131056, '2').retryAfterMs).toBe(2_000);
    expect(judgeChannelError(429, 4, null).retryable).toBe(true);
  });

  it('fails on a broken token or account and says so', () => {
    expect(judgeChannelError(401, 190, null)).toEqual({ retryable: false, retryAfterMs: null, accountBroken: true });
    expect(judgeChannelError(400, 131031, null)).toEqual({ retryable: false, retryAfterMs: null, accountBroken: true });
  });

  it('judges a code the table does not know by its status: 429 and 5xx retried (with their Retry-After), other refusals final', () => {
    expect(judgeChannelError(503, 2, '5')).toEqual({ retryable: true, retryAfterMs: 5_000, accountBroken: false });
    expect(judgeChannelError(429, undefined, null).retryable).toBe(true);
    expect(judgeChannelError(400, 131009, null)).toEqual({ retryable: false, retryAfterMs: null, accountBroken: false });
    expect(judgeChannelError(404, undefined, '5').retryAfterMs).toBeNull();
  });

  it('knows the template range 132xxx and nothing just outside it', () => {
    expect(channelErrorRule(132000)?.outcome).toBe('refused');
    expect(channelErrorRule(132069)?.outcome).toBe('refused');
    expect(channelErrorRule(132999)?.outcome).toBe('refused');
    expect(channelErrorRule(133000)).toBeNull();
    expect(channelErrorRule(131999)).toBeNull();
  });
});
