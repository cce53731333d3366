import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyHost, classifyIp, classifyIpv4, formatIpv4, isAddressAllowed, isHostAllowed, parseIpv4, parseIpv6 } from '../../src/core/ip';
import type { IpRange } from '../../src/core/ip';

function range(text: string): IpRange | undefined {
  return classifyIp(text)?.range;
}

describe('parseIpv4 (WHATWG URL host forms)', () => {
  it('reads dotted, decimal, octal, hex and short forms', () => {
    expect(parseIpv4('127.0.0.1')).toBe(0x7f000001);
    expect(parseIpv4('2130706433')).toBe(0x7f000001);
    expect(parseIpv4('0177.0.0.1')).toBe(0x7f000001);
    expect(parseIpv4('0x7f.1')).toBe(0x7f000001);
    expect(parseIpv4('0x7f000001')).toBe(0x7f000001);
    expect(parseIpv4('127.1')).toBe(0x7f000001);
    expect(parseIpv4('10.1')).toBe(0x0a000001);
    expect(parseIpv4('1.2.3.4.')).toBe(0x01020304);
    expect(parseIpv4('0')).toBe(0);
  });

  it('refuses names and out-of-range parts', () => {
    for (const bad of ['example.com', '1.2.3.4.5', '256.0.0.1', '1..2', '', '.', '08.0.0.1', '0x1g', '4294967296', '1.2.65536', 'a']) {
      expect(parseIpv4(bad), bad).toBeUndefined();
    }
  });

  it('agrees with what WHATWG URL canonicalises (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom('dec', 'hex', 'oct', 'short'), (n, form) => {
        let host: string;
        if (form === 'dec') host = String(n);
        else if (form === 'hex') host = '0x' + n.toString(16);
        else if (form === 'oct') host = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].map((p) => '0' + p.toString(8)).join('.');
        else host = `${n >>> 24}.${n & 0xffffff}`;
        expect(parseIpv4(host)).toBe(n);
        expect(new URL(`https://${host}/`).hostname).toBe(formatIpv4(n));
      }),
    );
  });
});

describe('parseIpv6 (RFC 4291 §2.2)', () => {
  it('reads compressed, full and IPv4-tailed forms', () => {
    expect(parseIpv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('[::1]')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6('2001:db8::8:800:200c:417a')).toEqual([0x2001, 0xdb8, 0, 0, 0x8, 0x800, 0x200c, 0x417a]);
    expect(parseIpv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIpv6('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('refuses malformed text', () => {
    for (const bad of [':::', '1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', '1:2', 'g::1', '::1.2.3', '::1.2.3.04', '1.2.3.4::', ':1::', '1:']) {
      expect(parseIpv6(bad), bad).toBeUndefined();
    }
  });

  it('round-trips WHATWG serialisation (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }), (groups) => {
        const text = groups.map((g) => g.toString(16)).join(':');
        const host = new URL(`https://[${text}]/`).hostname;
        expect(parseIpv6(host)).toEqual(groups);
      }),
    );
  });
});

describe('classifyIp (IANA special-purpose registries)', () => {
  const cases: Array<[string, IpRange]> = [
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this-network'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['192.0.0.8', 'ietf-protocol'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.20.0.1', 'public'],
    ['192.88.99.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'reserved'],
    ['::ffff:0:8.8.8.8', 'reserved'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::1', 'reserved'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:0808:0808::1', 'public'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'ietf-protocol'],
    ['2001:2::1', 'benchmarking'],
    ['2001:4860:4860::8888', 'public'],
    ['2606:4700::1111', 'public'],
    ['fc00::1', 'unique-local'],
    ['fd00::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['4000::1', 'reserved'],
  ];
  it.each(cases)('%s is %s', (text, expected) => {
    expect(range(text)).toBe(expected);
  });

  it('reports the embedded IPv4 address of mapped, NAT64 and 6to4 forms', () => {
    expect(classifyIp('::ffff:169.254.169.254')?.embeddedIpv4).toBe('169.254.169.254');
    expect(classifyIp('64:ff9b::a00:1')?.embeddedIpv4).toBe('10.0.0.1');
    expect(classifyIp('2002:c0a8:101::')?.embeddedIpv4).toBe('192.168.1.1');
  });

  it('is undefined for host names', () => {
    expect(classifyIp('example.com')).toBeUndefined();
    expect(classifyIp('localhost')).toBeUndefined();
  });

  it('never throws and classifies every IPv4 address (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (n) => {
        const r = classifyIpv4(n);
        expect(classifyIp(formatIpv4(n))?.range).toBe(r);
        // An IPv4-mapped IPv6 address is contacted as the IPv4 address: same class.
        expect(classifyIp(`::ffff:${formatIpv4(n)}`)?.range).toBe(r);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        classifyIp(s);
        classifyHost(s);
      }),
    );
  });
});

describe('classifyHost and the allow policy', () => {
  it('flags localhost names, local-only domains and single labels', () => {
    expect(classifyHost('localhost')).toEqual({ kind: 'name', special: 'localhost' });
    expect(classifyHost('localhost.')).toEqual({ kind: 'name', special: 'localhost' });
    expect(classifyHost('api.localhost')).toEqual({ kind: 'name', special: 'localhost' });
    expect(classifyHost('printer.local')).toEqual({ kind: 'name', special: 'local-domain' });
    expect(classifyHost('metadata.google.internal')).toEqual({ kind: 'name', special: 'local-domain' });
    expect(classifyHost('router.home.arpa')).toEqual({ kind: 'name', special: 'local-domain' });
    expect(classifyHost('intranet')).toEqual({ kind: 'name', special: 'single-label' });
    expect(classifyHost('agent.example')).toEqual({ kind: 'name' });
    expect(classifyHost('notlocalhost.example')).toEqual({ kind: 'name' });
  });

  it('opens loopback and private ranges only when asked, link-local never', () => {
    expect(isHostAllowed('127.0.0.1')).toBe(false);
    expect(isHostAllowed('127.0.0.1', { loopback: true })).toBe(true);
    expect(isHostAllowed('[::1]', { loopback: true })).toBe(true);
    expect(isHostAllowed('localhost', { loopback: true })).toBe(true);
    expect(isHostAllowed('10.0.0.1', { loopback: true })).toBe(false);
    expect(isHostAllowed('10.0.0.1', { privateNetworks: true })).toBe(true);
    expect(isHostAllowed('[fd00::1]', { privateNetworks: true })).toBe(true);
    expect(isHostAllowed('169.254.169.254', { loopback: true, privateNetworks: true })).toBe(false);
    expect(isHostAllowed('0.0.0.0', { loopback: true, privateNetworks: true })).toBe(false);
    expect(isHostAllowed('agent.example')).toBe(true);
    expect(isAddressAllowed('8.8.8.8')).toBe(true);
    expect(isAddressAllowed('::ffff:127.0.0.1')).toBe(false);
    expect(isAddressAllowed('not-an-address')).toBe(false);
  });

  it('classifies the canonical host of every blocked URL form WHATWG produces', () => {
    const blocked = [
      'https://127.0.0.1',
      'https://2130706433',
      'https://0177.0.0.1',
      'https://0x7f.1',
      'https://127.1',
      'https://[::1]',
      'https://[::ffff:127.0.0.1]',
      'https://[fd00::1]',
      'https://10.0.0.1',
      'https://169.254.169.254',
      'https://0',
      'https://localhost',
      'https://LOCALHOST.',
      'https://a.localhost',
      'https://%31%32%37.0.0.1',
    ];
    for (const u of blocked) expect(isHostAllowed(new URL(u).hostname), u).toBe(false);
  });
});
