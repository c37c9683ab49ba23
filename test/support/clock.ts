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

/**
 * The clock of this process (the service in it included) `ms` ahead from now on, still running
 * (timers and intervals go on); answers the restore. A deadline hours away is then past without a
 * test that waits for it, or one of seconds that a slow run could miss before the step it needs.
 */
export function clockAhead(ms: number): { restore(): void } {
  const realNow = Date.now.bind(Date);
  const spy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + ms);
  return { restore: () => spy.mockRestore() };
}
