/**
 * IP-literal and host-name classification for outbound fetches of URLs that
 * strangers choose (NOTES "Discovery": no requests to private, loopback or
 * link-local addresses). Shared by the isomorphic `DirectoryClient` (which sees
 * only the URL's host) and the Node guarded fetch (which also sees the addresses
 * DNS returns).
 *
 * Ranges follow the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (RFC 6890 and its updates). The rule is "public only when known public": every
 * IPv6 address outside 2000::/3 is treated as reserved, and addresses that embed
 * an IPv4 address (IPv4-mapped, NAT64, 6to4) take the class of the embedded one.
 *
 * Parsers here are linear scans with no regular expressions; they return
 * `undefined` for anything that is not an address and never throw on input.
 */

/** The class of an address. Everything except `public` is refused unless a policy opens it. */
export type IpRange =
  | 'public'
  /** 0.0.0.0, :: */
  | 'unspecified'
  /** 0.0.0.0/8 other than 0.0.0.0 (RFC 791 "this network"; reaches the local host on some systems). */
  | 'this-network'
  /** 127.0.0.0/8, ::1 */
  | 'loopback'
  /** 10/8, 172.16/12, 192.168/16 (RFC 1918). */
  | 'private'
  /** 100.64.0.0/10, carrier-grade NAT shared space (RFC 6598). */
  | 'cgnat'
  /** 169.254/16 (including cloud metadata at 169.254.169.254), fe80::/10. */
  | 'link-local'
  /** fc00::/7 (RFC 4193). */
  | 'unique-local'
  /** fec0::/10, deprecated site-local (RFC 3879). */
  | 'site-local'
  /** 224/4, ff00::/8. */
  | 'multicast'
  /** 255.255.255.255 */
  | 'broadcast'
  /** 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20 (RFC 5737, 3849, 9637). */
  | 'documentation'
  /** 198.18/15, 2001:2::/48 (RFC 2544, 5180). */
  | 'benchmarking'
  /** 192.0.0/24, 2001::/23 (IETF protocol assignments, Teredo, ORCHID). */
  | 'ietf-protocol'
  /** 240/4, 192.88.99/24, IPv4-compatible and IPv4-translated IPv6, 64:ff9b:1::/48, 100::/64, 5f00::/16, anything outside 2000::/3. */
  | 'reserved';

/** What {@link classifyIp} learns about an address. */
export interface IpInfo {
  readonly version: 4 | 6;
  readonly range: IpRange;
  /** For IPv4-mapped, NAT64 and 6to4 addresses: the embedded IPv4 address, dotted. */
  readonly embeddedIpv4?: string;
}

/** Which non-public classes a caller opens (the allow-list of NOTES "Discovery"). */
export interface AddressPolicy {
  /** Open `loopback` addresses and the `localhost` names. */
  readonly loopback?: boolean;
  /** Open `private`, `cgnat`, `unique-local`, `site-local` and the local-only names (`.local`, `.internal`, `.home.arpa`, single-label). */
  readonly privateNetworks?: boolean;
}

// ---------------------------------------------------------------------------
// IPv4

