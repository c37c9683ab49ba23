import { Injectable, UnauthorizedException } from '@nestjs/common';
import { UserResponse } from '../users/user.dto';
import type { UserRow } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { LoginDto, LoginResponse } from './auth.dto';
import { AuthTokenService } from './auth-token.service';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly tokens: AuthTokenService,
  ) {}

  async login(dto: LoginDto): Promise<LoginResponse> {
    const user = await this.users.authenticate(dto.email, dto.password);
    if (!user) throw new UnauthorizedException('Email or password is incorrect');
    return this.sessionFor(user);
  }

  /** What a login answers: a fresh token of the user's current generation, and the user. */
  sessionFor(user: UserRow): LoginResponse {
    const { token, expiresAt } = this.tokens.issue(user);
    return { token, expires_at: expiresAt.toISOString(), user: UserResponse.of(user) };
  }

  /** Ends every session of the user, on every device: all their tokens stop working. */
  logout(user: UserRow): Promise<void> {
    return this.users.revokeTokens(user);
  }
}
