import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * A phone number in E.164 (`+16315551234`), or null when it cannot be one. Accepts the
 * international format with or without the leading `+` (the channel sends `16315551234`), with
 * spaces, dashes and brackets. Numbers are checked for a possible length per country, not
 * against allocation ranges, so test numbers such as +1 555 … are accepted.
 */
export function toE164(input: string): string | null {
  const trimmed = input.trim();
  if (!/^\+?[\d\s().-]{5,32}$/.test(trimmed)) return null;
  const parsed = parsePhoneNumberFromString(trimmed.startsWith('+') ? trimmed : `+${trimmed}`);
  return parsed?.isPossible() ? parsed.number : null;
}
