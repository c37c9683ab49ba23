import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import {
  assertDeliverableUrl,
  createSafeLookup,
  isPublicAddress,
  lookupFor,
  ResolveAll,
  safeLookup,
  UnsafeUrlError,
} from '../../src/webhooks/url-guard';

// No test here may look up a public name: the only real lookups are of `localhost`. Every other
// hostname goes through a fake resolver.
const PRIVATE = 'url must not point to a private, loopback, link-local or metadata address';
const resolvesTo =
  (...addresses: string[]): ResolveAll =>
  () =>
    Promise.resolve(addresses);
const neverCalled: ResolveAll = () => Promise.reject(new Error('the resolver must not be called'));

describe('isPublicAddress', () => {
  it.each([
    ['0.0.0.0', 'this network'],
    ['0.255.255.255', 'this network'],
    ['10.0.0.1', '10/8'],
    ['10.255.255.255', '10/8'],
    ['100.64.0.1', 'CGNAT'],
    ['100.100.100.200', 'CGNAT (Alibaba metadata)'],
    ['100.127.255.255', 'CGNAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['172.16.0.1', '172.16/12'],
    ['172.31.255.255', '172.16/12'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['192.168.0.1', '192.168/16'],
    ['192.168.255.255', '192.168/16'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'TEST-NET-2'],
    ['203.0.113.9', 'TEST-NET-3'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'IPv6 unspecified'],
    ['::1', 'IPv6 loopback'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fd00:ec2::254', 'AWS IPv6 metadata'],
    ['fe80::1', 'IPv6 link-local'],
    ['febf:ffff::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone id'],
    ['ff02::1', 'IPv6 multicast'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['3fff::1', 'IPv6 documentation (RFC 9637)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b::10.0.0.1', 'NAT64 of 10.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['64:ff9b:1::808:808', 'local-use NAT64'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback in hex'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:10.1.2.3', 'IPv4-mapped 10/8'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::8.8.8.8', 'IPv4-compatible (deprecated, refused whatever it embeds)'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['100::1', 'IPv6 discard-only (outside 2000::/3)'],
    ['fec0::1', 'IPv6 site-local (outside 2000::/3)'],
  ])('refuses %s (%s)', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.215.14'],
    ['1.0.0.0'],
    ['9.255.255.255'],
    ['11.0.0.0'],
    ['100.63.255.255'],
    ['100.128.0.0'],
    ['126.255.255.255'],
    ['128.0.0.0'],
    ['169.253.255.255'],
    ['169.255.0.0'],
    ['172.15.255.255'],
    ['172.32.0.0'],
    ['192.0.1.1'],
    ['192.0.3.1'],
    ['192.167.255.255'],
    ['192.169.0.0'],
    ['198.17.255.255'],
    ['198.20.0.0'],
    ['223.255.255.255'],
    ['2606:4700:4700::1111'],
    ['2001:4860:4860::8888'],
    ['2a00:1450:4001:830::200e'],
    ['2001:db9::1'],
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
    ['2002:808:808::1'],
  ])('accepts the public address %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    [''],
    ['example.com'],
    ['localhost'],
    ['127.1'],
    ['2130706433'],
    ['0x7f.0.0.1'],
    ['010.0.0.1'],
    [' 8.8.8.8'],
    ['8.8.8.8/32'],
    ['[::1]'],
    ['256.1.1.1'],
  ])('refuses %p, which is not an IP address', (value) => {
    expect(isPublicAddress(value)).toBe(false);
  });
});

describe('assertDeliverableUrl', () => {
  it('accepts an https URL whose host resolves only to public addresses, and returns it parsed', async () => {
    const url = await assertDeliverableUrl(
      'https://hooks.example.com/in?x=1',
      false,
      resolvesTo('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'),
    );
    expect(url).toBeInstanceOf(URL);
    expect(url.href).toBe('https://hooks.example.com/in?x=1');
  });

  it('accepts an https URL with a public IP literal without resolving anything', async () => {
    await expect(assertDeliverableUrl('https://8.8.8.8/hook', false, neverCalled)).resolves.toBeInstanceOf(URL);
  });

  it('accepts an https URL with a public bracketed IPv6 literal', async () => {
    await expect(assertDeliverableUrl('https://[2606:4700:4700::1111]/hook', false, neverCalled)).resolves.toBeInstanceOf(URL);
  });

  it.each([['not a url'], ['/relative/path'], ['hooks.example.com/in'], [''], ['https://[fe80::1%25eth0]/']])(
    'refuses %p as not an absolute URL',
    async (raw) => {
      await expect(assertDeliverableUrl(raw, false, neverCalled)).rejects.toThrow(new UnsafeUrlError('url must be an absolute URL'));
    },
  );

  it.each([
    ['http://hooks.example.com/'],
    ['ftp://hooks.example.com/'],
    ['mailto:ops@example.com'],
    ['file:///etc/passwd'],
    ['ws://hooks.example.com/'],
  ])('refuses %p because it is not https', async (raw) => {
    await expect(assertDeliverableUrl(raw, false, neverCalled)).rejects.toThrow(new UnsafeUrlError('url must use https'));
  });

  it.each([['https://user:pass@hooks.example.com/'], ['https://user@hooks.example.com/'], ['https://:pass@hooks.example.com/']])(
    'refuses %p because it contains credentials',
    async (raw) => {
      await expect(assertDeliverableUrl(raw, false, neverCalled)).rejects.toThrow(new UnsafeUrlError('url must not contain credentials'));
    },
  );

  it.each([
    ['https://10.0.0.5/hook'],
    ['https://127.0.0.1/'],
    ['https://127.0.0.1./'],
    ['https://[::1]/'],
    ['https://[::ffff:127.0.0.1]/'],
    ['https://[fd00:ec2::254]/'],
    ['https://[64:ff9b::a9fe:a9fe]/'],
    ['https://169.254.169.254/latest/meta-data'],
    ['https://0.0.0.0/'],
    ['https://100.100.100.200/'],
  ])('refuses the private IP literal in %s without resolving anything', async (raw) => {
    await expect(assertDeliverableUrl(raw, false, neverCalled)).rejects.toThrow(new UnsafeUrlError(PRIVATE));
  });

  it.each([
    ['https://2130706433/'],
    ['https://0x7f.1/'],
    ['https://0177.0.0.1/'],
    ['https://127.1/'],
    ['https://0xA9FEA9FE/'],
    ['https://0251.0376.0251.0376/'],
  ])('refuses %s, a private IPv4 address in numeric shorthand the URL parser normalises', async (raw) => {
    await expect(assertDeliverableUrl(raw, false, neverCalled)).rejects.toThrow(new UnsafeUrlError(PRIVATE));
  });

  it.each([
    ['https://metadata.google.internal/computeMetadata/v1/'],
    ['https://METADATA.google.internal./'],
    ['https://metadata/'],
    ['https://instance-data/latest/meta-data'],
    ['https://ip-10-0-0-1.ec2.internal/'],
    ['https://printer.local/'],
  ])('refuses the internal or metadata hostname in %s without resolving it', async (raw) => {
    await expect(assertDeliverableUrl(raw, false, neverCalled)).rejects.toThrow(new UnsafeUrlError(PRIVATE));
  });

  it('refuses https://localhost/, which the OS resolves to loopback', async () => {
    await expect(assertDeliverableUrl('https://localhost/', false)).rejects.toThrow(new UnsafeUrlError(PRIVATE));
  });

  it('refuses a hostname that resolves to a private address', async () => {
    await expect(assertDeliverableUrl('https://rebind.example.com/', false, resolvesTo('10.1.2.3'))).rejects.toThrow(
      new UnsafeUrlError(PRIVATE),
    );
  });

  it('refuses a hostname when any one of its addresses is private', async () => {
    await expect(assertDeliverableUrl('https://mixed.example.com/', false, resolvesTo('8.8.8.8', '::1'))).rejects.toThrow(
      new UnsafeUrlError(PRIVATE),
    );
  });

  it('passes the bare hostname to the resolver', async () => {
    const resolve = jest.fn(resolvesTo('8.8.8.8'));
    await assertDeliverableUrl('https://Hooks.Example.com:8443/in', false, resolve);
    expect(resolve).toHaveBeenCalledWith('hooks.example.com');
  });

  it('refuses a hostname whose resolver throws, saying it could not be resolved', async () => {
    const failing: ResolveAll = () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    await expect(assertDeliverableUrl('https://nowhere.example.com/', false, failing)).rejects.toThrow(
      new UnsafeUrlError('url host could not be resolved'),
    );
  });

  it('refuses a hostname that resolves to no address at all', async () => {
    await expect(assertDeliverableUrl('https://empty.example.com/', false, resolvesTo())).rejects.toThrow(
      new UnsafeUrlError('url host could not be resolved'),
    );
  });

  it('throws UnsafeUrlError, so callers can tell a refusal from a bug', async () => {
    await expect(assertDeliverableUrl('http://x.example.com/', false, neverCalled)).rejects.toBeInstanceOf(UnsafeUrlError);
  });

  describe('with private URLs allowed', () => {
    it.each([
      ['http://localhost:3000/hook'],
      ['https://127.0.0.1/'],
      ['http://[::1]:8080/'],
      ['https://169.254.169.254/'],
      ['http://metadata.google.internal/'],
    ])('accepts %s without resolving anything', async (raw) => {
      await expect(assertDeliverableUrl(raw, true, neverCalled)).resolves.toBeInstanceOf(URL);
    });

    it('still refuses schemes other than https and http', async () => {
      await expect(assertDeliverableUrl('ftp://localhost/', true, neverCalled)).rejects.toThrow(
        new UnsafeUrlError('url must use https or http'),
      );
    });

    it('still refuses credentials', async () => {
      await expect(assertDeliverableUrl('http://u:p@localhost/', true, neverCalled)).rejects.toThrow(
        new UnsafeUrlError('url must not contain credentials'),
      );
    });
  });
});

interface LookupResult {
  error: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family?: number;
}

function callLookup(lookup: LookupFunction, hostname: string, options: LookupOptions): Promise<LookupResult> {
  return new Promise((resolve) => lookup(hostname, options, (error, address, family) => resolve({ error, address, family })));
}

const lookupResolvingTo = (...addresses: LookupAddress[]) => createSafeLookup(() => Promise.resolve(addresses));

describe('createSafeLookup', () => {
  it('calls back with the first address and its family when options.all is not set', async () => {
    const lookup = lookupResolvingTo({ address: '2606:4700:4700::1111', family: 6 }, { address: '1.1.1.1', family: 4 });
    await expect(callLookup(lookup, 'hooks.example.com', {})).resolves.toEqual({ error: null, address: '2606:4700:4700::1111', family: 6 });
  });

  it('calls back with every address when options.all is true', async () => {
    const addresses = [
      { address: '1.1.1.1', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ];
    const result = await callLookup(lookupResolvingTo(...addresses), 'hooks.example.com', { all: true });
    expect(result.error).toBeNull();
    expect(result.address).toEqual(addresses);
  });

  it('passes the hostname and the socket options on to the resolver', async () => {
    const resolve = jest.fn(() => Promise.resolve([{ address: '1.1.1.1', family: 4 }]));
    await callLookup(createSafeLookup(resolve), 'hooks.example.com', { family: 4, all: true });
    expect(resolve).toHaveBeenCalledWith('hooks.example.com', { family: 4, all: true });
  });

  it('refuses with EUNSAFEADDRESS when the address resolves to a private one', async () => {
    const result = await callLookup(lookupResolvingTo({ address: '169.254.169.254', family: 4 }), 'rebind.example.com', {});
    expect(result.error).toBeInstanceOf(UnsafeUrlError);
    expect(result.error).toMatchObject({
      code: 'EUNSAFEADDRESS',
      hostname: 'rebind.example.com',
      message: 'url resolves to a private, loopback, link-local or metadata address',
    });
  });

  it('refuses with EUNSAFEADDRESS under options.all when any address is private', async () => {
    const lookup = lookupResolvingTo({ address: '8.8.8.8', family: 4 }, { address: 'fd00::1', family: 6 });
    const result = await callLookup(lookup, 'mixed.example.com', { all: true });
    expect(result.error?.code).toBe('EUNSAFEADDRESS');
    expect(result.address).toEqual([]);
  });

  it('refuses with ENOTFOUND when the resolver returns no address', async () => {
    const result = await callLookup(lookupResolvingTo(), 'empty.example.com', {});
    expect(result.error?.code).toBe('ENOTFOUND');
  });

  it("passes the resolver's own error through unchanged", async () => {
    const failure = Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
    const result = await callLookup(
      createSafeLookup(() => Promise.reject(failure)),
      'slow.example.com',
      {},
    );
    expect(result.error).toBe(failure);
  });
});

describe('safeLookup and lookupFor', () => {
  it('safeLookup refuses localhost, which the OS resolves to loopback', async () => {
    const result = await callLookup(safeLookup, 'localhost', { all: true });
    expect(result.error?.code).toBe('EUNSAFEADDRESS');
  });

  it('lookupFor(false) is safeLookup', () => {
    expect(lookupFor(false)).toBe(safeLookup);
  });

  it('lookupFor(true) is the unchecked dns.lookup', () => {
    expect(lookupFor(true)).toBe(dnsLookup);
  });

  it('lookupFor(true) resolves localhost to loopback', async () => {
    const result = await callLookup(lookupFor(true), 'localhost', {});
    expect(result.error).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(result.address);
  });
});
