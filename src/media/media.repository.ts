import { Injectable } from '@nestjs/common';
import { Db, execute, query, queryOne, sql } from '../database/sql';
import type { WorkKind } from '../recorded-work/work-kind';
import type { MediaRow } from './media.entity';

const COLUMNS = sql.raw(
  'id, direction, kind, status, mime_type, size, filename, sha256, storage_key, channel_media_id, channel_sha256, available_until, channel_upload_id, channel_uploaded_at, error, attempts, next_attempt_at, uploaded_by, created_at, updated_at',
);
/** Media whose download is not finished, as recorded work (alias `w`); a download needs the whole row. */
export const DOWNLOAD_WORK = {
  table: 'media',
  waiting: sql`w.status = 'pending'`,
  needs: { columns: COLUMNS },
} satisfies Pick<WorkKind, 'table' | 'waiting' | 'needs'>;

/** The SQL of the `media` table. */
@Injectable()
export class MediaRepository {
  async insert(db: Db, media: MediaRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO media (${COLUMNS})
          VALUES (${media.id}, ${media.direction}, ${media.kind}, ${media.status}, ${media.mime_type}, ${media.size}, ${media.filename},
                  ${media.sha256}, ${media.storage_key}, ${media.channel_media_id}, ${media.channel_sha256}, ${media.available_until},
                  ${media.channel_upload_id}, ${media.channel_uploaded_at}, ${media.error}, ${media.attempts}, ${media.next_attempt_at},
                  ${media.uploaded_by}, ${media.created_at}, ${media.updated_at})`,
    );
  }

  find(db: Db, id: string): Promise<MediaRow | null> {
    return queryOne(db, sql`SELECT ${COLUMNS} FROM media WHERE id = ${id}`);
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

  async recordChannelUpload(db: Db, id: string, channelUploadId: string, at: Date): Promise<void> {
    await execute(
      db,
      sql`UPDATE media SET channel_upload_id = ${channelUploadId}, channel_uploaded_at = ${at}, updated_at = now() WHERE id = ${id}`,
    );
  }
}
