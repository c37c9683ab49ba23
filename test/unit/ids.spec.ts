import { newUuid, parsePublicId, toPublicId } from '../../src/common/ids';

describe('ids', () => {
  it('makes version-7 uuids that carry their creation time', () => {
    const uuid = newUuid(Date.UTC(2026, 10, 22));
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(uuid.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.UTC(2026, 10, 22));
  });

  it('orders uuids of later milliseconds after earlier ones', () => {
    expect(newUuid(1_000) < newUuid(1_001)).toBe(true);
  });

  // Times far ahead of the clock, later in each test: each starts past what the one before made.
  const base = Date.now() + 365 * 86_400_000;
  const timeOf = (uuid: string) => parseInt(uuid.replace(/-/g, '').slice(0, 12), 16);

  it('orders the uuids of one millisecond in the order they were made', () => {
    const made = Array.from({ length: 2048 }, () => newUuid(base));
    expect([...made].sort()).toEqual(made);
    expect(made.every((uuid) => timeOf(uuid) === base)).toBe(true);
  });

  it('keeps counting into the next millisecond when one millisecond makes more than its sequence holds', () => {
    const at = base + 10_000;
    const made = Array.from({ length: 5000 }, () => newUuid(at));
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(5000);
    expect(made.every((uuid) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid))).toBe(true);
    expect(timeOf(made[4999]) - at).toBeLessThanOrEqual(2);
  });

  it('counts on from the latest for a time a little behind it (a clock stepped back)', () => {
    const at = base + 20_000;
    const first = newUuid(at);
    const stepped = newUuid(at - 300);
    expect(stepped > first).toBe(true);
  });

  it('dates a uuid made for a time long before the latest with that time', () => {
    newUuid(base + 30_000);
    const earlier = Date.UTC(2026, 0, 1);
    expect(timeOf(newUuid(earlier))).toBe(earlier);
  });

  it('never repeats a uuid within one millisecond', () => {
    const now = base + 40_000;
    expect(new Set(Array.from({ length: 1000 }, () => newUuid(now))).size).toBe(1000);
  });

  it('turns a uuid into a prefixed public id and back', () => {
    const uuid = newUuid();
    const publicId = toPublicId('conv', uuid);
    expect(publicId).toMatch(/^conv_[0-9a-f]{32}$/);
    expect(parsePublicId('conv', publicId)).toBe(uuid);
  });

  it.each([
    ['user_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d'],
    ['conv_42'],
    ['conv_0193A5F2C3E47B1A9C4E2D6F8A0B1C2D'],
    ['0193a5f2c3e47b1a9c4e2d6f8a0b1c2d'],
    ['conv_0193a5f2c3e47b1a9c4e2d6f8a0b1c2d0'],
  ])('reads %s as no conversation id', (publicId) => {
    expect(parsePublicId('conv', publicId)).toBeNull();
  });
});
