import { AuditLogService } from '../audit/audit-log.service';
import { Injectable, UnprocessableEntityException } from '@nestjs/common';
import { parsePublicId, toPublicId } from '../common/ids';
import { ContactResponse } from '../contacts/contact.dto';
import { ContactsService } from '../contacts/contacts.service';
import { ConversationsService } from '../conversations/conversations.service';
import { Database } from '../database/database';
import type { UserRow } from '../users/user.entity';

/**
 * Merging two contacts (the same customer known under two phones) touches two modules' tables:
 * contacts and conversations. Each module writes its own, and this one above both orders the
 * steps in one transaction: the contacts locked and combined, the conversations merged, the
 * other contact deleted.
 *
 * Locks: both contacts first (in phone order, as the CSV import locks them), then their
 * conversations, the order the channel webhook takes too (a contact, then its conversation). A
 * deadlock with a webhook body holding several customers is still possible; the database breaks
 * it and the merge runs again.
 */
@Injectable()
export class ContactMergeService {
  constructor(
    private readonly database: Database,
    private readonly contacts: ContactsService,
    private readonly conversations: ConversationsService,
    private readonly audit: AuditLogService,
  ) {}

  async merge(intoId: string, from: string, actor: UserRow): Promise<ContactResponse> {
    const fromId = parsePublicId('ct', from);
    if (fromId === null) throw new UnprocessableEntityException('from does not name a contact');
    return this.database.transactionRetryingDeadlocks(async (db) => {
      const merge = await this.contacts.mergeFields(db, intoId, fromId);
      await this.conversations.mergeCustomerThreads(db, intoId, fromId, actor);
      await this.audit.record(db, 'contacts.merged', { target: toPublicId('ct', intoId), details: { from: toPublicId('ct', fromId) } });
      return this.contacts.completeMerge(db, merge);
    });
  }
}