function digitValue(c: number, radix: number): number {
  let v: number;
  if (c >= 0x30 && c <= 0x39) v = c - 0x30;
  else if (radix === 16 && (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66) v = (c | 0x20) - 0x57;
  else return -1;
  return v < radix ? v : -1;
}

/** One part of a WHATWG IPv4 address: decimal, `0x` hex or leading-`0` octal. `-1` when invalid. */
function ipv4Part(text: string, start: number, end: number): number {
  if (start >= end) return -1;
  let radix = 10;
  let i = start;
  if (end - start >= 2 && text.charCodeAt(i) === 0x30 && (text.charCodeAt(i + 1) | 0x20) === 0x78) {
    radix = 16;
    i += 2;
    if (i === end) return 0; // "0x" alone is zero (WHATWG)
  } else if (end - start >= 2 && text.charCodeAt(i) === 0x30) {
    radix = 8;
    i += 1;
  }
  let value = 0;
  for (; i < end; i++) {
    const d = digitValue(text.charCodeAt(i), radix);
    if (d < 0) return -1;
    value = value * radix + d;
    // Anything above 2^32 is invalid in every position; stop before precision is lost.
    if (value > 0xffffffff) return -1;
  }
  return value;
}

/**
 * Parses an IPv4 address the way WHATWG URL parses a host: one to four
 * dot-separated parts in decimal, octal (`0177`) or hex (`0x7f`), the last part
 * filling the remaining bytes (`127.1`, `2130706433`), and one trailing dot
 * allowed. Returns the address as an unsigned 32-bit number.
 *
 * @example
 * parseIpv4('0177.0.0.1'); // 2130706433
 * parseIpv4('example.com'); // undefined
 */
export function parseIpv4(text: string): number | undefined {
  if (typeof text !== 'string') return undefined;
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 0x2e) end--;
  if (end === 0 || end > 64) return undefined;
  const parts: number[] = [];
  let from = 0;
  for (let i = 0; i <= end; i++) {
    if (i === end || text.charCodeAt(i) === 0x2e) {
      if (parts.length === 4) return undefined;
      const v = ipv4Part(text, from, i);
      if (v < 0) return undefined;
      parts.push(v);
      from = i + 1;
    }
  }
  const last = parts.length - 1;
  let address = 0;
  for (let i = 0; i < last; i++) {
    if (parts[i]! > 255) return undefined;
    address = address * 256 + parts[i]!;
  }
  const room = 4 - last;
  if (parts[last]! >= 256 ** room) return undefined;
  return address * 256 ** room + parts[last]!;
}

/** Dotted-quad text of an unsigned 32-bit IPv4 address. */
export function formatIpv4(address: number): string {
  return `${(address >>> 24) & 255}.${(address >>> 16) & 255}.${(address >>> 8) & 255}.${address & 255}`;
}

function inV4(address: number, base: number, bits: number): boolean {
  const size = 2 ** (32 - bits);
  return address >= base && address < base + size;
}

const V4 = (a: number, b: number, c: number, d: number): number => ((a * 256 + b) * 256 + c) * 256 + d;

/** The class of an IPv4 address given as an unsigned 32-bit number (IANA IPv4 Special-Purpose Registry). */
export function classifyIpv4(address: number): IpRange {
  if (address === 0) return 'unspecified';
  if (address === 0xffffffff) return 'broadcast';
  const first = address >>> 24;
  switch (first) {
    case 0:
      return 'this-network';
    case 10:
      return 'private';
    case 127:
      return 'loopback';
  }
  if (first >= 224) return first < 240 ? 'multicast' : 'reserved';
  if (inV4(address, V4(100, 64, 0, 0), 10)) return 'cgnat';
  if (inV4(address, V4(169, 254, 0, 0), 16)) return 'link-local';
  if (inV4(address, V4(172, 16, 0, 0), 12)) return 'private';
  if (inV4(address, V4(192, 168, 0, 0), 16)) return 'private';
  if (inV4(address, V4(192, 0, 0, 0), 24)) return 'ietf-protocol';
  if (inV4(address, V4(192, 0, 2, 0), 24)) return 'documentation';
  if (inV4(address, V4(198, 51, 100, 0), 24)) return 'documentation';
  if (inV4(address, V4(203, 0, 113, 0), 24)) return 'documentation';
  if (inV4(address, V4(198, 18, 0, 0), 15)) return 'benchmarking';
  if (inV4(address, V4(192, 88, 99, 0), 24)) return 'reserved';
  return 'public';
}

// ---------------------------------------------------------------------------
// IPv6

