import { composeEmail, EmailContent } from '../mail/email-content';
import type { UserRow } from '../users/user.entity';

/** The e-mail that invites a user to set their password and join. */
export function invitationEmail(user: UserRow, invitedBy: UserRow, url: string): EmailContent {
  return composeEmail({
    subject: `${invitedBy.name} invited you to Team Inbox`,
    paragraphs: [
      `Hello ${user.name},`,
      `${invitedBy.name} invited you to join the team on Team Inbox as ${user.role === 'admin' ? 'an admin' : 'an agent'}, with ${user.email}.`,
      'Choose your password to accept. The link works once, within 72 hours.',
    ],
    action: { label: 'Accept the invitation', url },
    footer: 'If you did not expect this invitation, ignore this e-mail: nothing happens without you.',
  });
}

/** The e-mail with a link to choose a new password. */
export function passwordResetEmail(user: UserRow, url: string): EmailContent {
  return composeEmail({
    subject: 'Reset your Team Inbox password',
    paragraphs: [
      `Hello ${user.name},`,
      `Someone, hopefully you, asked to reset the password of the Team Inbox account ${user.email}.`,
      'The link works once, within an hour. Choosing a new password signs you out on every device.',
    ],
    action: { label: 'Choose a new password', url },
    footer: 'If you did not ask for this, ignore this e-mail: your password stays as it is.',
  });
}

/** The e-mail that tells an account's owner their password login was locked after too many failures. */
export function accountLockedEmail(user: UserRow, lockedUntil: Date, failures: number, ip: string | null): EmailContent {
  return composeEmail({
    subject: 'Your Team Inbox account was locked after failed sign-ins',
    paragraphs: [
      `Hello ${user.name},`,
      `${failures} sign-ins to ${user.email} failed within 15 minutes${ip ? `, the last from ${ip}` : ''}, so password sign-in is locked until ${lockedUntil.toISOString().replace('T', ' ').slice(0, 16)} UTC.`,
      'If this was you, wait until then, or ask an admin to unlock the account. If it was not, someone may be guessing your password: choose a stronger one and turn on two-factor login in your profile.',
    ],
    footer: 'Nothing else changed: your sessions and your password stay as they were.',
  });
}
