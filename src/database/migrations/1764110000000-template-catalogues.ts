import { MigrationInterface, QueryRunner } from 'typeorm';

/** The default inbox, which held every conversation before there were others (see src/common/default-inbox.ts). */
const DEFAULT_INBOX_ID = '00000000-0000-7000-8000-000000000001';

/**
 * A template catalogue per business account: inboxes on different accounts send different
 * templates, so a template is one name and language of one `catalogue` (the business account's
 * id, or `sandbox` for the sandbox's own), and each catalogue has its own sync row.
 *
 * The templates stored so far were read from the default inbox's channel, as its row says it was
 * at the last start (the start writes the settings into it): its business account, or the
 * sandbox without a token. A number with a token and no business account had no catalogue;
 * anything left from before is kept under the sandbox's key, where no real inbox reads it.
 */
export class TemplateCatalogues1764110000000 implements MigrationInterface {
  name = 'TemplateCatalogues1764110000000';

  async up(q: QueryRunner): Promise<void> {
    const rows = (await q.query(
      `SELECT CASE WHEN access_token IS NULL OR phone_number_id IS NULL OR business_account_id IS NULL THEN 'sandbox' ELSE business_account_id END AS catalogue
         FROM inboxes WHERE id = $1`,
      [DEFAULT_INBOX_ID],
    )) as { catalogue: string }[];
    const catalogue = rows[0]?.catalogue ?? 'sandbox';
    await q.query('ALTER TABLE templates ADD COLUMN catalogue text');
    await q.query('UPDATE templates SET catalogue = $1', [catalogue]);
    await q.query('ALTER TABLE templates ALTER COLUMN catalogue SET NOT NULL');
    await q.query('DROP INDEX templates_name_language_idx');
    await q.query('CREATE UNIQUE INDEX templates_catalogue_name_language_idx ON templates (catalogue, name, language)');
    // The one sync row becomes the sync of that catalogue, with its history (synced_at: sends are checked at once).
    await q.query(`UPDATE template_syncs SET id = $1 WHERE id = 'catalogue'`, [catalogue]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM template_syncs WHERE id <> (SELECT min(id) FROM template_syncs)`);
    await q.query(`UPDATE template_syncs SET id = 'catalogue'`);
    await q.query(
      `DELETE FROM templates t WHERE EXISTS (SELECT 1 FROM templates o WHERE o.name = t.name AND o.language = t.language AND o.id < t.id)`,
    );
    await q.query('DROP INDEX templates_catalogue_name_language_idx');
    await q.query('CREATE UNIQUE INDEX templates_name_language_idx ON templates (name, language)');
    await q.query('ALTER TABLE templates DROP COLUMN catalogue');
  }
}
