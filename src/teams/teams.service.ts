import { BadRequestException, ConflictException, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { AuditLogService } from '../audit/audit-log.service';
import { newUuid, parsePublicId, toPublicId } from '../common/ids';
import { mapPage, type Page, type PageQuery } from '../common/pagination';
import { Database } from '../database/database';
import { isForeignKeyViolation, isUniqueViolation } from '../database/errors';
import type { Db } from '../database/sql';
import { CreateTeamDto, TeamResponse, UpdateTeamDto } from './team.dto';
import type { TeamRow } from './team.entity';
import { TeamRepository } from './team.repository';

const DUPLICATE_NAME = 'A team with this name already exists';

const uuidsOf = (prefix: 'user' | 'inb', ids: string[]) => [...new Set(ids.map((id) => parsePublicId(prefix, id)!))].sort();

/** A 422 naming the list whose id names nothing, for a foreign key refused on a team's members or inboxes. */
function refusedReference(error: unknown): never {
  const constraint = error instanceof QueryFailedError ? (error.driverError as { constraint?: string }).constraint : undefined;
  throw new UnprocessableEntityException(
    constraint?.startsWith('team_members') ? 'member_ids names a user that does not exist' : 'inbox_ids names an inbox that does not exist',
  );
}

/** The teams: who belongs to which, and the inboxes each works. Admins manage them; everyone reads them. */
@Injectable()
export class TeamsService {
  constructor(
    private readonly database: Database,
    private readonly teams: TeamRepository,
    private readonly audit: AuditLogService,
  ) {}

  async list(query: PageQuery): Promise<Page<TeamResponse>> {
    return mapPage(await this.teams.list(this.database.db, query), TeamResponse.of);
  }

  async create(dto: CreateTeamDto): Promise<TeamResponse> {
    const now = new Date();
    const team: TeamRow = {
      id: newUuid(now.getTime()),
      name: dto.name,
      description: dto.description ?? '',
      member_ids: uuidsOf('user', dto.member_ids ?? []),
      inbox_ids: uuidsOf('inb', dto.inbox_ids ?? []),
      created_at: now,
      updated_at: now,
    };
    return this.write(async (db) => {
      await this.teams.insert(db, team);
      await this.teams.setMembers(db, team.id, team.member_ids);
      await this.teams.setInboxes(db, team.id, team.inbox_ids);
      await this.audit.record(db, 'team.created', { target: toPublicId('team', team.id), details: { name: team.name } });
      return TeamResponse.of(team);
    });
  }

  async update(id: string, dto: UpdateTeamDto): Promise<TeamResponse> {
    if (dto.name === undefined && dto.description === undefined && dto.member_ids === undefined && dto.inbox_ids === undefined)
      throw new BadRequestException('Body must contain name, description, member_ids or inbox_ids');
    return this.write(async (db) => {
      const team = await this.teams.find(db, id, 'change');
      if (!team) throw new NotFoundException('Team not found');
      const changed = {
        ...team,
        name: dto.name ?? team.name,
        description: dto.description ?? team.description,
        member_ids: dto.member_ids === undefined ? team.member_ids : uuidsOf('user', dto.member_ids),
        inbox_ids: dto.inbox_ids === undefined ? team.inbox_ids : uuidsOf('inb', dto.inbox_ids),
        updated_at: new Date(),
      };
      const fields = (['name', 'description', 'member_ids', 'inbox_ids'] as const).filter(
        (key) => JSON.stringify(team[key]) !== JSON.stringify(changed[key]),
      );
      if (fields.length === 0) return TeamResponse.of(team);
      await this.teams.update(db, changed);
      if (fields.includes('member_ids')) await this.teams.setMembers(db, id, changed.member_ids);
      if (fields.includes('inbox_ids')) await this.teams.setInboxes(db, id, changed.inbox_ids);
      await this.audit.record(db, 'team.updated', { target: toPublicId('team', id), details: { changed: fields } });
      return TeamResponse.of(changed);
    });
  }

  /** Conversations handed to the team, and inboxes assigning through it, keep going without one. */
  async remove(id: string): Promise<void> {
    await this.database.transaction(async (db) => {
      const team = await this.teams.find(db, id, 'delete');
      if (!team) throw new NotFoundException('Team not found');
      await this.teams.delete(db, id);
      await this.audit.record(db, 'team.deleted', { target: toPublicId('team', id), details: { name: team.name } });
    });
  }

  /** The team, held in the caller's transaction so it is not deleted before the caller's use of it commits; null when there is none. */
  holdForUse(db: Db, id: string): Promise<TeamRow | null> {
    return this.teams.find(db, id, 'use');
  }

  private async write<T>(work: (db: Db) => Promise<T>): Promise<T> {
    try {
      return await this.database.transaction(work);
    } catch (error) {
      if (isUniqueViolation(error, 'teams_name_key')) throw new ConflictException(DUPLICATE_NAME);
      if (isForeignKeyViolation(error)) refusedReference(error);
      throw error;
    }
  }
}
