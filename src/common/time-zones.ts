/** IANA time zones, pure: which exist, and when a wall-clock date begins in one. */

/** Whether the runtime knows the zone (it throws on an unknown one). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** How far the zone's wall clock is ahead of UTC at `at`, in milliseconds. */
function offsetAt(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    era: 'short',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((found) => found.type === type)!.value);
  // The year of the era: 1 BC is the year 0 of the Date's calendar.
  const year = parts.find((found) => found.type === 'era')?.value === 'BC' ? 1 - part('year') : part('year');
  // Not Date.UTC: it reads the years 0 to 99 as 1900 to 1999.
  const wall = new Date(0);
  wall.setUTCFullYear(year, part('month') - 1, part('day'));
  wall.setUTCHours(part('hour'), part('minute'), part('second'));
  return wall.getTime() - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The moment a date (`YYYY-MM-DD`) begins in the zone: its midnight, or where a clock change skips
 * midnight, the first moment of the day.
 */
export function midnightIn(date: string, timeZone: string): Date {
  const wall = Date.parse(`${date}T00:00:00Z`);
  // The offset at the guess may differ from the one at midnight by a clock change between them: read it again there.
  const guess = wall - offsetAt(new Date(wall), timeZone);
  const moment = wall - offsetAt(new Date(guess), timeZone);
  if (offsetAt(new Date(moment), timeZone) === wall - moment) return new Date(moment);
  // Midnight does not exist that day (the clocks jump over it): the day begins at the jump, the later of the two.
  return new Date(Math.max(guess, moment));
}
