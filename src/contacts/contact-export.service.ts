import { AuditLogService } from '../audit/audit-log.service';
import { Injectable, Logger } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import { pipeline, Readable } from 'node:stream';
import type { UserRow } from '../users/user.entity';
import { Database } from '../database/database';
import { exportHeader, exportRow } from './contact-csv';
import { contactFilterOf, type ContactFilterQuery } from './contact.dto';
import { ContactRepository, type ContactFilter } from './contact.repository';

/** Contacts read per statement: one keyset page of the list's own statement. */
const EXPORT_PAGE = 1000;

/**
 * The CSV export, streamed: the header needs every attribute key first (one query for the distinct
 * keys of the filtered contacts), then the contacts are read page by page with the list's own
 * statement (newest first, keyset) as the client takes them, so memory holds one page whatever
 * the count. Each page is its own statement (no transaction held open while a slow client reads):
 * a contact created during the export may be left out, and an attribute key first used during it
 * is not a column of this file.
 */
@Injectable()
export class ContactExportService {
  private readonly logger = new Logger(ContactExportService.name);

  constructor(
    private readonly database: Database,
    private readonly contacts: ContactRepository,
    private readonly audit: AuditLogService,
  ) {}

  async export(query: ContactFilterQuery, caller: UserRow): Promise<Readable> {
    const filter: ContactFilter = contactFilterOf(query, caller);
    const keys = await this.contacts.attributeKeys(this.database.db, filter);
    await this.audit.recordAlone('contacts.exported', { details: { searched: query.q !== undefined, tag: query.tag ?? null } });
    const records = Readable.from(this.records(filter, keys));
    // A failure half-way (the database gone) reaches the answer's StreamableFile, which logs it and
    // ends the answer abruptly: the client sees a broken transfer, not a short file.
    return pipeline(records, stringify(), (error) => {
      if ((error as NodeJS.ErrnoException | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE')
        this.logger.warn('The client left before the contact export ended');
    });
  }

  private async *records(filter: ContactFilter, keys: string[]): AsyncGenerator<string[]> {
    yield exportHeader(keys);
    let cursor: string | undefined;
    do {
      const page = await this.contacts.list(this.database.db, filter, { limit: EXPORT_PAGE, cursor });
      for (const contact of page.data) yield exportRow(contact, keys);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
}
