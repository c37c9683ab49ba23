import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The label names' triggers (ListRowColumns1764230000000) lock the conversations they rewrite in
 * the order of their ids before rewriting them. One UPDATE locks its rows in whatever order it
 * meets them: two renames of labels sharing conversations (or a rename and a bulk labelling) could
 * each hold a conversation the other waited for, and PostgreSQL aborted one.
 */
export class LabelNamesInOrder1764260000000 implements MigrationInterface {
  name = 'LabelNamesInOrder1764260000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_list_on_links() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM conversations WHERE id IN (SELECT conversation_id FROM changed) ORDER BY id FOR NO KEY UPDATE;
        UPDATE conversations c SET label_names = conversation_label_names(c.id)
         WHERE c.id IN (SELECT conversation_id FROM changed);
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_list_on_label_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM conversations WHERE id IN (SELECT cl.conversation_id FROM conversation_labels cl WHERE cl.label_id = NEW.id)
          ORDER BY id FOR NO KEY UPDATE;
        UPDATE conversations c SET label_names = conversation_label_names(c.id)
         WHERE c.id IN (SELECT cl.conversation_id FROM conversation_labels cl WHERE cl.label_id = NEW.id);
        RETURN NULL;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_list_on_links() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversations c SET label_names = conversation_label_names(c.id)
         WHERE c.id IN (SELECT conversation_id FROM changed);
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION conversation_list_on_label_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE conversations c SET label_names = conversation_label_names(c.id)
         WHERE c.id IN (SELECT cl.conversation_id FROM conversation_labels cl WHERE cl.label_id = NEW.id);
        RETURN NULL;
      END
      $$`);
  }
}
