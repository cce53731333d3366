/**
 * Which peers may speak for the client: the reverse proxies listed in the gate's
 * `trustedProxies` (IP addresses or CIDR ranges). Only a request whose connection
 * comes from one of them is judged from `X-Forwarded-*` (or Envoy's conventions);
 * trust is never implied by a header. IPv4-mapped IPv6 peers (`::ffff:127.0.0.1`,
 * what a dual-stack listener reports) match their IPv4 entries.
 */
import { parseIpv4, parseIpv6 } from '../core/ip';

interface Range {
  /** 4 bytes (IPv4) or 16 (IPv6). */
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

function bytesOf(text: string): Uint8Array | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return new Uint8Array([(v4 >>> 24) & 255, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255]);
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const groups = parseIpv6(bare.split('%', 1)[0]!);
  if (groups === undefined) return undefined;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >>> 8;
    out[2 * i + 1] = g & 255;
  });
  // ::ffff:a.b.c.d is the IPv4 peer a dual-stack socket reports.
  if (out.subarray(0, 10).every((b) => b === 0) && out[10] === 255 && out[11] === 255) return out.slice(12);
  return out;
}

/**
 * Parses one `trustedProxies` entry (`10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`).
 * @returns the range, or a reason it is not one.
 */
export function parseTrustedProxy(entry: string): Range | string {
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const bytes = bytesOf(address.trim());
  if (bytes === undefined) return 'is not an IP address or CIDR range';
  const max = bytes.length * 8;
  let prefix = max;
  if (slash >= 0) {
    const text = entry.slice(slash + 1);
    if (!/^\d{1,3}$/.test(text) || Number(text) > max) return `has a prefix length that is not 0–${max}`;
    prefix = Number(text);
  }
  return { bytes, prefix };
}

function inRange(address: Uint8Array, range: Range): boolean {
  if (address.length !== range.bytes.length) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 255 : (0xff << (8 - bits)) & 255;
    if ((address[i]! & mask) !== (range.bytes[i]! & mask)) return false;
  }
  return true;
}

/** A predicate on the peer address of a connection: true only for an address inside one of `ranges`. */
export function trustedPeers(ranges: readonly Range[]): (remoteAddress: string | undefined) => boolean {
  const cache = new Map<string, boolean>();
  return (remoteAddress) => {
    if (remoteAddress === undefined) return false;
    const known = cache.get(remoteAddress);
    if (known !== undefined) return known;
    const bytes = bytesOf(remoteAddress);
    const trusted = bytes !== undefined && ranges.some((r) => inRange(bytes, r));
    // Peers are the proxies in front (few); the bound only matters if the gate is exposed.
    if (cache.size >= 1024) cache.clear();
    cache.set(remoteAddress, trusted);
    return trusted;
  };
}

export type { Range as TrustedRange };
