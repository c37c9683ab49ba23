import ipaddr from 'ipaddr.js';

/**
 * The client a per-address limit counts: an IPv4 address itself (also when written IPv4-mapped,
 * `::ffff:203.0.113.7`), an IPv6 address by its /64, the smallest network a provider gives one
 * subscriber (counting single IPv6 addresses would give each client 2^64 fresh counters).
 */
export function clientKeyOf(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
