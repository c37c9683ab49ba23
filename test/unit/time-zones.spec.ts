import { midnightIn } from '../../src/common/time-zones';

describe('midnightIn', () => {
  it('is the moment the date begins in the zone, east and west of UTC', () => {
    expect(midnightIn('2026-11-16', 'UTC').toISOString()).toBe('2026-11-16T00:00:00.000Z');
    expect(midnightIn('2026-11-16', 'Europe/Berlin').toISOString()).toBe('2026-11-15T23:00:00.000Z');
    expect(midnightIn('2026-07-16', 'Europe/Berlin').toISOString()).toBe('2026-07-15T22:00:00.000Z');
    expect(midnightIn('2026-11-16', 'America/New_York').toISOString()).toBe('2026-11-16T05:00:00.000Z');
    expect(midnightIn('2026-11-16', 'Asia/Kolkata').toISOString()).toBe('2026-11-15T18:30:00.000Z');
  });

  it('reads the years 1 to 99 as themselves, not as 1901 to 1999', () => {
    expect(midnightIn('0050-01-01', 'UTC').toISOString()).toBe('0050-01-01T00:00:00.000Z');
    expect(midnightIn('0001-01-01', 'Etc/GMT-5').getTime()).toBe(Date.parse('0001-01-01T00:00:00Z') - 5 * 3_600_000);
  });

  it('reads a year before the era (1 BC, the year 0000) as that year, not as the year 1', () => {
    expect(midnightIn('0000-01-01', 'UTC').toISOString()).toBe('0000-01-01T00:00:00.000Z');
    expect(midnightIn('0000-06-01', 'Etc/GMT+3').toISOString()).toBe('0000-06-01T03:00:00.000Z');
  });

  it('takes the offset of the day itself on the days clocks change', () => {
    // Berlin leaves summer time at 03:00 on 25 October 2026: that midnight is still at +02:00.
    expect(midnightIn('2026-10-25', 'Europe/Berlin').toISOString()).toBe('2026-10-24T22:00:00.000Z');
    expect(midnightIn('2026-10-26', 'Europe/Berlin').toISOString()).toBe('2026-10-25T23:00:00.000Z');
    // Santiago skips midnight when summer time starts (6 September 2026): the day begins at 01:00, -03:00.
    expect(midnightIn('2026-09-06', 'America/Santiago').toISOString()).toBe('2026-09-06T04:00:00.000Z');
    // Cairo skips midnight east of UTC (24 April 2026, +02:00 to +03:00): the day begins at 01:00, +03:00.
    expect(midnightIn('2026-04-24', 'Africa/Cairo').toISOString()).toBe('2026-04-23T22:00:00.000Z');
  });
});
