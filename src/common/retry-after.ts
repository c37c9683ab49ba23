/** Retry-After in seconds or as an HTTP date, in ms; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}
