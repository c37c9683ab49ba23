import { Injectable } from '@nestjs/common';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { WorkKind } from '../recorded-work/work-kind';
import type { MediaRow } from './media.entity';

const COLUMNS = sql.raw(
  'id, direction, kind, status, mime_type, size, filename, sha256, storage_key, channel_media_id, channel_sha256, available_until, channel_upload_id, channel_uploaded_at, inbox_id, channel_upload_inbox_id, error, attempts, next_attempt_at, uploaded_by, created_at, updated_at',
);
/** Media whose download is not finished, as recorded work (alias `w`); a download needs the whole row. */
export const DOWNLOAD_WORK = {
  table: 'media',
  waiting: sql`w.status = 'pending'`,
  needs: { columns: COLUMNS },
} satisfies Pick<WorkKind, 'table' | 'waiting' | 'needs'>;

/** The class of the advisory locks that serialise one user's uploads against their quota (the second key is the user's). */
const UPLOAD_QUOTA_LOCK_CLASS = 7_302;

/** An upload no message was sent with (as its media or a template's header): takeForSending sets sent_at. */
const UNSENT = sql`m.direction = 'outbound' AND m.sent_at IS NULL`;

/** The SQL of the `media` table. */
@Injectable()
export class MediaRepository {
  async insert(db: Db, media: MediaRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO media (${COLUMNS})
          VALUES (${media.id}, ${media.direction}, ${media.kind}, ${media.status}, ${media.mime_type}, ${media.size}, ${media.filename},
                  ${media.sha256}, ${media.storage_key}, ${media.channel_media_id}, ${media.channel_sha256}, ${media.available_until},
                  ${media.channel_upload_id}, ${media.channel_uploaded_at}, ${media.inbox_id}, ${media.channel_upload_inbox_id}, ${media.error}, ${media.attempts}, ${media.next_attempt_at},
                  ${media.uploaded_by}, ${media.created_at}, ${media.updated_at})`,
    );
  }

  find(db: Db, id: string): Promise<MediaRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM media WHERE id = ${id}`);
  }

  /** Whether a message of one of `inboxes` carries the media (on messages_media_idx). */
  async sentIn(db: Db, id: string, inboxes: readonly string[]): Promise<boolean> {
    const found = await queryOne(
      db,
      sql`SELECT 1 AS found FROM messages WHERE media_id = ${id} AND inbox_id = ANY(${[...inboxes]}::uuid[]) LIMIT 1`,
    );
    return found !== null;
  }

  /**
   * A media about to be sent, marked sent in the caller's transaction (so it is no unsent upload
   * from its commit on; a rollback unmarks it) and locked meanwhile, so the deletion of unsent
   * uploads cannot take it (it skips it).
   */
  takeForSending(db: Db, id: string): Promise<MediaRow | null> {
    return queryOne(db, sql`UPDATE media SET sent_at = coalesce(sent_at, now()) WHERE id = ${id} RETURNING ${COLUMNS}`);
  }

  /** Holds `userId`'s uploads back until the caller's transaction ends: two uploads at once count each other against the quota. */
  async lockUploadsOf(db: Db, userId: string): Promise<void> {
    await execute(db, sql`SELECT pg_advisory_xact_lock(${UPLOAD_QUOTA_LOCK_CLASS}, hashtext(${userId}))`);
  }

  /** The bytes of `userId`'s unsent uploads made since `since`. */
  async unsentBytesOf(db: Db, userId: string, since: Date): Promise<number> {
    const row = await queryOne<{ bytes: string | null }>(
      db,
      sql`SELECT sum(m.size) AS bytes FROM media m WHERE m.uploaded_by = ${userId} AND m.created_at >= ${since} AND ${UNSENT}`,
    );
    return Number(row?.bytes ?? 0);
  }

  /** Deletes up to `limit` unsent uploads made before `before` (skipping any being sent); answers their storage keys. */
  async deleteUnsentBefore(db: Db, before: Date, limit: number): Promise<string[]> {
    const rows = await query<{ storage_key: string | null }>(
      db,
      sql`DELETE FROM media WHERE id IN (
            SELECT m.id FROM media m WHERE m.created_at < ${before} AND ${UNSENT} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING storage_key`,
    );
    return rows.flatMap((row) => (row.storage_key ? [row.storage_key] : []));
  }

  findMany(db: Db, ids: string[]): Promise<MediaRow[]> {
    return query(db, sql`SELECT ${COLUMNS} FROM media WHERE id = ANY(${ids}::uuid[])`);
  }

  /** Ends a pending media's download: stored (`ready`), or never to be (`failed`, `expired`); answers the row, or null when it was no longer pending. */
  finishDownload(
    db: Db,
    id: string,
    change:
      | { status: 'ready'; mime_type: string; size: number; sha256: string; storage_key: string }
      | { status: 'failed' | 'expired'; error: string },
  ): Promise<MediaRow | null> {
    const stored = change.status === 'ready' ? change : null;
    return queryOne(
      db,
      sql`UPDATE media SET status = ${change.status}, mime_type = COALESCE(${stored?.mime_type ?? null}, mime_type), size = ${stored?.size ?? null},
                 sha256 = ${stored?.sha256 ?? null}, storage_key = ${stored?.storage_key ?? null}, error = ${stored ? null : (change as { error: string }).error},
                 next_attempt_at = NULL, claimed_by = NULL, updated_at = now()
           WHERE id = ${id} AND status = 'pending'
          RETURNING ${COLUMNS}`,
    );
  }

  async recordChannelUpload(db: Db, id: string, channelUploadId: string, inboxId: string, at: Date): Promise<void> {
    await execute(
      db,
      sql`UPDATE media SET channel_upload_id = ${channelUploadId}, channel_uploaded_at = ${at}, channel_upload_inbox_id = ${inboxId}, updated_at = now()
           WHERE id = ${id}`,
    );
  }
}
