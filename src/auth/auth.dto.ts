import { ApiProperty } from '@nestjs/swagger';
import { UserResponse } from '../users/user.dto';

export class LoginResponse {
  @ApiProperty({ description: 'Send as `Authorization: Bearer <token>`' })
  token!: string;

  @ApiProperty({ format: 'date-time' })
  expires_at!: string;

  @ApiProperty({ type: UserResponse })
  user!: UserResponse;
}
