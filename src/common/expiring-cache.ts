/**
 * A map whose entries are trusted until a time each is given, and which holds at most
 * `maxEntries` (the oldest entry goes first): what the request path keeps for a while
 * instead of asking the database or verifying a signature again.
 */
export class ExpiringCache<Value> {
  private readonly entries = new Map<string, { value: Value; until: number }>();

  constructor(private readonly maxEntries: number) {}

  /** The value kept for `key`, while it is still trusted; undefined otherwise. */
  get(key: string, now = Date.now()): Value | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.until > now) return entry.value;
    return undefined;
  }

  /** Keeps `value` for `key` until `until` (ms since the epoch), as the newest entry. */
  set(key: string, value: Value, until: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