/**
 * Parses an IPv6 address (RFC 4291 §2.2): hex groups, one `::`, an optional
 * dotted IPv4 tail; surrounding brackets and a zone index (`%eth0`, `%25eth0`)
 * are accepted and ignored. Returns the eight 16-bit groups.
 *
 * @example
 * parseIpv6('[::ffff:127.0.0.1]'); // [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]
 */
export function parseIpv6(text: string): number[] | undefined {
  if (typeof text !== 'string') return undefined;
  let start = 0;
  let end = text.length;
  if (end >= 2 && text.charCodeAt(0) === 0x5b && text.charCodeAt(end - 1) === 0x5d) {
    start = 1;
    end -= 1;
  }
  const zone = text.indexOf('%', start);
  if (zone >= 0 && zone < end) end = zone;
  if (end - start < 2 || end - start > 45) return undefined;

  const head: number[] = [];
  const tail: number[] = [];
  let compressed = false;
  let i = start;
  if (text.charCodeAt(i) === 0x3a) {
    if (text.charCodeAt(i + 1) !== 0x3a) return undefined;
    compressed = true;
    i += 2;
    if (i === end) return [0, 0, 0, 0, 0, 0, 0, 0];
  }
  for (;;) {
    const groups = compressed ? tail : head;
    // A group, or a dotted IPv4 tail.
    let j = i;
    while (j < end && text.charCodeAt(j) !== 0x3a && text.charCodeAt(j) !== 0x2e) j++;
    if (j < end && text.charCodeAt(j) === 0x2e) {
      const v4 = parseDottedQuad(text, i, end);
      if (v4 === undefined) return undefined;
      groups.push(Math.floor(v4 / 65536), v4 % 65536);
      i = end;
    } else {
      if (j === i || j - i > 4) return undefined;
      let v = 0;
      for (let k = i; k < j; k++) {
        const d = digitValue(text.charCodeAt(k), 16);
        if (d < 0) return undefined;
        v = v * 16 + d;
      }
      groups.push(v);
      i = j;
    }
    if (head.length + tail.length > 8) return undefined;
    if (i === end) break;
    // i is at ':'
    i++;
    if (text.charCodeAt(i) === 0x3a) {
      if (compressed) return undefined;
      compressed = true;
      i++;
      if (i === end) break;
    } else if (i === end) {
      return undefined; // trailing single ':'
    }
  }
  const count = head.length + tail.length;
  if (compressed ? count > 7 : count !== 8) return undefined;
  const out = head.slice();
  for (let k = count; k < 8; k++) out.push(0);
  for (let k = 0; k < tail.length; k++) out[8 - tail.length + k] = tail[k]!;
  return out;
}

/** Strict dotted-quad (four decimal parts 0–255, no leading zeros) as in an IPv6 tail. */
function parseDottedQuad(text: string, start: number, end: number): number | undefined {
  let value = 0;
  let parts = 0;
  let from = start;
  for (let i = start; i <= end; i++) {
    if (i < end && text.charCodeAt(i) !== 0x2e) continue;
    const len = i - from;
    if (len === 0 || len > 3 || (len > 1 && text.charCodeAt(from) === 0x30)) return undefined;
    let part = 0;
    for (let k = from; k < i; k++) {
      const c = text.charCodeAt(k);
      if (c < 0x30 || c > 0x39) return undefined;
      part = part * 10 + (c - 0x30);
    }
    if (part > 255) return undefined;
    value = value * 256 + part;
    parts++;
    from = i + 1;
  }
  return parts === 4 ? value : undefined;
}

function embedded(groups: readonly number[], at: number): number {
  return groups[at]! * 65536 + groups[at + 1]!;
}

