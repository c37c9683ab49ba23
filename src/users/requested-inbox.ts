import { BadRequestException, NotFoundException } from '@nestjs/common';
import { parsePublicId } from '../common/ids';
import { seesInbox, type UserRow } from './user.entity';

/**
 * The one inbox (uuid) a request keeps to with `inbox_id`, or undefined for every inbox the caller
 * sees. A malformed id is a 400 (the routes with a DTO refuse it there first; the event stream has
 * none); an inbox they do not see is a 404, as on every other route, rather than an empty answer:
 * the lists, counts, search, exports, reports and the event stream ask here.
 */
export function requestedInboxOf(publicId: string | undefined, caller: Pick<UserRow, 'role' | 'inbox_ids'>): string | undefined {
  if (publicId === undefined) return undefined;
  const inboxId = parsePublicId('inb', publicId);
  if (inboxId === null) throw new BadRequestException('inbox_id must be an inbox id (inb_…)');
  if (!seesInbox(caller, inboxId)) throw new NotFoundException('Inbox not found');
  return inboxId;
}
