import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateOrDateTime } from '../common/date-or-time';
import { toPublicId } from '../common/ids';
import { IsPublicId } from '../common/is-public-id';
import { IsOmittable } from '../common/omittable';
import type { PricingRow } from './report.repository';

export class PricingReportQuery {
  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-11-01',
    description: 'From this moment on (inclusive); the start of the current month (UTC) when left out',
  })
  @IsOmittable()
  @IsDateOrDateTime()
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', example: '2026-12-01', description: 'Before this moment (exclusive); now when left out' })
  @IsOmittable()
  @IsDateOrDateTime()
  to?: string;

  @ApiPropertyOptional({ description: 'Only the messages of this inbox', example: 'inb_00000000000070008000000000000001' })
  @IsOmittable()
  @IsPublicId('inb', 'an inbox id')
  inbox_id?: string;
}

export class PricingReportRow {
  @ApiProperty({ example: 'inb_00000000000070008000000000000001' })
  inbox_id!: string;

  @ApiProperty({ example: 'marketing', description: 'As the channel names it: marketing, utility, authentication, service, …' })
  category!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'regular',
    description: '`regular` (charged), `free_customer_service` or `free_entry_point`; null where the channel said none',
  })
  type!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'PMP', description: 'Null where the channel said none' })
  pricing_model!: string | null;

  @ApiProperty({ example: 42, description: 'Outbound messages sent in the period with this pricing' })
  messages!: number;

  static of(row: PricingRow): PricingReportRow {
    return {
      inbox_id: toPublicId('inb', row.inbox_id),
      category: row.category,
      type: row.type,
      pricing_model: row.pricing_model,
      messages: row.messages,
    };
  }
}

export class PricingReportResponse {
  @ApiProperty({ type: [PricingReportRow] })
  data!: PricingReportRow[];
}
