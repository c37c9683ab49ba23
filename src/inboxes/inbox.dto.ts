import { ApiProperty } from '@nestjs/swagger';
import { toPublicId } from '../common/ids';
import type { InboxRow, InboxStatus } from './inbox.entity';

export class InboxResponse {
  @ApiProperty({ example: 'inb_00000000000070008000000000000001' })
  id!: string;

  @ApiProperty({ example: 'Support' })
  name!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '106540352242922',
    description: "The channel's id of the number, which routes its webhooks; null for the sandbox",
  })
  phone_number_id!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '15550783881' })
  display_phone_number!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '102290129340398', description: 'The WhatsApp Business Account of its templates' })
  business_account_id!: string | null;

  @ApiProperty({ enum: ['active', 'disabled'] })
  status!: InboxStatus;

  @ApiProperty({ description: 'Whether an access token is stored (it is never answered); without one the inbox is the sandbox' })
  has_access_token!: boolean;

  @ApiProperty({ description: 'Whether an app secret is stored (never answered) to check its webhooks’ signatures' })
  has_app_secret!: boolean;

  @ApiProperty({ description: 'The inbox the MESSAGING_* settings describe, which held every conversation before inboxes existed' })
  is_default!: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  static of(row: InboxRow): InboxResponse {
    return {
      id: toPublicId('inb', row.id),
      name: row.name,
      phone_number_id: row.phone_number_id,
      display_phone_number: row.display_phone_number,
      business_account_id: row.business_account_id,
      status: row.status,
      has_access_token: row.access_token !== null,
      has_app_secret: row.app_secret !== null,
      is_default: row.is_default,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    };
  }
}
