import { ApiProperty } from '@nestjs/swagger';
import { toPublicId } from '../common/ids';
import type { DeadLetterRow } from './dead-letter.entity';

/** A channel webhook body that could not be stored, as admins see it. */
export class DeadLetterResponse {
  @ApiProperty({ example: 'ibf_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ format: 'date-time' })
  received_at!: string;

  @ApiProperty({ description: 'Why storing the body failed', example: 'index row requires 26688 bytes, maximum size is 8191' })
  error!: string;

  @ApiProperty({
    enum: ['unknown phone number', 'not stored'],
    description:
      '`unknown phone number`: a change named a number no inbox has (phone_number_id); the body is replayed by itself once an inbox has it. `not stored`: storing failed (error says why)',
  })
  reason!: 'unknown phone number' | 'not stored';

  @ApiProperty({
    type: String,
    nullable: true,
    example: '106540352242922',
    description: 'The number no inbox had, for `unknown phone number`',
  })
  phone_number_id!: string | null;

  @ApiProperty({ description: 'The body as received (its bytes read as UTF-8)' })
  body!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a replay stored the body; null until then' })
  replayed_at!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why the last replay failed; null once one succeeds' })
  replay_error!: string | null;

  static of(row: DeadLetterRow): DeadLetterResponse {
    return {
      id: toPublicId('ibf', row.id),
      received_at: row.received_at.toISOString(),
      error: row.error,
      reason: row.unknown_phone_number_id === null ? 'not stored' : 'unknown phone number',
      phone_number_id: row.unknown_phone_number_id,
      body: row.raw_body.toString('utf8'),
      replayed_at: row.replayed_at?.toISOString() ?? null,
      replay_error: row.replay_error,
    };
  }
}