/** The class of an IPv6 address given as eight 16-bit groups (IANA IPv6 Special-Purpose Registry). */
export function classifyIpv6(groups: readonly number[]): IpInfo {
  const g = groups;
  const zeroTo = (n: number): boolean => {
    for (let i = 0; i < n; i++) if (g[i] !== 0) return false;
    return true;
  };
  if (zeroTo(8)) return { version: 6, range: 'unspecified' };
  if (zeroTo(7) && g[7] === 1) return { version: 6, range: 'loopback' };
  if (zeroTo(5) && g[5] === 0xffff) {
    // ::ffff:0:0/96, IPv4-mapped: the connection goes to the IPv4 address.
    const v4 = embedded(g, 6);
    return { version: 6, range: classifyIpv4(v4), embeddedIpv4: formatIpv4(v4) };
  }
  if (zeroTo(6)) return { version: 6, range: 'reserved' }; // ::/96, deprecated IPv4-compatible
  if (zeroTo(4) && g[4] === 0xffff && g[5] === 0) return { version: 6, range: 'reserved' }; // ::ffff:0:0:0/96, SIIT
  const g0 = g[0]!;
  if (g0 === 0x64 && g[1] === 0xff9b) {
    if (g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) {
      // 64:ff9b::/96, well-known NAT64 prefix (RFC 6052): translated to the embedded IPv4 address.
      const v4 = embedded(g, 6);
      return { version: 6, range: classifyIpv4(v4), embeddedIpv4: formatIpv4(v4) };
    }
    return { version: 6, range: 'reserved' }; // 64:ff9b:1::/48, local-use NAT64 (RFC 8215)
  }
  if (g0 === 0x2002) {
    // 2002::/16, 6to4 (RFC 3056): the embedded IPv4 address is the relay's target.
    const v4 = embedded(g, 1);
    return { version: 6, range: classifyIpv4(v4), embeddedIpv4: formatIpv4(v4) };
  }
  if (g0 === 0x2001) {
    const g1 = g[1]!;
    if (g1 === 0x0db8) return { version: 6, range: 'documentation' };
    if (g1 === 0x0002 && g[2] === 0) return { version: 6, range: 'benchmarking' };
    if (g1 < 0x0200) return { version: 6, range: 'ietf-protocol' }; // 2001::/23
  }
  if (g0 === 0x3fff && g[1]! < 0x1000) return { version: 6, range: 'documentation' }; // 3fff::/20
  if (g0 >= 0xff00) return { version: 6, range: 'multicast' };
  if ((g0 & 0xffc0) === 0xfe80) return { version: 6, range: 'link-local' };
  if ((g0 & 0xffc0) === 0xfec0) return { version: 6, range: 'site-local' };
  if ((g0 & 0xfe00) === 0xfc00) return { version: 6, range: 'unique-local' };
  if (g0 === 0x5f00) return { version: 6, range: 'reserved' }; // SRv6 SIDs (RFC 9602)
  // Global unicast is 2000::/3; everything else (100::/64 discard included) is not routable.
  if ((g0 & 0xe000) !== 0x2000) return { version: 6, range: 'reserved' };
  return { version: 6, range: 'public' };
}

/**
 * Classifies an IP address written as text: IPv4 in any WHATWG form (`127.0.0.1`,
 * `2130706433`, `0177.0.0.1`, `0x7f.1`) or IPv6 with or without brackets.
 * `undefined` when `text` is not an IP address (a host name).
 *
 * @example
 * classifyIp('169.254.169.254')?.range; // 'link-local'
 * classifyIp('[::ffff:10.0.0.1]'); // { version: 6, range: 'private', embeddedIpv4: '10.0.0.1' }
 */
export function classifyIp(text: string): IpInfo | undefined {
  if (typeof text !== 'string') return undefined;
  if (text.indexOf(':') >= 0) {
    const groups = parseIpv6(text);
    return groups === undefined ? undefined : classifyIpv6(groups);
  }
  const v4 = parseIpv4(text);
  return v4 === undefined ? undefined : { version: 4, range: classifyIpv4(v4) };
}

