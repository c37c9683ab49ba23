import { isEmail } from 'class-validator';
import { toE164 } from '../common/phone';
import { findUnstorable } from '../common/storable-text';
import {
  ATTRIBUTE_VALUE_RULE,
  attributeKeyProblem,
  CONTACT_COLUMNS,
  isAttributeValue,
  type AttributeValue,
  type ContactAttributes,
} from './contact-attributes';
import { MAX_TAG_LENGTH, MAX_TAGS } from './contact.dto';
import { WA_USER_ID_PATTERN } from './channel-customer';
import type { ContactRow } from './contact.entity';

/**
 * How contacts are written to and read from CSV: the columns `phone,name,email,tags,wa_user_id`,
 * tags joined with `;`, then one column per attribute key. Pure functions; the import and export services
 * stream rows through them.
 *
 * A cell that a spreadsheet would take for a formula or a number is kept as text with a leading
 * apostrophe, as spreadsheets themselves do: on export, a text cell starting with `'`, `=`, `+`,
 * `-`, `@`, a tab or a carriage return, and an attribute string that reads as a number or as
 * true/false, gets one; on import, one leading apostrophe is removed and the rest is text. So an
 * exported file opened in a spreadsheet runs nothing, and imported again gives back exactly the
 * contacts it came from (attribute types included).
 */

export const MAX_NAME_LENGTH = 200;
export const MAX_EMAIL_LENGTH = 254;
export const TAG_SEPARATOR = ';';

