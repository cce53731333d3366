/**
 * Pins for the IP-literal and host classification of the SSRF guards (src/core/ip.ts) that
 * the mutation run showed unpinned (issue 20): the edges of each parser (which characters are
 * digits, the length caps, brackets and zones, `::` counting, the dotted IPv4 tail), the
 * first and last address of each special-purpose range, the IPv6 prefixes that embed an
 * IPv4 address only when every bit of their prefix matches, and the allow policy for each
 * kind of host name.
 */
import { describe, expect, it } from 'vitest';
import { classifyHost, classifyIp, isHostAllowed, isRangeAllowed, parseIpv4, parseIpv6 } from '../../src/core/ip';

const range = (text: string): string | undefined => classifyIp(text)?.range;

describe('parseIpv4: what a part is', () => {
  it('a hex part takes 0-9, a-f and A-F only: "@" and "`" (the codes next to "A" and "a") are not digits', () => {
    expect(parseIpv4('0xAf')).toBe(0xaf);
    expect(parseIpv4('0xaF.1')).toBe(0xaf000001);
    for (const bad of ['0x@', '0x`', '0x1@', '0xg', '@', '`', '1@', '0@', '9`']) expect(parseIpv4(bad), bad).toBeUndefined();
  });

  it('"0x" alone is zero, and so is "0x" before a dot (WHATWG)', () => {
    expect(parseIpv4('0x')).toBe(0);
    expect(parseIpv4('0x.1')).toBe(1);
    expect(parseIpv4('1.0x')).toBe(0x01000000);
  });

  it('only a part that starts with "0x" is hex: "1x" is not a number', () => {
    for (const bad of ['1x', '1x.1', '1.1x', '9x9']) expect(parseIpv4(bad), bad).toBeUndefined();
  });

  it('single-digit parts are decimal', () => {
    expect(parseIpv4('5')).toBe(5);
    expect(parseIpv4('9.8.7.6')).toBe(0x09080706);
    expect(parseIpv4('1.2.3.0')).toBe(0x01020300);
  });

  it('the whole address is at most 2^32 - 1: 4294967295 is 255.255.255.255, 4294967296 is not an address', () => {
    expect(parseIpv4('4294967295')).toBe(0xffffffff);
    expect(parseIpv4('0xffffffff')).toBe(0xffffffff);
    expect(parseIpv4('037777777777')).toBe(0xffffffff);
    expect(parseIpv4('4294967296')).toBeUndefined();
    expect(parseIpv4('0x100000000')).toBeUndefined();
  });

  it('at most four parts, whatever the last one is', () => {
    expect(parseIpv4('1.2.3.4.0')).toBeUndefined();
    expect(parseIpv4('1.2.3.4.0.')).toBeUndefined();
    expect(parseIpv4('0.0.0.0.0')).toBeUndefined();
  });

  it('at most 64 characters before the trailing dot', () => {
    expect(parseIpv4('0'.repeat(63) + '1')).toBe(1);
    expect(parseIpv4('0'.repeat(63) + '1.')).toBe(1);
    expect(parseIpv4('0'.repeat(64) + '1')).toBeUndefined();
  });

  it('anything but a string is not an address', () => {
    expect(parseIpv4(42 as unknown as string)).toBeUndefined();
    expect(parseIpv4(undefined as unknown as string)).toBeUndefined();
  });
});

