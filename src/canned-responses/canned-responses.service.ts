import { BadRequestException, ConflictException, ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import { interactiveBodyText, interactiveHeaderUpload } from '../channel/interactive-message';
import { newUuid } from '../common/ids';
import { mapPage, type Page } from '../common/pagination';
import { Database } from '../database/database';
import { isUniqueViolation } from '../database/errors';
import type { Db } from '../database/sql';
import type { UserRow } from '../users/user.entity';
import { CannedResponseResponse, CreateCannedResponseDto, ListCannedResponsesQuery, UpdateCannedResponseDto } from './canned-response.dto';
import type { CannedResponseRow } from './canned-response.entity';
import { CannedResponseRepository } from './canned-response.repository';

const DUPLICATE_SHORTCUT = 'A canned response with this shortcut already exists';
const INTERACTIVE_TEXT = 'text goes without interactive: the text of an interactive canned response is its body (interactive.body.text)';

/**
 * The text of an interactive canned response: its body. Its media header must be a link: an upload
 * is deleted unless a message sends it in time, and a customer's media is not every agent's.
 */
function bodyOf(interactive: Record<string, unknown>): string {
  const upload = interactiveHeaderUpload(interactive);
  if (upload)
    throw new BadRequestException(
      `interactive.header.${upload.mediaType}.media_id: the media header of a canned response must be a link (an https URL)`,
    );
  return interactiveBodyText(interactive);
}

/**
 * The team's canned responses. Every user reads and writes new ones; a canned response is changed
 * or deleted by its author or by an admin (one whose author was deleted, by admins only).
 */
@Injectable()
export class CannedResponsesService {
  constructor(
    private readonly database: Database,
    private readonly cannedResponses: CannedResponseRepository,
  ) {}

  async list(query: ListCannedResponsesQuery): Promise<Page<CannedResponseResponse>> {
    return mapPage(await this.cannedResponses.list(this.database.db, { q: query.q }, query), CannedResponseResponse.of);
  }

  async get(id: string): Promise<CannedResponseResponse> {
    const row = await this.cannedResponses.find(this.database.db, id);
    if (!row) throw new NotFoundException('Canned response not found');
    return CannedResponseResponse.of(row);
  }

  async create(dto: CreateCannedResponseDto, author: UserRow): Promise<CannedResponseResponse> {
    const now = new Date();
    if (dto.interactive !== undefined && dto.text !== undefined) throw new BadRequestException(INTERACTIVE_TEXT);
    const row: CannedResponseRow = {
      id: newUuid(now.getTime()),
      shortcut: dto.shortcut,
      text: dto.interactive === undefined ? dto.text! : bodyOf(dto.interactive),
      interactive: dto.interactive ?? null,
      created_by: author.id,
      created_at: now,
      updated_at: now,
    };
    await this.refuseDuplicate(() => this.cannedResponses.insert(this.database.db, row));
    return CannedResponseResponse.of(row);
  }

  async update(id: string, dto: UpdateCannedResponseDto, actor: UserRow): Promise<CannedResponseResponse> {
    if (dto.shortcut === undefined && dto.text === undefined && dto.interactive === undefined)
      throw new BadRequestException('Body must set shortcut, text or interactive');
    if (dto.interactive && dto.text !== undefined) throw new BadRequestException(INTERACTIVE_TEXT);
    return this.refuseDuplicate(() =>
      this.database.transaction(async (db) => {
        const row = await this.lockWritable(db, id, actor);
        const interactive = dto.interactive === undefined ? row.interactive : dto.interactive;
        if (interactive !== null && dto.interactive === undefined && dto.text !== undefined)
          throw new BadRequestException('This canned response is interactive: its text is interactive.body.text, changed with interactive');
        const text = interactive !== null ? bodyOf(interactive) : (dto.text ?? row.text);
        const changed = { ...row, shortcut: dto.shortcut ?? row.shortcut, text, interactive };
        if (
          changed.shortcut === row.shortcut &&
          changed.text === row.text &&
          JSON.stringify(interactive) === JSON.stringify(row.interactive)
        )
          return CannedResponseResponse.of(row);
        changed.updated_at = new Date();
        await this.cannedResponses.update(db, changed);
        return CannedResponseResponse.of(changed);
      }),
    );
  }

  async remove(id: string, actor: UserRow): Promise<void> {
    await this.database.transaction(async (db) => {
      await this.lockWritable(db, id, actor);
      await this.cannedResponses.delete(db, id);
    });
  }

  /** The row, locked; 404 when unknown, 403 when the actor is neither its author nor an admin. */
  private async lockWritable(db: Db, id: string, actor: UserRow): Promise<CannedResponseRow> {
    const row = await this.cannedResponses.find(db, id, true);
    if (!row) throw new NotFoundException('Canned response not found');
    if (actor.role !== 'admin' && row.created_by !== actor.id)
      throw new ForbiddenException('Only the author of a canned response or an admin may change or delete it');
    return row;
  }

  private async refuseDuplicate<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error, 'canned_responses_shortcut_key')) throw new ConflictException(DUPLICATE_SHORTCUT);
      throw error;
    }
  }
}