const TEXT_MARKER = "'";
const NEEDS_MARKER = /^['=+\-@\t\r]/;

/** Where each column of an import file is. */
export interface CsvHeader {
  phone: number | null;
  wa_user_id: number | null;
  name: number | null;
  email: number | null;
  tags: number | null;
  attributes: { key: string; index: number }[];
  columns: number;
}

/** What one line of an import sets: only the columns the file has (absent fields are left as they are). */
export interface ImportRow {
  line: number;
  /** At least one of the two: the line's contact is the one with this phone, else the one with this user id. */
  phone: string | null;
  wa_user_id: string | null;
  name?: string | null;
  email?: string | null;
  tags?: string[];
  /** The attribute columns with a value on this line. */
  setAttributes: ContactAttributes;
  /** The attribute columns left empty on this line: the contact loses them. */
  clearAttributes: string[];
}

export interface Refusal {
  line: number;
  error: string;
}

/** The header row read into column positions, or why it cannot be one (the whole file is refused). */
export function readHeader(cells: string[]): CsvHeader | string {
  const header: CsvHeader = { phone: null, wa_user_id: null, name: null, email: null, tags: null, attributes: [], columns: cells.length };
  const seen = new Set<string>();
  for (const [index, raw] of cells.entries()) {
    const name = raw.trim();
    if (name === '') return `Column ${index + 1} of the header row has no name`;
    if (findUnstorable(name, 'x') !== null) return `Column ${index + 1} of the header row holds a NUL character`;
    const standard = (CONTACT_COLUMNS as readonly string[]).find((column) => column === name.toLowerCase());
    const id = standard ?? name;
    if (seen.has(id)) return `The header row names the column ${JSON.stringify(name)} twice`;
    seen.add(id);
    if (standard !== undefined) header[standard as (typeof CONTACT_COLUMNS)[number]] = index;
    else {
      const problem = attributeKeyProblem(name);
      if (problem) return `The header row's column ${JSON.stringify(name)}: ${problem}`;
      header.attributes.push({ key: name, index });
    }
  }
  if (header.phone === null && header.wa_user_id === null)
    return 'The header row must have a phone or a wa_user_id column (phone,name,email,tags,wa_user_id, then one column per attribute)';
  return header;
}

/** One line of an import read with its header: what it sets, or why it is refused. */
export function readRow(header: CsvHeader, cells: string[], line: number): ImportRow | Refusal {
  const refuse = (error: string): Refusal => ({ line, error });
  if (cells.length !== header.columns) return refuse(`The line has ${cells.length} fields; the header row has ${header.columns}`);
  const nul = cells.findIndex((cell) => findUnstorable(cell, 'x') !== null);
  if (nul >= 0) return refuse(`Field ${nul + 1} holds a NUL character`);

  const phoneCell = header.phone === null ? '' : textOf(cells[header.phone]);
  const userIdCell = header.wa_user_id === null ? '' : textOf(cells[header.wa_user_id]);
  const phone = phoneCell === '' ? null : toE164(phoneCell);
  if (phoneCell !== '' && phone === null)
    return refuse(`phone ${JSON.stringify(phoneCell.slice(0, 40))} is not a phone number in international format, e.g. +16315551234`);
  if (userIdCell !== '' && !WA_USER_ID_PATTERN.test(userIdCell))
    return refuse(`wa_user_id ${JSON.stringify(userIdCell.slice(0, 40))} is not the channel's user id, e.g. US.13491208655302741918`);
  if (phone === null && userIdCell === '')
    return refuse(header.wa_user_id === null ? 'phone is empty' : 'phone and wa_user_id are both empty');
  const row: ImportRow = { line, phone, wa_user_id: userIdCell || null, setAttributes: {}, clearAttributes: [] };

  if (header.name !== null) {
    const name = textOf(cells[header.name]);
    if (name.length > MAX_NAME_LENGTH) return refuse(`name must be at most ${MAX_NAME_LENGTH} characters`);
    row.name = name || null;
  }
  if (header.email !== null) {
    const email = textOf(cells[header.email]);
    if (email !== '' && (email.length > MAX_EMAIL_LENGTH || !isEmail(email)))
      return refuse(`email ${JSON.stringify(email.slice(0, 60))} must be an e-mail address`);
    row.email = email || null;
  }
  if (header.tags !== null) {
    const tags = [
      ...new Set(
        textOf(cells[header.tags])
          .split(TAG_SEPARATOR)
          .map((tag) => tag.trim())
          .filter(Boolean),
      ),
    ];
    if (tags.length > MAX_TAGS) return refuse(`tags must be at most ${MAX_TAGS}, not ${tags.length}`);
    if (tags.some((tag) => tag.length > MAX_TAG_LENGTH)) return refuse(`tags must each be 1 to ${MAX_TAG_LENGTH} characters long`);
    row.tags = tags;
  }
  for (const { key, index } of header.attributes) {
    const value = attributeValueOf(cells[index]);
    if (value === null) row.clearAttributes.push(key);
    else if (!isAttributeValue(value)) return refuse(`attributes.${key} must be ${ATTRIBUTE_VALUE_RULE}`);
    else row.setAttributes[key] = value;
  }
  return row;
}

/** The header row of an export whose contacts use these attribute keys. */
export function exportHeader(attributeKeys: string[]): string[] {
  return [...CONTACT_COLUMNS, ...attributeKeys];
}

/** A contact as a row of an export with these attribute columns. */
export function exportRow(contact: ContactRow, attributeKeys: string[]): string[] {
  return [
    contact.phone ?? '',
    textCell(contact.name ?? ''),
    textCell(contact.email ?? ''),
    textCell(contact.tags.join(TAG_SEPARATOR)),
    contact.wa_user_id ?? '',
    ...attributeKeys.map((key) => (Object.hasOwn(contact.attributes, key) ? attributeCell(contact.attributes[key]) : '')),
  ];
}

/** A cell of a contact field as text: trimmed, one leading apostrophe removed. */
function textOf(cell: string): string {
  const trimmed = cell.trim();
  return trimmed.startsWith(TEXT_MARKER) ? trimmed.slice(1) : trimmed;
}

/** A text cell a spreadsheet will not take for a formula (see above). */
export function textCell(text: string): string {
  return NEEDS_MARKER.test(text) ? TEXT_MARKER + text : text;
}

/** An attribute cell as its value (taken as written, not trimmed), or null when empty. */
function attributeValueOf(cell: string): AttributeValue | null {
  if (cell === '') return null;
  if (cell.startsWith(TEXT_MARKER)) return cell.slice(1) || null;
  return typedValueOf(cell) ?? cell;
}

function attributeCell(value: AttributeValue): string {
  if (typeof value !== 'string') return String(value);
  return NEEDS_MARKER.test(value) || typedValueOf(value) !== null ? TEXT_MARKER + value : value;
}

/** The number or boolean a cell spells exactly as JavaScript writes it (`42`, `-1.5`, `1e+21`, `true`), or null for any other text (`007`, `1.0`, ` 42`). */
function typedValueOf(cell: string): number | boolean | null {
  if (cell === 'true') return true;
  if (cell === 'false') return false;
  const number = Number(cell);
  return Number.isFinite(number) && String(number) === cell ? number : null;
}

/**
 * The line each record of a CSV body ends on, counted from the records themselves rather than
 * asked of csv-parse: its `info` option builds an object per record, which was 70% of the parse
 * (a 10 MiB file of 5 million refused lines took over a minute). A record ends one line after the
 * one before, plus the line breaks (as csv-parse counts them) inside its quoted cells. A record the parser skips as malformed
 * is reported with its line and the number of records emitted before it (`skipped`), and the count
 * starts again from that line once the records before it have been counted.
 */
export class LineCounter {
  private line = 0;
  private counted = 0;
  /** Skips the parser reported ahead of the records counted so far, oldest first. */
  private readonly skips: { after: number; line: number }[] = [];

  skipped(afterRecords: number, line: number): void {
    this.skips.push({ after: afterRecords, line });
  }

  /** The line the next record, in the parser's order, ends on. */
  next(record: readonly string[]): number {
    while (this.skips.length > 0 && this.skips[0].after <= this.counted) this.line = this.skips.shift()!.line;
    this.counted += 1;
    this.line += 1;
    // csv-parse counts a carriage return inside a quoted cell as a line too, even before a line feed.
    for (const cell of record) {
      for (let at = 0; at < cell.length; at++) {
        const code = cell.charCodeAt(at);
        if (code === 10 || code === 13) this.line += 1;
      }
    }
    return this.line;
  }
}
