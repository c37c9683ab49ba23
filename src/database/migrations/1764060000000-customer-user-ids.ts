import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customers the channel knows by a business-scoped user id (`contacts[].user_id`) and, when they
 * adopted one, a username, possibly without a phone: a contact has a phone, an id or both. The
 * search index is rebuilt so that `q` finds the username too (its expression must stay the one
 * `contactSearchText` writes).
 */
export class CustomerUserIds1764060000000 implements MigrationInterface {
  name = 'CustomerUserIds1764060000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE contacts
        ADD COLUMN wa_user_id text,
        ADD COLUMN username text,
        ALTER COLUMN phone DROP NOT NULL,
        ADD CONSTRAINT contacts_wa_user_id_key UNIQUE (wa_user_id),
        ADD CONSTRAINT contacts_identity_check CHECK (phone IS NOT NULL OR wa_user_id IS NOT NULL)`);
    await q.query('DROP INDEX contacts_search_idx');
    await q.query(
      `CREATE INDEX contacts_search_idx ON contacts USING gin
         ((coalesce(name, '') || ' ' || coalesce(phone, '') || ' ' || coalesce(email, '') || ' ' || coalesce(username, '')) gin_trgm_ops)`,
    );
    // wa_user_id is a contact field now, so no attribute may bear its name (the CSV would have the column twice): one that did is renamed.
    await q.query(`
      UPDATE contacts c
         SET attributes = (SELECT jsonb_object_agg(CASE WHEN lower(e.key) = 'wa_user_id' THEN 'legacy_' || e.key ELSE e.key END, e.value)
                             FROM jsonb_each(c.attributes) AS e)
       WHERE EXISTS (SELECT 1 FROM jsonb_object_keys(c.attributes) AS k WHERE lower(k) = 'wa_user_id')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX contacts_search_idx');
    await q.query(
      `CREATE INDEX contacts_search_idx ON contacts USING gin ((coalesce(name, '') || ' ' || phone || ' ' || coalesce(email, '')) gin_trgm_ops)`,
    );
    // Fails while a contact has no phone: those customers would be lost, so an operator decides.
    await q.query(
      'ALTER TABLE contacts DROP CONSTRAINT contacts_identity_check, DROP COLUMN wa_user_id, DROP COLUMN username, ALTER COLUMN phone SET NOT NULL',
    );
  }
}
