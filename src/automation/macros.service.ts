import { BadRequestException, ForbiddenException, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { newUuid } from '../common/ids';
import type { Page } from '../common/pagination';
import { ConversationResponse } from '../conversations/conversation.dto';
import { ConversationsService } from '../conversations/conversations.service';
import { Database } from '../database/database';
import type { Db } from '../database/sql';
import type { UserRow } from '../users/user.entity';
import { ActionsService } from './actions.service';
import type { MacroRow } from './macro.entity';
import { CreateMacroDto, MacroResponse, MacroRunResponse, UpdateMacroDto } from './macro.dto';
import { MacroRepository } from './macro.repository';

/** The team's macros, and each user's own: as many as anyone picks from in a menu. */
const MAX_TEAM_MACROS = 200;
const MAX_PERSONAL_MACROS = 100;

/**
 * Macros: saved actions (the rules' actions) an agent runs on one conversation at once. A
 * personal macro is its owner's alone (others get a 404); a team macro is everyone's to run and
 * the admins' to change. A run acts as the agent who runs it: their replies, their notes, their
 * close (which sends the satisfaction survey), each change recorded as if made by hand, all or
 * nothing in one transaction.
 */
@Injectable()
export class MacrosService {
  constructor(
    private readonly database: Database,
    private readonly macros: MacroRepository,
    private readonly actions: ActionsService,
    private readonly conversations: ConversationsService,
  ) {}

  async list(caller: UserRow): Promise<Page<MacroResponse>> {
    return { data: (await this.macros.listFor(this.database.db, caller.id)).map((row) => MacroResponse.of(row)), next_cursor: null };
  }

  async create(dto: CreateMacroDto, caller: UserRow): Promise<MacroResponse> {
    assertMayShare(dto.visibility, caller);
    return this.database.transaction(async (db) => {
      const ownerId = dto.visibility === 'team' ? null : caller.id;
      await this.assertRoomFor(db, ownerId);
      await this.actions.assertNamesExist(db, dto.actions);
      const now = new Date();
      const macro: MacroRow = {
        id: newUuid(now.getTime()),
        name: dto.name,
        visibility: dto.visibility,
        owner_id: ownerId,
        actions: dto.actions,
        created_at: now,
        updated_at: now,
      };
      await this.macros.insert(db, macro);
      return MacroResponse.of(macro);
    });
  }

  async update(id: string, dto: UpdateMacroDto, caller: UserRow): Promise<MacroResponse> {
    if (dto.name === undefined && dto.visibility === undefined && dto.actions === undefined)
      throw new BadRequestException('Body must contain name, visibility or actions');
    return this.database.transaction(async (db) => {
      const macro = await this.changeable(db, id, caller);
      if (dto.visibility !== undefined && dto.visibility !== macro.visibility) {
        assertMayShare('team', caller);
        await this.assertRoomFor(db, dto.visibility === 'team' ? null : caller.id);
      }
      if (dto.actions) await this.actions.assertNamesExist(db, dto.actions);
      const visibility = dto.visibility ?? macro.visibility;
      const changed: MacroRow = {
        ...macro,
        name: dto.name ?? macro.name,
        visibility,
        // Taken back from the team: it becomes the admin's who took it.
        owner_id: visibility === 'team' ? null : (macro.owner_id ?? caller.id),
        actions: dto.actions ?? macro.actions,
        updated_at: new Date(),
      };
      await this.macros.update(db, changed);
      return MacroResponse.of(changed);
    });
  }

  async remove(id: string, caller: UserRow): Promise<void> {
    await this.database.transaction(async (db) => {
      await this.changeable(db, id, caller);
      await this.macros.remove(db, id);
    });
  }

  /** Runs the macro on the conversation (which the caller sees: the route's guard checked it) as the caller. */
  async run(conversationId: string, macroId: string, caller: UserRow): Promise<MacroRunResponse> {
    const macro = await this.visible(this.database.db, macroId, caller);
    const conversation = await this.conversations.findWithCustomer(this.database.db, conversationId);
    const templateProblem = await this.actions.templateProblem(macro.actions, conversation.inbox_id);
    if (templateProblem) throw new UnprocessableEntityException(`The macro's template cannot be sent: ${templateProblem}`);
    // Its labels' locks can meet a label's rename in a cycle (docs/architecture.md, the order of locks).
    return this.database.transactionRetryingDeadlocks(async (db) => {
      const missing = await this.actions.missingReference(db, macro.actions);
      if (missing) throw new UnprocessableEntityException(`The macro cannot run: ${missing}`);
      const outcomes = await this.actions.perform(db, conversationId, macro.actions, { kind: 'macro', macroId: macro.id, agent: caller });
      return {
        conversation: ConversationResponse.of(await this.conversations.findWithCustomer(db, conversationId, caller.id)),
        actions: outcomes,
      };
    });
  }

  /** A 422 when the owner (null: the team) has as many macros as allowed. */
  private async assertRoomFor(db: Db, ownerId: string | null): Promise<void> {
    const max = ownerId === null ? MAX_TEAM_MACROS : MAX_PERSONAL_MACROS;
    if ((await this.macros.countOwnedBy(db, ownerId)) >= max)
      throw new UnprocessableEntityException(`There are ${max} ${ownerId === null ? 'team' : 'personal'} macros already`);
  }

  /** A macro the caller may run: the team's, or their own. Anyone else's is a 404. */
  private async visible(db: Db, id: string, caller: UserRow, lock = false): Promise<MacroRow> {
    const macro = await this.macros.find(db, id, lock);
    if (!macro || (macro.owner_id !== null && macro.owner_id !== caller.id)) throw new NotFoundException('Macro not found');
    return macro;
  }

  /** A macro the caller may change: their own, or (admins) the team's. */
  private async changeable(db: Db, id: string, caller: UserRow): Promise<MacroRow> {
    const macro = await this.visible(db, id, caller, true);
    if (macro.owner_id === null) assertMayShare('team', caller);
    return macro;
  }
}

function assertMayShare(visibility: 'personal' | 'team', caller: UserRow): void {
  if (visibility === 'team' && caller.role !== 'admin') throw new ForbiddenException('Only admins manage team macros');
}
