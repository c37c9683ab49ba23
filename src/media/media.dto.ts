import { ApiProperty } from '@nestjs/swagger';
import { toPublicId } from '../common/ids';
import type { MediaRow, MediaStatus } from './media.entity';

/** Bytes as a number: bigint columns arrive as strings. */
export function sizeOf(row: MediaRow): number | null {
  return row.size === null ? null : Number(row.size);
}

/** The answer to an upload: a media ready to send by its id. */
export class UploadedMediaResponse {
  @ApiProperty({ example: 'med_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ example: 'image/png', description: 'Read from the bytes, not the file name' })
  mime_type!: string;

  @ApiProperty({ example: 48213, description: 'Bytes' })
  size!: number;

  @ApiProperty({ type: String, nullable: true, example: 'invoice.pdf' })
  filename!: string | null;

  @ApiProperty({ example: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b', description: 'Hex SHA-256 of the bytes' })
  sha256!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  static of(row: MediaRow): UploadedMediaResponse {
    return {
      id: toPublicId('med', row.id),
      mime_type: row.mime_type,
      size: sizeOf(row)!,
      filename: row.filename,
      sha256: row.sha256!,
      created_at: row.created_at.toISOString(),
    };
  }
}

/** The media of a message, as every message answer carries it. */
export class MessageMediaResponse {
  @ApiProperty({ example: 'med_01a2047c8e2078c99d14947d2651598e' })
  id!: string;

  @ApiProperty({ example: 'image/jpeg' })
  mime_type!: string;

  @ApiProperty({ type: Number, nullable: true, description: 'Bytes; null until an inbound media is downloaded' })
  size!: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'The file name, for documents' })
  filename!: string | null;

  @ApiProperty({
    enum: ['pending', 'ready', 'failed', 'expired'],
    description:
      'pending: an inbound media still being downloaded from the channel (event message.media when it settles); ready: the bytes can be fetched; failed: they never will be; expired: the channel dropped the media (7 days) before it could be downloaded',
  })
  status!: MediaStatus;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '/api/v1/media/med_01a2047c8e2078c99d14947d2651598e?expires=1767225600&signature=…',
    description:
      'A signed path to the bytes, usable without a token (e.g. in <img src>) until it expires (MEDIA_URL_TTL); null when failed or expired. While pending it answers 409.',
  })
  url!: string | null;
}
