import { applyDecorators, SetMetadata } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';

export const LOGIN_THROTTLER = 'login';
export const LOGIN_RATE_LIMITED = 'rate-limit:login';

/** The stricter per-IP login limit replaces the per-user limit on this route. */
export const LoginRateLimit = (): MethodDecorator & ClassDecorator =>
  applyDecorators(SkipThrottle({ default: true }), SetMetadata(LOGIN_RATE_LIMITED, true));

/** Not rate limited at all: health probes and the channel webhook. */
export const NoRateLimit = (): MethodDecorator & ClassDecorator => SkipThrottle({ default: true, [LOGIN_THROTTLER]: true });

export const PASSWORD_RESET_THROTTLER = 'password-reset';
export const PASSWORD_RESET_RATE_LIMITED = 'rate-limit:password-reset';

/**
 * The login limit per IP, and on top a limit per e-mail address (the body's `email`), so nobody
 * floods one person's inbox with reset links from many addresses.
 */
export const PasswordResetRateLimit = (): MethodDecorator & ClassDecorator =>
  applyDecorators(LoginRateLimit(), SetMetadata(PASSWORD_RESET_RATE_LIMITED, true));
