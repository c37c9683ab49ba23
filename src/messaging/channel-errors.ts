import { parseRetryAfter } from '../common/retry-after';

/**
 * The Cloud API's error codes, as a send must treat them. A refusal the channel would repeat is
 * not retried (it would only spend the retry schedule and the agent's time); a pause the channel
 * asks for is waited out before the next attempt; a broken token or account fails the send and is
 * shown on the inbox until an admin acts. Where each code comes from: Meta's "Cloud API error
 * codes" reference (developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes), and for
 * 131056 the documented pair rate (one message to the same customer every 6 seconds).
 */

/** What a send does with a code. */
export type ChannelErrorOutcome =
  /** The channel refuses this message and would refuse it again: it fails at once. */
  | 'refused'
  /** The channel asks to slow down: retried after its pause (or the retry schedule's, if longer). */
  | 'pause'
  /** The number's token or account is broken: the send fails, and the inbox shows it until an admin acts. */
  | 'account';

export interface ChannelErrorRule {
  outcome: ChannelErrorOutcome;
  /** The channel's title for the code. */
  title: string;
  /** The pause the channel documents for it, when a response does not say (Retry-After). */
  pauseMs?: number;
}

/** Codes looked up one by one; the template range 132xxx is below. */
export const CHANNEL_ERROR_CODES: ReadonlyMap<number, ChannelErrorRule> = new Map<number, ChannelErrorRule>([
  [100, { outcome: 'refused', title: 'Invalid parameter' }],
  [368, { outcome: 'refused', title: 'Temporarily blocked for policy violations' }],
  [131026, { outcome: 'refused', title: 'Message undeliverable' }],
  [131047, { outcome: 'refused', title: 'Re-engagement message' }],
  [131049, { outcome: 'refused', title: 'Meta chose not to deliver (per-user marketing limit)' }],
  [131050, { outcome: 'refused', title: 'User stopped marketing messages' }],
  [4, { outcome: 'pause', title: 'API Too many calls' }],
  [80007, { outcome: 'pause', title: 'Rate limit issues' }],
  [130429, { outcome: 'pause', title: 'Rate limit hit (throughput)' }],
  [131048, { outcome: 'pause', title: 'Spam rate limit hit' }],
  [131056, { outcome: 'pause', title: '(Business Account, Consumer Account) pair rate limit hit', pauseMs: 6_000 }],
  [190, { outcome: 'account', title: 'Access token has expired or is invalid' }],
  [131031, { outcome: 'account', title: 'Business Account locked' }],
]);

/** 132000-132069 are documented today; the contract reserves all of 132xxx for template problems. */
const TEMPLATE_CODES = { first: 132000, last: 132999 };
const TEMPLATE_RULE: ChannelErrorRule = { outcome: 'refused', title: 'Template problem' };

/** The rule of a code, or null for one the table does not know (judged by the HTTP status). */
export function channelErrorRule(code: number | undefined): ChannelErrorRule | null {
  if (code === undefined) return null;
  if (code >= TEMPLATE_CODES.first && code <= TEMPLATE_CODES.last) return TEMPLATE_RULE;
  return CHANNEL_ERROR_CODES.get(code) ?? null;
}

/** How a failed call counts: whether another attempt may succeed, after how long at least, and whether the account is broken. */
export interface ChannelErrorJudgement {
  retryable: boolean;
  retryAfterMs: number | null;
  accountBroken: boolean;
}

/**
 * Judges a refusal by its code first, then by its HTTP status: a code of the table says what it
 * means whatever the status it came with; an unknown one is retried after 429 and 5xx only.
 * `retryAfter`: the response's Retry-After header, in seconds or as a date.
 */
export function judgeChannelError(status: number, code: number | undefined, retryAfter: string | null): ChannelErrorJudgement {
  const rule = channelErrorRule(code);
  const asked = parseRetryAfter(retryAfter);
  if (rule?.outcome === 'pause') return { retryable: true, retryAfterMs: asked ?? rule.pauseMs ?? null, accountBroken: false };
  if (rule) return { retryable: false, retryAfterMs: null, accountBroken: rule.outcome === 'account' };
  const retryable = status === 429 || status >= 500;
  return { retryable, retryAfterMs: retryable ? asked : null, accountBroken: false };
}
