import { BadRequestException, Injectable, PayloadTooLargeException } from '@nestjs/common';
import { CsvError, parse, type Parser } from 'csv-parse';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { newUuid } from '../common/ids';
import { readInBatches } from '../common/read-in-batches';
import { isUniqueViolation } from '../database/errors';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import { EventsService } from '../events/events.service';
import { MAX_ATTRIBUTES, sameAttributes } from './contact-attributes';
import { LineCounter, readHeader, readRow, type CsvHeader, type ImportRow, type Refusal } from './contact-csv';
import { ContactResponse } from './contact.dto';
import type { ContactRow } from './contact.entity';
import { ContactRepository } from './contact.repository';
import { ContactEvent } from './contact.events';

/** The largest CSV body an import takes (10 MiB); a larger one is a 413. */
export const IMPORT_MAX_BYTES = 10 * 1024 * 1024;
/** Lines written per transaction: big enough that 100,000 lines are 100 statements of each kind, small enough that no transaction holds the database long. */
const BATCH_LINES = 1000;
/** The refusals an answer lists; past them, one more entry says how many more lines were refused. */
export const LISTED_REFUSALS = 1000;
/** The longest line (record) read: 50 attributes of 1,000 characters and the contact's fields fit well within it. */
const MAX_LINE_BYTES = 128 * 1024;
/** How often a batch is tried again when a contact with one of its new phones was created by someone else meanwhile. */
const BATCH_ATTEMPTS = 3;

export interface ImportResult {
  created: number;
  updated: number;
  refused: Refusal[];
}

/** A phone of the batch was inserted by another transaction between the lock and the insert: the batch runs again and finds it. */
class PhoneTakenMeanwhile extends Error {}

/**
 * The CSV import: the body is parsed as it arrives (csv-parse) and written in batches of
 * BATCH_LINES, each batch one transaction, so an import of 100,000 lines never holds the
 * database (the embedded engine has one connection) for more than one batch at a time. Each
 * line creates or updates the contact with its phone; the columns the file has are written, the
 * others left as they are. Lines are applied in order, so when a phone appears twice the later
 * line wins (both count). An import is not all-or-nothing: the batches before a failure stay
 * written, and importing the same file again is harmless.
 */
@Injectable()
export class ContactImportService {
  constructor(
    private readonly database: Database,
    private readonly contacts: ContactRepository,
    private readonly events: EventsService,
  ) {}

  async import(body: Readable): Promise<ImportResult> {
    const report = new RefusalReport();
    const lines = new LineCounter();
    const parser: Parser = parse({
      bom: true,
      relax_column_count: true,
      skip_records_with_error: true,
      max_record_size: MAX_LINE_BYTES,
      on_skip: (error) => {
        const line = typeof error?.lines === 'number' ? error.lines : 0;
        lines.skipped(parser.info.records, line);
        report.add({ line, error: describeCsvError(error) });
      },
    });
    const limiter = new ByteLimit(IMPORT_MAX_BYTES);
    body.on('error', (error) => parser.destroy(error));
    limiter.on('error', (error) => parser.destroy(error));
    body.pipe(limiter).pipe(parser);

    const totals = { created: 0, updated: 0 };
    // One batch is written while the next is read: parsing (CPU here) and writing (the database) overlap; batches stay in order.
    let writing: Promise<void> = Promise.resolve();
    const write = (rows: ImportRow[]) => {
      const next = writing.then(async () => {
        const written = await this.writeBatch(rows);
        totals.created += written.created;
        totals.updated += written.updated;
        written.refused.forEach((refusal) => report.add(refusal));
      });
      // Handled here so that a failure while the next batch is read is not an unhandled rejection; it is awaited below.
      next.catch(() => undefined);
      return next;
    };
    let header: CsvHeader | null = null;
    let batch: ImportRow[] = [];
    try {
      for await (const records of readInBatches<string[]>(parser)) {
        for (const record of records) {
          const line = lines.next(record);
          // An empty line, or one of empty fields only: nothing to import (csv-parse's skip options would hide it from the count).
          if (record.every((cell) => cell === '')) continue;
          if (header === null) {
            const read = readHeader(record);
            if (typeof read === 'string') throw new BadRequestException(read);
            header = read;
            continue;
          }
          const row = readRow(header, record, line);
          if ('error' in row) report.add(row);
          else batch.push(row);
          if (batch.length >= BATCH_LINES) {
            await writing;
            writing = write(batch);
            batch = [];
          }
        }
      }
      if (header === null) throw new BadRequestException('The file is empty: it needs a header row such as phone,name,email,tags');
      await writing;
      await write(batch);
    } catch (error) {
      // Malformed records are skipped and reported above; a parser error that still ends the parse is the body's fault too.
      if (error instanceof CsvError) throw new BadRequestException(`The body is not CSV the import can read: ${describeCsvError(error)}`);
      throw error;
    } finally {
      await writing.catch(() => undefined);
      // Whatever is left unread is read and dropped, so the answer can still be written on this connection.
      body.unpipe(limiter);
      body.resume();
    }
    return { ...totals, refused: report.listed() };
  }

