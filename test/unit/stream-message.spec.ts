import { parseStreamMessage, toStreamMessage } from '../../src/events/redis-event-stream';

const envelope = {
  id: `evt_${'a'.repeat(32)}`,
  type: 'notification.created' as const,
  created_at: '2026-01-01T00:00:00.000Z',
  data: { n: 1 },
};
const audience = '0193a5f2-c3e4-7b1a-9c4e-2d6f8a0b1c2d';
const inboxId = '0193a5f2-c3e4-7b1a-9c4e-2d6f8a0b1c2e';

describe('messages of the Redis event stream', () => {
  it('writes an event for everyone as its bare envelope, as before audiences existed, and reads it back', () => {
    const message = toStreamMessage({ envelope, audience: null, inboxId: null });
    expect(JSON.parse(message)).toEqual(envelope);
    expect(parseStreamMessage(message)).toEqual({ envelope, audience: null, inboxId: null });
  });

  it('wraps an event for one user with its audience, and reads it back', () => {
    const message = toStreamMessage({ envelope, audience, inboxId: null });
    expect(JSON.parse(message)).toEqual({ audience, event: envelope });
    expect(parseStreamMessage(message)).toEqual({ envelope, audience, inboxId: null });
  });

  it('wraps an event of one inbox with its inbox, and reads it back', () => {
    const message = toStreamMessage({ envelope, audience: null, inboxId });
    expect(JSON.parse(message)).toEqual({ inbox: inboxId, event: envelope });
    expect(parseStreamMessage(message)).toEqual({ envelope, audience: null, inboxId });
  });

  it('is not an envelope to a reader that knows no inbox, which drops it rather than showing it to everyone', () => {
    const wrapped = JSON.parse(toStreamMessage({ envelope, audience: null, inboxId })) as Record<string, unknown>;
    expect(wrapped.id).toBeUndefined();
    expect(wrapped.type).toBeUndefined();
  });

  it('is not an envelope to a reader that knows no audience, which drops it rather than showing it to everyone', () => {
    const wrapped = JSON.parse(toStreamMessage({ envelope, audience, inboxId: null })) as Record<string, unknown>;
    expect(wrapped.id).toBeUndefined();
    expect(wrapped.type).toBeUndefined();
  });

  it.each([
    ['an audience that is not a uuid', { audience: 'everyone', event: envelope }],
    ['a malformed wrapped envelope', { audience, event: { ...envelope, id: 'evt_x\nevent: forged' } }],
    ['an audience of null wrapping an envelope', { audience: null, event: envelope }],
    ['an inbox that is not a uuid', { inbox: 'sales', event: envelope }],
  ])('refuses %s', (_, value) => {
    expect(parseStreamMessage(JSON.stringify(value))).toBeNull();
  });
});
