/**
 * Waits until the clock reads later than `ms` (epoch milliseconds), yielding to the event loop
 * meanwhile: what is written after it gets a later timestamp at the database's millisecond
 * precision. A wait for that marker, not a guess at how long it takes.
 */
export async function clockPast(ms: number): Promise<void> {
  while (Date.now() <= ms) await new Promise((resolve) => setImmediate(resolve));
}

/** Waits until the clock has moved past the current millisecond (rows written after it sort after those written before). */
export function nextMillisecond(): Promise<void> {
  return clockPast(Date.now());
}