  /** One batch in one transaction, tried again if a concurrent writer took one of its new phones meanwhile. */
  private async writeBatch(rows: ImportRow[]): Promise<ImportResult> {
    if (rows.length === 0) return { created: 0, updated: 0, refused: [] };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.database.transaction((db) => this.writeLines(db, rows));
      } catch (error) {
        // A phone or user id given to a contact by another writer meanwhile: the batch runs again and finds it.
        const taken = error instanceof PhoneTakenMeanwhile || isUniqueViolation(error);
        if (!taken || attempt >= BATCH_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * The contacts of the batch's phones and user ids locked (phone order), the lines applied to them
   * in order in memory (a contact on several lines: each line to the result of the one before),
   * then the new contacts inserted and the changed ones updated in one statement each, with one
   * event for each contact created or changed (its state after the batch). A line's contact is the
   * one with its phone, else the one with its user id; a user id another contact has refuses the line.
   */
  private async writeLines(db: Db, rows: ImportRow[]): Promise<ImportResult> {
    const written: ImportResult = { created: 0, updated: 0, refused: [] };
    const locked = await this.contacts.lockMany(db, {
      phones: [...new Set(rows.flatMap((row) => (row.phone === null ? [] : [row.phone])))],
      userIds: [...new Set(rows.flatMap((row) => (row.wa_user_id === null ? [] : [row.wa_user_id])))],
    });
    type Entry = { before: ContactRow | null; after: ContactRow | null };
    const entries: Entry[] = locked.map((contact) => ({ before: contact, after: contact }));
    const byPhone = new Map<string, Entry>();
    const byUserId = new Map<string, Entry>();
    const index = (entry: Entry) => {
      if (entry.after?.phone) byPhone.set(entry.after.phone, entry);
      if (entry.after?.wa_user_id) byUserId.set(entry.after.wa_user_id, entry);
    };
    entries.forEach(index);
    const now = new Date();
    for (const row of rows) {
      let contact =
        (row.phone === null ? undefined : byPhone.get(row.phone)) ?? (row.wa_user_id === null ? undefined : byUserId.get(row.wa_user_id));
      const holder = row.wa_user_id === null ? undefined : byUserId.get(row.wa_user_id);
      if (holder !== undefined && holder !== contact) {
        written.refused.push({ line: row.line, error: `wa_user_id ${row.wa_user_id} is another contact's` });
        continue;
      }
      // Found by its user id with another phone: a number change is the API's (PATCH), which knows about blocks; a file only adds a missing one.
      if (row.phone !== null && contact?.after?.phone && contact.after.phone !== row.phone) {
        written.refused.push({
          line: row.line,
          error: `wa_user_id ${row.wa_user_id} is the contact with the phone ${contact.after.phone}`,
        });
        continue;
      }
      if (!contact) entries.push((contact = { before: null, after: null }));
      const applied = applyRow(contact.after, row, now);
      const attributes = Object.keys(applied.attributes).length;
      if (attributes > MAX_ATTRIBUTES) {
        written.refused.push({
          line: row.line,
          error: `The contact would have ${attributes} attributes; a contact has at most ${MAX_ATTRIBUTES}`,
        });
        continue;
      }
      if (contact.after === null) written.created += 1;
      else written.updated += 1;
      contact.after = applied;
      index(contact);
    }
    const created: ContactRow[] = [];
    const changed: ContactRow[] = [];
    for (const { before, after } of entries) {
      if (after === null) continue;
      if (before === null) created.push(after);
      else if (differs(before, after)) changed.push(after);
    }
    // In phone order too: two imports inserting the same new phones wait for each other in one order, never in a circle.
    created.sort((a, b) => ((a.phone ?? '') + (a.wa_user_id ?? '') < (b.phone ?? '') + (b.wa_user_id ?? '') ? -1 : 1));
    const inserted = await this.contacts.insertManyUnlessTaken(db, created);
    if (inserted !== created.length) throw new PhoneTakenMeanwhile();
    await this.contacts.updateMany(db, changed);
    const eventOf = (contact: ContactRow) => ContactEvent.of(ContactResponse.of(contact));
    await this.events.recordMany(db, 'contact.created', created.map(eventOf));
    await this.events.recordMany(db, 'contact.updated', changed.map(eventOf));
    return written;
  }
}

/** A line applied to the contact with its phone (or to a new one): the fields the file has replace the contact's. */
function applyRow(contact: ContactRow | null, row: ImportRow, now: Date): ContactRow {
  const base: ContactRow = contact ?? {
    id: newUuid(now.getTime()),
    phone: row.phone,
    wa_user_id: null,
    username: null,
    name: null,
    email: null,
    tags: [],
    attributes: {},
    blocked_at: null,
    opted_out_at: null,
    created_at: now,
    updated_at: now,
  };
  const attributes = { ...base.attributes };
  for (const key of row.clearAttributes) delete attributes[key];
  Object.assign(attributes, row.setAttributes);
  return {
    ...base,
    // A line found by its user id may bring the contact's phone; an empty cell leaves either as it is.
    phone: row.phone ?? base.phone,
    wa_user_id: row.wa_user_id ?? base.wa_user_id,
    name: row.name === undefined ? base.name : row.name,
    email: row.email === undefined ? base.email : row.email,
    tags: row.tags ?? base.tags,
    attributes,
    updated_at: now,
  };
}

function differs(before: ContactRow, after: ContactRow): boolean {
  return (
    before.phone !== after.phone ||
    before.wa_user_id !== after.wa_user_id ||
    before.name !== after.name ||
    before.email !== after.email ||
    JSON.stringify(before.tags) !== JSON.stringify(after.tags) ||
    !sameAttributes(before.attributes, after.attributes)
  );
}

function describeCsvError(error: CsvError | undefined): string {
  switch (error?.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'A quoted field is not closed before the end of the file';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return 'A quoted field is followed by something else than a comma or the end of the line';
    case 'CSV_MAX_RECORD_SIZE':
      return `The line is longer than ${MAX_LINE_BYTES / 1024} KiB`;
    default:
      return 'The line is not valid CSV';
  }
}

/**
 * The refusals of an import in constant memory, however many lines are refused: the first
 * LISTED_REFUSALS by line (and the one after them, to say where the unlisted begin), and a count.
 * Refusals arrive out of line order (the parser reports a line as soon as it reads it, which may
 * be ahead of the batch whose write refuses an earlier line), so the kept ones are a sorted array
 * the size of the answer; a line past all of them, the common case, is only counted.
 */
class RefusalReport {
  /** The refusals with the lowest lines, sorted by line; at most LISTED_REFUSALS + 1. */
  private readonly lowest: Refusal[] = [];
  private count = 0;
  /** The last line the parser refused: it reports a malformed quote's line twice, one after the other. */
  private lastLine = -1;

  /** A refusal; a line refused twice in a row is counted once. */
  add(refusal: Refusal): void {
    if (refusal.line === this.lastLine) return;
    this.lastLine = refusal.line;
    this.count += 1;
    const lowest = this.lowest;
    if (lowest.length > LISTED_REFUSALS && refusal.line >= lowest[lowest.length - 1].line) return;
    let at = lowest.length;
    while (at > 0 && lowest[at - 1].line > refusal.line) at -= 1;
    lowest.splice(at, 0, refusal);
    if (lowest.length > LISTED_REFUSALS + 1) lowest.pop();
  }

  listed(): Refusal[] {
    if (this.count <= LISTED_REFUSALS) return this.lowest;
    const more = this.count - LISTED_REFUSALS - 1;
    return [
      ...this.lowest.slice(0, LISTED_REFUSALS),
      {
        line: this.lowest[LISTED_REFUSALS].line,
        error: `This line was refused too, and ${more} more line${more === 1 ? '' : 's'} after it; only the first ${LISTED_REFUSALS} refusals are listed`,
      },
    ];
  }
}

/**
 * Passes bytes on until `max` of them went through, then fails with a 413; in pieces of at most
 * PIECE_BYTES, as a socket delivers them. The parser emits every record of a chunk at once into
 * its readable buffer, whose reads cost in proportion to its length: a 10 MiB body of 5 million
 * lines in one chunk (as an in-process request delivers it) took 19 s, in 64 KiB pieces 4 s.
 */
const PIECE_BYTES = 64 * 1024;

class ByteLimit extends Transform {
  private seen = 0;

  constructor(private readonly max: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.max) {
      done(new PayloadTooLargeException(`The CSV body is larger than ${this.max / 1024 / 1024} MiB`));
      return;
    }
    for (let at = 0; at < chunk.length; at += PIECE_BYTES) this.push(chunk.subarray(at, at + PIECE_BYTES));
    done();
  }
}
