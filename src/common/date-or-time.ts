import { ValidateBy } from 'class-validator';

/** A calendar date (`2026-11-01`) or a date and time (`2026-11-01T09:30:00Z`, an offset or none), as JavaScript reads them. */
const DATE_OR_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
/** An ISO 8601 time that says its time zone (`Z` or an offset): a time without one means different instants to different clients. */
const ZONED_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/;

/**
 * The instants every answer can write with a four-digit year and PostgreSQL's calendar holds: an
 * offset moves a time written in year 9999 or 0001 into 10000 or 0000, which `toISOString` writes as
 * `+010000-…` and PostgreSQL, which has no year 0 (1 BC), formats as 0001.
 */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * A moment written in one of the ISO 8601 forms `pattern` allows, which JavaScript reads as a
 * moment: forms `new Date` cannot read (week dates, ordinal dates, the compact form) must be a
 * 400, not a statement that fails. A day past its month's end (`2026-02-30`) is read as the days
 * after it, as `new Date` reads it.
 */
function momentValidator(name: string, pattern: RegExp, message: string): PropertyDecorator {
  const instantOf = (value: unknown) => (typeof value === 'string' && pattern.test(value) ? Date.parse(value) : Number.NaN);
  return ValidateBy({
    name,
    validator: {
      validate: (value: unknown) => {
        const at = instantOf(value);
        return at >= FIRST_INSTANT && at <= LAST_INSTANT;
      },
      defaultMessage: (validation) =>
        Number.isNaN(instantOf(validation?.value)) ? message : '$property must be within the years 0001 to 9999 in UTC',
    },
  });
}

/** A query's moment: a calendar date or a date-time. */
export function IsDateOrDateTime(): PropertyDecorator {
  return momentValidator('isDateOrDateTime', DATE_OR_TIME, '$property must be an ISO 8601 date or date-time');
}

/** A moment that must mean one instant to every client: a date-time with its time zone. */
export function IsZonedTime(): PropertyDecorator {
  return momentValidator('isZonedTime', ZONED_TIME, '$property must be an ISO 8601 time with a time zone, e.g. 2026-11-22T16:41:46Z');
}

/** A report's bound: a calendar date (its midnight in the report's zone) or a date-time with its time zone. */
export function IsDateOrZonedTime(): PropertyDecorator {
  return momentValidator(
    'isDateOrZonedTime',
    new RegExp(`^\\d{4}-\\d{2}-\\d{2}$|${ZONED_TIME.source}`),
    '$property must be a date (2026-11-01) or a date-time with its time zone (2026-11-01T09:30:00+01:00)',
  );
}
