import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { LookupFunction } from 'node:net';

/**
 * SSRF guard for webhook URLs (API contract, "Webhook registrations and deliveries"). A webhook
 * makes this service send requests to an address a customer chose, so without this guard anyone
 * who can register one could reach our own network, localhost services or the cloud metadata
 * endpoint (which hands out credentials). Checked at registration and again at delivery, where
 * `lookupFor` also checks the address the socket actually connects to.
 */

/** A refused webhook URL. The message is a sentence naming the field: it is the 400 text. */
export class UnsafeUrlError extends Error {
  override name = 'UnsafeUrlError';
}

const PRIVATE_MESSAGE = 'url must not point to a private, loopback, link-local or metadata address';

/** Ranges that are never a legitimate webhook receiver (IANA special-purpose registries). */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches localhost on Linux
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT; also Alibaba Cloud's metadata (100.100.100.200)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including the AWS/GCP/Azure metadata at 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including broadcast 255.255.255.255
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local, including AWS's IPv6 metadata fd00:ec2::254
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['2001::', 32], // Teredo: the embedded client address is obfuscated, so it cannot be checked
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into private networks
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/**
 * True only for a unicast address on the public internet. Anything not a plain IP literal is
 * false: callers must never pass a hostname here and get a "yes".
 */
export function isPublicAddress(ip: string): boolean {
  const version = isIP(ip);
  if (version === 4) return !BLOCKED.check(ip, 'ipv4');
  // A zone id (fe80::1%eth0) only exists on scoped, i.e. non-global, addresses.
  if (version !== 6 || ip.includes('%')) return false;
  if (BLOCKED.check(ip, 'ipv6')) return false;
  const words = ipv6Words(ip);
  // Addresses that carry an IPv4 address reach that IPv4 host, so that is what must be public.
  const first5Zero = words.slice(0, 5).every((w) => w === 0);
  if (first5Zero && words[5] === 0xffff) return isPublicAddress(ipv4From(words[6], words[7])); // ::ffff:a.b.c.d mapped
  if (first5Zero && words[5] === 0) return false; // ::a.b.c.d compatible: deprecated, no legitimate use
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) {
    return isPublicAddress(ipv4From(words[6], words[7])); // NAT64 64:ff9b::a.b.c.d
  }
  if (words[0] === 0x2002) return isPublicAddress(ipv4From(words[1], words[2])); // 6to4 2002:aabb:ccdd::
  // Only 2000::/3 is allocated as global unicast; this also refuses future special ranges.
  return (words[0] & 0xe000) === 0x2000;
}

/** The eight 16-bit words of an address that net.isIPv6 has already accepted. */
function ipv6Words(ip: string): number[] {
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number); // trailing dotted IPv4
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head, tail] = ip.split('::');
  const start = parse(head);
  if (tail === undefined) return start;
  const end = parse(tail);
  return [...start, ...new Array<number>(Math.max(0, 8 - start.length - end.length)).fill(0), ...end];
}

function ipv4From(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * Names refused before any lookup. `.internal` is reserved for private use (ICANN, 2024) and holds
 * metadata.google.internal and AWS's *.ec2.internal / *.compute.internal; `.local` is multicast DNS,
 * i.e. the local link; `metadata` and `instance-data` are the GCP and AWS metadata short names.
 * These would mostly be caught by the address check too, but a name rule does not depend on what
 * this host's resolver says. `localhost` is left to that check: every resolver maps it to loopback.
 */
const BLOCKED_NAMES = new Set(['metadata', 'instance-data']);
const BLOCKED_SUFFIXES = ['.internal', '.local'];

/** Resolves a hostname to all of its IPv4 and IPv6 addresses. */
export type ResolveAll = (hostname: string) => Promise<string[]>;

const resolveAll: ResolveAll = async (hostname) =>
  (await dnsLookupAsync(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Parses a webhook URL and refuses it unless it is safe to deliver to, throwing UnsafeUrlError.
 * `allowPrivate` (WEBHOOK_ALLOW_PRIVATE_URLS, tests and local development) also allows http.
 * This checks what the name resolves to now; at delivery, connect with `lookupFor` as well so
 * the address connected to is the address checked.
 */
export async function assertDeliverableUrl(raw: string, allowPrivate: boolean, resolve: ResolveAll = resolveAll): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw new UnsafeUrlError(allowPrivate ? 'url must use https or http' : 'url must use https');
  }
  // A URL is shown back (GET /webhooks) and logged; the secret field is how deliveries authenticate.
  if (url.username !== '' || url.password !== '') throw new UnsafeUrlError('url must not contain credentials');
  if (allowPrivate) return url;

  // The WHATWG parser has already lowercased the host and normalised IPv4 written in decimal, hex,
  // octal or short form (https://2130706433/, https://0x7f.1/) to dotted quads; IPv6 keeps brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    if (!isPublicAddress(host)) throw new UnsafeUrlError(PRIVATE_MESSAGE);
    return url;
  }
  const name = host.replace(/\.$/, ''); // "metadata.google.internal." is the same name
  if (BLOCKED_NAMES.has(name) || BLOCKED_SUFFIXES.some((suffix) => name.endsWith(suffix))) {
    throw new UnsafeUrlError(PRIVATE_MESSAGE);
  }
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new UnsafeUrlError('url host could not be resolved');
  }
  if (addresses.length === 0) throw new UnsafeUrlError('url host could not be resolved');
  // Every address, not just the first: the client may pick any of them.
  if (!addresses.every(isPublicAddress)) throw new UnsafeUrlError(PRIVATE_MESSAGE);
  return url;
}

/** Resolves a hostname for a socket, honouring the socket's family and hints. */
export type ResolveForLookup = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

const resolveForLookup: ResolveForLookup = (hostname, options) => dnsLookupAsync(hostname, { ...options, all: true });

/**
 * A `lookup` for http(s).request / net.connect that refuses to hand the socket a non-public
 * address. Checking the URL and then letting the client resolve again leaves a window in which DNS
 * can change (DNS rebinding); with this the address checked is the address connected to.
 * Node skips `lookup` for IP-literal hosts, which assertDeliverableUrl checks instead.
 */
export function createSafeLookup(resolve: ResolveForLookup = resolveForLookup): LookupFunction {
  return (hostname, options, callback) => {
    const fail = (error: NodeJS.ErrnoException): void => callback(error, options.all ? [] : '', undefined);
    void resolve(hostname, options).then((addresses) => {
      // dns.lookup reports "no address" as ENOTFOUND itself; an injected resolver might not.
      if (addresses.length === 0) return fail(lookupError('url host could not be resolved', 'ENOTFOUND', hostname));
      // Refused if any address is private, as at registration, rather than quietly using another.
      if (!addresses.every((entry) => isPublicAddress(entry.address))) {
        return fail(lookupError('url resolves to a private, loopback, link-local or metadata address', 'EUNSAFEADDRESS', hostname));
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    }, fail);
  };
}

/** An error shaped like the ones dns.lookup gives, so the HTTP client reports it the same way. */
function lookupError(message: string, code: string, hostname: string): NodeJS.ErrnoException {
  return Object.assign(new UnsafeUrlError(message), { code, hostname });
}

/** The production safe lookup, resolving with the OS resolver (dns.lookup). */
export const safeLookup: LookupFunction = createSafeLookup();

/** The `lookup` for delivery requests: unchecked only when private URLs are allowed. */
export function lookupFor(allowPrivate: boolean): LookupFunction {
  return allowPrivate ? dnsLookup : safeLookup;
}
