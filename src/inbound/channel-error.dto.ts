import { ApiProperty } from '@nestjs/swagger';
import { toPublicId } from '../common/ids';
import type { ChannelErrorRow } from './channel-error.entity';

/** An error the channel reported for a whole webhook change, as admins see it. */
export class ChannelErrorResponse {
  @ApiProperty({ example: 'ibe_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ format: 'date-time' })
  received_at!: string;

  @ApiProperty({ type: Number, nullable: true, example: 131000 })
  code!: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'Something went wrong' })
  title!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The channel's error_data.details" })
  details!: string | null;

  @ApiProperty({ type: Object, description: 'The error as the channel sent it' })
  error!: Record<string, unknown>;

  static of(row: ChannelErrorRow): ChannelErrorResponse {
    return {
      id: toPublicId('ibe', row.id),
      received_at: row.received_at.toISOString(),
      code: row.code,
      title: row.title,
      details: row.details,
      error: row.error,
    };
  }
}
