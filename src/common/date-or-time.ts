import { ValidateBy } from 'class-validator';

/** A calendar date (`2026-11-01`) or a date and time (`2026-11-01T09:30:00Z`, an offset or none), as JavaScript reads them. */
const DATE_OR_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A query's moment: an ISO 8601 calendar date or date-time that is a real moment. Week dates,
 * ordinal dates and the compact form are ISO 8601 too, but `new Date` cannot read them, and a
 * moment that is no moment must be a 400, not a statement that fails.
 */
export function IsDateOrDateTime(): PropertyDecorator {
  return ValidateBy({
    name: 'isDateOrDateTime',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && DATE_OR_TIME.test(value) && !Number.isNaN(new Date(value).getTime()),
      defaultMessage: (args) => `${args?.property ?? 'value'} must be an ISO 8601 date or date-time`,
    },
  });
}
