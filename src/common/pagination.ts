import { BadRequestException } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { IsOmittable } from './omittable';

/** `limit` and `cursor`, accepted by every list endpoint. */
export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 25 })
  @IsOmittable()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 25;

  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOmittable()
  @IsString()
  cursor?: string;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** The position of the last row of a page: the values of the ordering columns, id last. */
export type CursorKey = (string | number)[];

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The kind of each value in a cursor key, checked on decoding so a tampered cursor is a 400, never a SQL cast error. */
export type CursorKind = 'timestamp' | 'uuid' | 'string';

const KIND_CHECK: Record<CursorKind, (value: unknown) => boolean> = {
  // As toISOString wrote it, so a day the calendar has not (`2024-02-30`, which Date rolls over) is
  // refused; from the year 0001, the first PostgreSQL's timestamps have.
  timestamp: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value) || value.startsWith('0000')) return false;
    const at = new Date(value);
    return !Number.isNaN(at.getTime()) && at.toISOString() === value;
  },
  uuid: (value) => typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value),
  string: (value) => typeof value === 'string',
};

/** The key inside a cursor made by `encodeCursor` with values of these kinds, or a 400. */
export function decodeCursor(cursor: string, kinds: CursorKind[]): CursorKey {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === kinds.length && kinds.every((kind, i) => KIND_CHECK[kind](key[i]))) {
      return key as CursorKey;
    }
  } catch {
    // falls through to the same answer as a well-formed but foreign cursor
  }
  throw new BadRequestException('cursor is not a cursor returned by this list');
}

/** The same page with each row presented as the API answers it. */
export function mapPage<Row, Item>(page: Page<Row>, present: (row: Row) => Item): Page<Item> {
  return { data: page.data.map(present), next_cursor: page.next_cursor };
}

/** For the OpenAPI document: a page of `item`. */
export function PageOf(item: new () => object, name: string): new () => object {
  class PageDto {
    @ApiProperty({ type: [item] })
    data!: object[];

    @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor to get the next page; null on the last page' })
    next_cursor!: string | null;
  }
  Object.defineProperty(PageDto, 'name', { value: name });
  return PageDto;
}
