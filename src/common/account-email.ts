import { IsEmail } from 'class-validator';

/**
 * The e-mail address of a team member: any address a mail server can deliver to, a host without a
 * dot included, since the service itself makes `admin@localhost` when no ADMIN_EMAIL is set and a
 * small team's own mail host may be named so (`dee@localhost`).
 */
export function IsAccountEmail(): PropertyDecorator {
  return IsEmail({ require_tld: false }, { message: ({ property }) => `${property} must be an e-mail address, like ana@example.com` });
}
