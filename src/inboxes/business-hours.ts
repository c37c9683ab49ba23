import { ValidateBy } from 'class-validator';
import { isTimeZone } from '../common/time-zones';

/**
 * An inbox's business hours, pure: when it is open, in its own time zone. Used by the away reply
 * (and, later, by rules and reports). Times are wall-clock times of the zone, so a day keeps its
 * hours across daylight-saving changes.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** `["09:00", "17:30"]`: open from the first time up to (not including) the second, "24:00" being the day's end. */
export type Interval = [string, string];

export interface BusinessHours {
  /** An IANA time zone, e.g. `Europe/Berlin`. */
  timezone: string;
  /** The open intervals of each weekday; a day left out is closed. */
  days: Partial<Record<Weekday, Interval[]>>;
  /** Dates (`YYYY-MM-DD`, in the zone) closed all day. */
  holidays: string[];
}

const TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
/** A date of the calendar: `2026-02-30` has the form but is no day. */
const isCalendarDate = (value: unknown): boolean =>
  typeof value === 'string' && DATE.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
/** How many intervals one day may have, and holidays one inbox. */
export const MAX_INTERVALS_PER_DAY = 10;
export const MAX_HOLIDAYS = 400;

const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * What is wrong with business hours as a request gives them, in one sentence naming the field;
 * null when they are right. Intervals must each start before they end and not overlap.
 */
export function businessHoursProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'business_hours must be an object or null';
  const hours = value as Record<string, unknown>;
  const unknownKey = Object.keys(hours).find((key) => !['timezone', 'days', 'holidays'].includes(key));
  if (unknownKey) return `business_hours.${unknownKey} is not a field of business hours`;
  if (typeof hours.timezone !== 'string' || !isTimeZone(hours.timezone))
    return 'business_hours.timezone must be an IANA time zone such as Europe/Berlin';
  if (typeof hours.days !== 'object' || hours.days === null || Array.isArray(hours.days))
    return 'business_hours.days must be an object of weekdays (mon … sun)';
  for (const [day, intervals] of Object.entries(hours.days)) {
    const field = `business_hours.days.${day}`;
    if (!(WEEKDAYS as readonly string[]).includes(day)) return `${field} is not a weekday: use mon, tue, wed, thu, fri, sat, sun`;
    if (!Array.isArray(intervals) || intervals.length > MAX_INTERVALS_PER_DAY)
      return `${field} must be a list of at most ${MAX_INTERVALS_PER_DAY} intervals`;
    const sorted: [number, number][] = [];
    for (const interval of intervals as unknown[]) {
      if (!Array.isArray(interval) || interval.length !== 2 || !interval.every((time) => typeof time === 'string' && TIME.test(time)))
        return `${field} must hold intervals such as ["09:00", "17:30"] (24-hour times, 24:00 for midnight at the end)`;
      const [start, end] = interval.map(minutesOf);
      if (start >= end) return `${field}: an interval must start before it ends`;
      sorted.push([start, end]);
    }
    sorted.sort((a, b) => a[0] - b[0]);
    if (sorted.some(([start], i) => i > 0 && start < sorted[i - 1][1])) return `${field}: intervals must not overlap`;
  }
  if (hours.holidays === undefined) return 'business_hours.holidays is required: a list of dates, [] for none';
  if (!Array.isArray(hours.holidays) || hours.holidays.length > MAX_HOLIDAYS)
    return `business_hours.holidays must be a list of at most ${MAX_HOLIDAYS} dates`;
  if (!hours.holidays.every(isCalendarDate)) return 'business_hours.holidays must hold dates of the calendar such as 2026-12-25';
  return null;
}

/** Validates business hours in a request: the 400 names the first field that is wrong. */
export function IsBusinessHours(): PropertyDecorator {
  return ValidateBy({
    name: 'isBusinessHours',
    validator: {
      validate: (value: unknown) => businessHoursProblem(value) === null,
      defaultMessage: (args) => businessHoursProblem(args?.value) ?? 'business_hours is invalid',
    },
  });
}

/** The weekday, date and minute of the day at `at` in the zone. */
function wallClock(at: Date, timezone: string): { weekday: Weekday; date: string; minute: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return {
    weekday: parts.weekday.toLowerCase() as Weekday,
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** Whether the inbox is open at `at`: always without business hours; else inside an interval of the day, unless a holiday. */
export function isOpenAt(hours: BusinessHours | null, at: Date): boolean {
  if (hours === null) return true;
  const { weekday, date, minute } = wallClock(at, hours.timezone);
  if (hours.holidays.includes(date)) return false;
  return (hours.days[weekday] ?? []).some(([start, end]) => minute >= minutesOf(start) && minute < minutesOf(end));
}
