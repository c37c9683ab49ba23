import { ApiProperty } from '@nestjs/swagger';

export class StreamTicketResponse {
  @ApiProperty({ description: 'Opens one event stream, once: `GET /api/v1/events/stream?ticket=<ticket>`' })
  ticket!: string;

  @ApiProperty({ format: 'date-time', description: 'A minute from now, or when the access token expires if that is sooner' })
  expires_at!: string;
}