describe('parseIpv6: brackets, zones, groups and the dotted tail', () => {
  it('brackets count only as a pair around the whole text', () => {
    expect(parseIpv6('[::1]')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    for (const bad of ['[::1', '::1]', '1::1]', '[1::1', 'x::1]', '[]', '[']) expect(parseIpv6(bad), bad).toBeUndefined();
  });

  it('a zone ends the address inside brackets too', () => {
    expect(parseIpv6('[fe80::1%25eth0]')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('%eth0')).toBeUndefined();
  });

  it('accepts the longest form (45 characters, bracketed or not)', () => {
    const longest = 'ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255';
    expect(longest).toHaveLength(45);
    const groups = [0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff];
    expect(parseIpv6(longest)).toEqual(groups);
    expect(parseIpv6(`[${longest}]`)).toEqual(groups);
    expect(parseIpv6('0000:0000:0000:0000:0000:ffff:255.255.255.255')).toEqual([0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff]);
  });

  it('a leading ":" must be "::"', () => {
    for (const bad of [':12:1', ':1', ':1:2:3:4:5:6:7']) expect(parseIpv6(bad), bad).toBeUndefined();
  });

  it('no empty group other than the one "::" stands for', () => {
    for (const bad of ['1:::2', '1::2:', '1:2:3:4:5:6:7:8:', '::1:', '1:2::3:']) expect(parseIpv6(bad), bad).toBeUndefined();
  });

  it('"::" stands for at least one group: seven groups and "::" make eight, eight and "::" are too many', () => {
    expect(parseIpv6('1:2:3::4:5:6:7')).toEqual([1, 2, 3, 0, 4, 5, 6, 7]);
    expect(parseIpv6('::2:3:4:5:6:7:8')).toEqual([0, 2, 3, 4, 5, 6, 7, 8]);
    for (const bad of ['1:2:3:4::5:6:7:8', '::1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8::']) expect(parseIpv6(bad), bad).toBeUndefined();
  });

  it('hex groups take hex digits only', () => {
    for (const bad of ['@::1', '`::1', 'fe@0::1', '::g']) expect(parseIpv6(bad), bad).toBeUndefined();
  });

  it('the dotted tail has four decimal parts of 0-255, none empty', () => {
    expect(parseIpv6('::ffff:1.2.3.255')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x03ff]);
    expect(parseIpv6('::ffff:0.0.0.0')).toEqual([0, 0, 0, 0, 0, 0xffff, 0, 0]);
    for (const bad of ['::1.2.3.', '::1..2.3', '::.1.2.3', '::1.2.3.a', '::1.2.3.!', '::1.2.3./', '::1.2.3.:', '::1.2.3.256', '::1.2.300.4']) {
      expect(parseIpv6(bad), bad).toBeUndefined();
    }
  });

  it('anything but a string is not an address', () => {
    expect(parseIpv6(42 as unknown as string)).toBeUndefined();
    expect(classifyIp(42 as unknown as string)).toBeUndefined();
    expect(classifyIp(null as unknown as string)).toBeUndefined();
  });
});

