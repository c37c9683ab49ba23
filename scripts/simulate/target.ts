import { isIPv4, isIPv6 } from 'node:net';

export const WEBHOOK_PATH = '/api/webhooks/messaging';

/**
 * The webhook URL for `--url`: a base URL (`http://127.0.0.1:3000`) gets the webhook path
 * appended; a URL already ending in it is kept, so both the base and the full URL work.
 */
export function webhookUrl(given: string): URL {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--url: "${given}" is not a URL (expected e.g. http://127.0.0.1:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--url: expected http:// or https://, got ${url.protocol}//`);
  if (url.username || url.password) throw new UsageError('--url: credentials in the URL are not used by the webhook; remove them');
  if (url.search || url.hash) throw new UsageError('--url: expected no query string or fragment');
  const base = url.pathname.replace(/\/+$/, '');
  if (!base.endsWith(WEBHOOK_PATH)) url.pathname = `${base}${WEBHOOK_PATH}`;
  return url;
}

/**
 * True for names and addresses that can only mean this machine: `localhost` (RFC 6761 reserves
 * it for loopback), 127.0.0.0/8, ::1 and IPv4-mapped 127.x. Decided on the URL's text alone,
 * without a DNS lookup, so no name that resolves elsewhere today can pass.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIPv4(host)) return host.startsWith('127.');
  if (!isIPv6(host)) return false;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  // The URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1.
  const mapped = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(host);
  return mapped !== null && parseInt(mapped[1], 16) >> 8 === 127;
}

/** A mistake in the command line: reported with the usage, exit status 2. */
export class UsageError extends Error {}
