import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { newUuid } from '../common/ids';
import { mapPage, Page, PageQuery } from '../common/pagination';
import { Database } from '../database/database';
import { isUniqueViolation } from '../database/errors';
import type { Db } from '../database/sql';
import { CreateLabelDto, LabelResponse, UpdateLabelDto } from './label.dto';
import { DEFAULT_LABEL_COLOR, type LabelRow } from './label.entity';
import { LabelRepository } from './label.repository';

const DUPLICATE_NAME = 'A label with this name already exists';

/** The catalogue of labels. Which conversation has which label is the conversations module's (`conversation_labels`). */
@Injectable()
export class LabelsService {
  constructor(
    private readonly database: Database,
    private readonly labels: LabelRepository,
  ) {}

  async list(query: PageQuery): Promise<Page<LabelResponse>> {
    return mapPage(await this.labels.list(this.database.db, query), LabelResponse.of);
  }

  async create(dto: CreateLabelDto): Promise<LabelResponse> {
    const now = new Date();
    const label: LabelRow = {
      id: newUuid(now.getTime()),
      name: dto.name,
      color: dto.color ?? DEFAULT_LABEL_COLOR,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.labels.insert(this.database.db, label);
    } catch (error) {
      if (isUniqueViolation(error, 'labels_name_key')) throw new ConflictException(DUPLICATE_NAME);
      throw error;
    }
    return LabelResponse.of(label);
  }

  /** A new name shows on every conversation with the label at once: they refer to it by id. */
  async update(id: string, dto: UpdateLabelDto): Promise<LabelResponse> {
    if (dto.name === undefined && dto.color === undefined) throw new BadRequestException('Body must contain name or color');
    try {
      return await this.database.transactionRetryingDeadlocks(async (db) => {
        // The label first, then (its names' trigger) its conversations, by id: the order of every change
        // of a conversation's labels (docs/architecture.md, the order of locks).
        const label = await this.labels.find(db, id, 'update');
        if (!label) throw new NotFoundException('Label not found');
        if ((dto.name ?? label.name) === label.name && (dto.color ?? label.color) === label.color) return LabelResponse.of(label);
        Object.assign(label, { name: dto.name ?? label.name, color: dto.color ?? label.color, updated_at: new Date() });
        await this.labels.update(db, label);
        return LabelResponse.of(label);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'labels_name_key')) throw new ConflictException(DUPLICATE_NAME);
      throw error;
    }
  }

  /** Deletes the label; it leaves every conversation that had it in the same statement (the join rows cascade). */
  async remove(id: string): Promise<void> {
    await this.database.transactionRetryingDeadlocks(async (db) => {
      if (!(await this.labels.find(db, id, 'delete'))) throw new NotFoundException('Label not found');
      await this.labels.delete(db, id);
    });
  }

  /**
   * The labels these names name (case-insensitively), in the caller's transaction, share-locked
   * until it ends so none of them is deleted before the caller's use of them commits.
   */
  findByNames(db: Db, names: string[]): Promise<LabelRow[]> {
    return names.length === 0 ? Promise.resolve([]) : this.labels.findByNamesForShare(db, names);
  }
}