/** True when `range` may be contacted under `policy` (only `public` without one). */
export function isRangeAllowed(range: IpRange, policy?: AddressPolicy): boolean {
  switch (range) {
    case 'public':
      return true;
    case 'loopback':
      return policy?.loopback === true;
    case 'private':
    case 'cgnat':
    case 'unique-local':
    case 'site-local':
      return policy?.privateNetworks === true;
    default:
      // Link-local (cloud metadata), unspecified, multicast and the reserved
      // ranges stay closed: no local use needs them, and they are the classic
      // SSRF targets. An explicit host allow-list entry is the only way in.
      return false;
  }
}

/**
 * True when an address (as DNS or a socket reports it) may be contacted under
 * `policy`. Anything that is not an IP address is refused.
 *
 * @example
 * isAddressAllowed('10.1.2.3'); // false
 * isAddressAllowed('127.0.0.1', { loopback: true }); // true
 */
export function isAddressAllowed(address: string, policy?: AddressPolicy): boolean {
  const info = classifyIp(address);
  return info !== undefined && isRangeAllowed(info.range, policy);
}

/** How a URL host name (not an IP literal) is special. */
export type SpecialHostName =
  /** `localhost`, `*.localhost` (RFC 6761 §6.3): always the local host. */
  | 'localhost'
  /** `*.local` (mDNS, RFC 6762), `*.internal` (ICANN private use), `*.home.arpa` (RFC 8375). */
  | 'local-domain'
  /** A name without a dot: resolved through local search domains, never a public site. */
  | 'single-label';

/** What {@link classifyHost} learns about a URL host. */
export type HostInfo = { readonly kind: 'ip'; readonly ip: IpInfo } | { readonly kind: 'name'; readonly special?: SpecialHostName };

function endsWithLabel(name: string, suffix: string): boolean {
  return name === suffix || (name.length > suffix.length && name.endsWith(suffix) && name.charCodeAt(name.length - suffix.length - 1) === 0x2e);
}

/**
 * Classifies a URL host (`URL.hostname`: lowercase, IPv6 in brackets): an IP
 * literal with its range, or a name, flagged when it is local by definition.
 * A trailing dot is ignored.
 *
 * @example
 * classifyHost('[::1]'); // { kind: 'ip', ip: { version: 6, range: 'loopback' } }
 * classifyHost('api.localhost'); // { kind: 'name', special: 'localhost' }
 * @throws TypeError when `hostname` is not a string.
 */
export function classifyHost(hostname: string): HostInfo {
  if (typeof hostname !== 'string') throw new TypeError('hostname must be a string');
  let name = hostname.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  const ip = classifyIp(name);
  if (ip !== undefined) return { kind: 'ip', ip };
  if (endsWithLabel(name, 'localhost')) return { kind: 'name', special: 'localhost' };
  if (endsWithLabel(name, 'local') || endsWithLabel(name, 'internal') || endsWithLabel(name, 'home.arpa')) {
    return { kind: 'name', special: 'local-domain' };
  }
  if (name.indexOf('.') < 0) return { kind: 'name', special: 'single-label' };
  return { kind: 'name' };
}

/**
 * True when a URL host may be contacted under `policy`: public IP literals and
 * ordinary names (whose addresses a DNS-level guard still has to check),
 * loopback and `localhost` with `policy.loopback`, private ranges and local-only
 * names with `policy.privateNetworks`.
 *
 * @throws TypeError when `hostname` is not a string.
 * @example
 * isHostAllowed(new URL('https://0177.0.0.1/').hostname); // false (loopback)
 */
export function isHostAllowed(hostname: string, policy?: AddressPolicy): boolean {
  const info = classifyHost(hostname);
  if (info.kind === 'ip') return isRangeAllowed(info.ip.range, policy);
  switch (info.special) {
    case undefined:
      return true;
    case 'localhost':
      return policy?.loopback === true;
    default:
      return policy?.privateNetworks === true;
  }
}
