/**
 * Sites: the unit that costs an attacker money. A registrable domain ("eTLD+1",
 * RFC 6265 §5.3's public suffix plus one label) has to be bought; host names under it,
 * URLs on them and keys are free. Stores that share capacity between agents (the nonce
 * stores) share it by site. Isomorphic: no `node:*`.
 */
import { SECOND_LEVEL_LABELS, SECOND_LEVEL_SUFFIXES, WILDCARD_EXCEPTIONS, WILDCARD_TLDS } from './public-suffixes';

function suffixSet(): ReadonlySet<string> {
  const set = new Set<string>();
  // `letters:tld,…` groups: the label each letter names (a-z, then A-Z) under every TLD of the group.
  for (const group of SECOND_LEVEL_SUFFIXES.join(';').split(';')) {
    const [letters, tlds] = group.split(':') as [string, string];
    for (const tld of tlds.split(',')) {
      for (let i = 0; i < letters.length; i++) {
        const c = letters.charCodeAt(i);
        set.add(SECOND_LEVEL_LABELS[c >= 0x61 ? c - 0x61 : c - 0x41 + 26] + '.' + tld);
      }
    }
  }
  return set;
}

interface SuffixTables {
  readonly suffixes: ReadonlySet<string>;
  readonly wildcards: ReadonlySet<string>;
  readonly exceptions: ReadonlySet<string>;
}

// Built on first use (a name of three labels or more), never changed afterwards: a process
// whose agents are all `name.tld` never builds them (1,167 entries, about half a millisecond
// of a cold start).
let TABLES: SuffixTables | undefined;

/**
 * The registrable domain of a host name: the public suffix and one more label
 * (`a.b.example.co.uk` → `example.co.uk`, `api.chatgpt.com` → `chatgpt.com`). The
 * public suffixes known are a subset of the ICANN section of the Public Suffix List
 * (see public-suffixes.ts): every TLD, the common second levels under them (`co.uk`,
 * `com.au`, …) and the wildcard TLDs. A suffix not known makes its registrants share a
 * site; a name is never split into more sites than the list would give. The private
 * section is ignored on purpose: `x.github.io` and `y.github.io` are one site, since
 * their subdomains are free.
 *
 * An IPv4 literal (`192.0.2.1`) is its own site, as is a single label or a name that is
 * itself a public suffix; an IPv6 literal's site is its /32 (see {@link ipv6Site}).
 * Lowercases; a trailing dot is ignored.
 */
export function registrableDomain(host: string): string {
  let name = host.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name.startsWith('[')) return ipv6Site(name);
  if (isIPv4(name)) return name;
  const last = name.lastIndexOf('.');
  if (last <= 0) return name;
  const second = name.lastIndexOf('.', last - 1);
  if (second < 0) return name;
  // Three labels when the last two are a public suffix.
  const lastTwo = name.slice(second + 1);
  const t = (TABLES ??= { suffixes: suffixSet(), wildcards: new Set(WILDCARD_TLDS), exceptions: new Set(WILDCARD_EXCEPTIONS) });
  if (!t.suffixes.has(lastTwo) && !(t.wildcards.has(name.slice(last + 1)) && !t.exceptions.has(lastTwo))) return lastTwo;
  const third = name.lastIndexOf('.', second - 1);
  return third < 0 ? name : name.slice(third + 1);
}

/**
 * The site of an IPv6 literal: its /32 (`[2001:db8:1234::1]` → `[2001:db8::/32]`). Addresses,
 * and the prefixes one network holds, are free: a server comes with a /64, tunnel brokers
 * hand out /48s at no cost. A /32 is what a regional registry allocates. A literal that does
 * not parse is its own site.
 */
function ipv6Site(literal: string): string {
  const text = literal.endsWith(']') ? literal.slice(1, -1) : literal.slice(1);
  // The groups before `::` (all eight without one): a missing first or second group is zero.
  const compressed = text.indexOf('::');
  const head = compressed < 0 ? text.split(':') : compressed === 0 ? [] : text.slice(0, compressed).split(':');
  const first = head[0] ?? '0';
  const second = head[1] ?? (compressed < 0 ? undefined : '0');
  if (second === undefined || !HEX_GROUP.test(first) || !HEX_GROUP.test(second)) return literal;
  return `[${parseInt(first, 16).toString(16)}:${parseInt(second, 16).toString(16)}::/32]`;
}

const HEX_GROUP = /^[0-9a-f]{1,4}$/;

function isIPv4(name: string): boolean {
  return /^[0-9.]+$/.test(name);
}

/**
 * The site an agent identity belongs to, for sharing capacity: the registrable domain
 * of an `http:`/`https:` URL's host, or the identity itself for anything else (a key
 * thumbprint, which the operator vouched for through its static keys or its resolver).
 */
export function siteOfAgent(agent: string): string {
  const head = agent.slice(0, 8).toLowerCase();
  const start = head === 'https://' ? 8 : head.startsWith('http://') ? 7 : 0;
  if (start === 0) return agent;
  let end = agent.length;
  for (let i = start; i < agent.length; i++) {
    const c = agent.charCodeAt(i);
    // '/', '?', '#'
    if (c === 47 || c === 63 || c === 35) {
      end = i;
      break;
    }
  }
  let authority = agent.slice(start, end);
  const at = authority.lastIndexOf('@');
  if (at >= 0) authority = authority.slice(at + 1);
  let host = authority;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    host = close < 0 ? authority : authority.slice(0, close + 1);
  } else {
    const colon = authority.indexOf(':');
    if (colon >= 0) host = authority.slice(0, colon);
  }
  return host === '' ? agent : registrableDomain(host);
}