describe('classifyIp: the first and last address of each IPv4 range', () => {
  it.each([
    ['100.64.0.0', 'cgnat'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['169.254.0.0', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['169.255.0.0', 'public'],
    ['172.16.0.0', 'private'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.168.0.0', 'private'],
    ['192.168.255.255', 'private'],
    ['192.169.0.0', 'public'],
    ['192.0.0.0', 'ietf-protocol'],
    ['192.0.0.255', 'ietf-protocol'],
    ['192.0.1.0', 'public'],
    ['192.0.2.0', 'documentation'],
    ['192.0.2.255', 'documentation'],
    ['192.0.3.0', 'public'],
    ['198.51.100.0', 'documentation'],
    ['198.51.101.0', 'public'],
    ['203.0.113.0', 'documentation'],
    ['203.0.114.0', 'public'],
    ['198.18.0.0', 'benchmarking'],
    ['198.17.255.255', 'public'],
    ['198.20.0.0', 'public'],
    ['192.88.99.0', 'reserved'],
    ['192.88.99.255', 'reserved'],
    ['192.88.100.0', 'public'],
  ])('%s is %s', (text, expected) => {
    expect(range(text)).toBe(expected);
  });
});

describe('classifyIp: IPv6 prefixes', () => {
  it.each([
    // ::1 only is loopback; the rest of ::/96 is reserved.
    ['::2', 'reserved'],
    ['::1:1', 'reserved'],
    // NAT64 64:ff9b::/96 takes the IPv4 class only when all of its 96 bits match.
    ['64:1::8.8.8.8', 'reserved'],
    ['64:1::7f00:1', 'reserved'],
    ['2600:ff9b::7f00:1', 'public'],
    ['64:ff9b:1::8.8.8.8', 'reserved'],
    ['64:ff9b:0:1:0:0:808:808', 'reserved'],
    ['64:ff9b:0:0:1:0:808:808', 'reserved'],
    ['64:ff9b:0:0:0:1:808:808', 'reserved'],
    ['64:ff9b::a00:1', 'private'],
    // 2001::/23, with 2001:2::/48 benchmarking inside it.
    ['2001:2::1', 'benchmarking'],
    ['2001:2:1::1', 'ietf-protocol'],
    ['2001:1ff::1', 'ietf-protocol'],
    ['2001:200::1', 'public'],
    // 3fff::/20.
    ['3fff:fff::1', 'documentation'],
    ['3fff:1000::1', 'public'],
    // ff00::/8.
    ['ff00::1', 'multicast'],
    ['fe00::1', 'reserved'],
  ])('%s is %s', (text, expected) => {
    expect(range(text)).toBe(expected);
  });

  it('reports no embedded IPv4 address where the prefix does not match', () => {
    expect(classifyIp('64:ff9b:1::8.8.8.8')).toEqual({ version: 6, range: 'reserved' });
    expect(classifyIp('64:ff9b::8.8.8.8')).toEqual({ version: 6, range: 'public', embeddedIpv4: '8.8.8.8' });
  });
});

describe('isRangeAllowed: which policy opens which range', () => {
  it.each(['private', 'cgnat', 'unique-local', 'site-local'] as const)('%s opens with privateNetworks only', (r) => {
    expect(isRangeAllowed(r)).toBe(false);
    expect(isRangeAllowed(r, { loopback: true })).toBe(false);
    expect(isRangeAllowed(r, { privateNetworks: true })).toBe(true);
  });

  it('loopback opens with loopback only', () => {
    expect(isRangeAllowed('loopback', { loopback: true })).toBe(true);
    expect(isRangeAllowed('loopback', { privateNetworks: true })).toBe(false);
  });
});

describe('classifyHost and isHostAllowed: names', () => {
  it('a special suffix counts only as a whole label', () => {
    expect(classifyHost('x.notlocalhost')).toEqual({ kind: 'name' });
    expect(classifyHost('x.notlocal')).toEqual({ kind: 'name' });
    expect(classifyHost('x.notinternal')).toEqual({ kind: 'name' });
    expect(classifyHost('x.myhome.arpa')).toEqual({ kind: 'name' });
    expect(classifyHost('notlocalhost')).toEqual({ kind: 'name', special: 'single-label' });
  });

  it('a name with a dot anywhere, even first, is not a single label', () => {
    expect(classifyHost('.example')).toEqual({ kind: 'name' });
    expect(classifyHost('example')).toEqual({ kind: 'name', special: 'single-label' });
  });

  it('throws a TypeError that says what is wrong for a non-string', () => {
    expect(() => classifyHost(42 as unknown as string)).toThrow(new TypeError('hostname must be a string'));
    expect(() => isHostAllowed(undefined as unknown as string)).toThrow(new TypeError('hostname must be a string'));
  });

  it.each(['printer.local', 'metadata.google.internal', 'router.home.arpa', 'intranet'])('%s opens with privateNetworks only', (host) => {
    expect(isHostAllowed(host)).toBe(false);
    expect(isHostAllowed(host, { loopback: true })).toBe(false);
    expect(isHostAllowed(host, { privateNetworks: true })).toBe(true);
  });

  it('localhost names open with loopback only', () => {
    expect(isHostAllowed('api.localhost')).toBe(false);
    expect(isHostAllowed('api.localhost', { privateNetworks: true })).toBe(false);
    expect(isHostAllowed('api.localhost', { loopback: true })).toBe(true);
  });
});
