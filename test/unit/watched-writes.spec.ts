import { watchedWriteOf } from '../../src/database/sql';

/** Which writes wake the relay (due), have it read a kind's next due time (rescheduled), or tell it nothing. */
describe('watchedWriteOf', () => {
  it.each([
    ['INSERT INTO webhook_deliveries (id, next_attempt_at) VALUES ($1, now())', 'webhook_deliveries'],
    [
      'INSERT INTO template_syncs (id, next_attempt_at) VALUES ($1, now()) ON CONFLICT (id) DO UPDATE SET next_attempt_at = LEAST(x, now())',
      'template_syncs',
    ],
    ['UPDATE template_syncs SET next_attempt_at = now() WHERE id = $1', 'template_syncs'],
    ['UPDATE media w SET next_attempt_at = now(), claimed_by = NULL WHERE w.status = $1', 'media'],
    ['UPDATE messages SET next_attempt_at=NOW() WHERE id = $1', 'messages'],
  ])('tells of a row made due now: %s', (text, table) => {
    expect(watchedWriteOf(text)).toEqual({ kind: 'due', table });
  });

  it.each([
    ['UPDATE outbound_emails w SET next_attempt_at = $2, claimed_by = NULL, updated_at = now() WHERE id = $1', 'outbound_emails'],
    ['UPDATE campaigns SET next_attempt_at=$3 WHERE id = $1', 'campaigns'],
    ['UPDATE webhook_deliveries w SET attempts = r.attempts, next_attempt_at = r.next_attempt_at FROM (SELECT 1) r', 'webhook_deliveries'],
  ])('tells of a row given a due time of its own: %s', (text, table) => {
    expect(watchedWriteOf(text)).toEqual({ kind: 'rescheduled', table });
  });

  it.each([
    "UPDATE read_receipts SET next_attempt_at = now() + $1 * interval '1 millisecond' WHERE id = $2",
    'UPDATE read_receipts SET status = $1, next_attempt_at = NULL, claimed_by = NULL WHERE id = $2',
    'UPDATE read_receipts SET next_attempt_at =  null WHERE id = $1',
    'UPDATE users SET name = $1 WHERE id = $2',
    'WITH claimed AS (UPDATE media SET next_attempt_at = now() + $1 WHERE id = $2 RETURNING id) SELECT id FROM claimed',
    'DELETE FROM media WHERE id = $1',
    'SELECT next_attempt_at = $1 FROM media',
  ])('tells nothing of a lease, a clearing or another statement: %s', (text) => {
    expect(watchedWriteOf(text)).toBeNull();
  });
});
