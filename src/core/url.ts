/**
 * URL helpers shared by the Signature-Agent codec and discovery: a strict RFC 3986
 * URI-reference check, safe WHATWG parsing, and identifier normalisation
 * (RFC 3986 §6.2.2–6.2.3).
 *
 * Everything here runs on attacker-controlled header values: single linear scans,
 * no regular expressions, and WHATWG `URL` failures turned into `undefined` or a
 * `BotsigError('ERR_URL_INVALID')`.
 */
import { BotsigError } from './errors';

// Character classes of RFC 3986 §2, as a 128-entry table:
// 1 = unreserved, 2 = sub-delim, 4 = gen-delim.
const UNRESERVED = 1;
const SUB_DELIM = 2;
const GEN_DELIM = 4;
const CLASS = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = UNRESERVED; // DIGIT
for (let c = 0x41; c <= 0x5a; c++) CLASS[c] = UNRESERVED; // ALPHA upper
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = UNRESERVED; // ALPHA lower
for (const ch of '-._~') CLASS[ch.charCodeAt(0)] = UNRESERVED;
for (const ch of "!$&'()*+,;=") CLASS[ch.charCodeAt(0)] = SUB_DELIM;
for (const ch of ':/?#[]@') CLASS[ch.charCodeAt(0)] = GEN_DELIM;

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** pchar without the percent-encoding case: unreserved, sub-delims, ':' and '@' (RFC 3986 §3.3). */
function isPchar(c: number): boolean {
  if (c >= 128) return false;
  const k = CLASS[c]!;
  return k === UNRESERVED || k === SUB_DELIM || c === 0x3a || c === 0x40;
}

/**
 * Checks `text[start, end)` for characters allowed by `allowed` plus valid
 * percent-encodings. Returns false on anything else.
 */
function scan(text: string, start: number, end: number, allowed: (c: number) => boolean): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25 /* % */) {
      if (i + 2 >= end) return false;
      if (!isHex(text.charCodeAt(i + 1)) || !isHex(text.charCodeAt(i + 2))) return false;
      i += 2;
      continue;
    }
    if (!allowed(c)) return false;
  }
  return true;
}

function isRegNameChar(c: number): boolean {
  if (c >= 128) return false;
  const k = CLASS[c]!;
  return k === UNRESERVED || k === SUB_DELIM;
}

function isUserinfoChar(c: number): boolean {
  return isRegNameChar(c) || c === 0x3a;
}

function isQueryChar(c: number): boolean {
  return isPchar(c) || c === 0x2f || c === 0x3f;
}

function isPathChar(c: number): boolean {
  return isPchar(c) || c === 0x2f;
}

/** IP-literal body (RFC 3986 §3.2.2): IPv6 hex/colon/dot, or IPvFuture `v` HEX "." chars. Checked loosely by charset. */
function isIpLiteralChar(c: number): boolean {
  return isHex(c) || c === 0x3a || c === 0x2e || c === 0x76 || c === 0x56 || isRegNameChar(c);
}

/** authority = [ userinfo "@" ] host [ ":" port ] (RFC 3986 §3.2). */
function isAuthority(text: string, start: number, end: number): boolean {
  let hostStart = start;
  const at = text.lastIndexOf('@', end - 1);
  if (at >= start) {
    if (!scan(text, start, at, isUserinfoChar)) return false;
    hostStart = at + 1;
  }
  let portStart = -1;
  if (text.charCodeAt(hostStart) === 0x5b /* [ */) {
    const close = text.indexOf(']', hostStart);
    if (close < 0 || close >= end) return false;
    for (let i = hostStart + 1; i < close; i++) if (!isIpLiteralChar(text.charCodeAt(i))) return false;
    if (close + 1 < end) {
      if (text.charCodeAt(close + 1) !== 0x3a) return false;
      portStart = close + 2;
    }
  } else {
    const colon = text.indexOf(':', hostStart);
    const hostEnd = colon >= 0 && colon < end ? colon : end;
    if (!scan(text, hostStart, hostEnd, isRegNameChar)) return false;
    if (hostEnd < end) portStart = hostEnd + 1;
  }
  if (portStart >= 0) {
    for (let i = portStart; i < end; i++) if (!isDigit(text.charCodeAt(i))) return false;
  }
  return true;
}

/**
 * True when `text` is a URI-reference (RFC 3986 §4.1): a URI or a relative
 * reference, with only the characters RFC 3986 allows and well-formed
 * percent-encodings. Linear time; no regular expressions.
 *
 * @example
 * isUriReference('https://agent.example'); // true
 * isUriReference('https://agent example'); // false (space)
 */
export function isUriReference(text: string): boolean {
  if (typeof text !== 'string') throw new TypeError('isUriReference expects a string');
  const n = text.length;
  // Split off the fragment first: fragment = *( pchar / "/" / "?" ).
  let hash = text.indexOf('#');
  if (hash < 0) hash = n;
  else if (!scan(text, hash + 1, n, isQueryChar)) return false;
  let query = text.indexOf('?');
  if (query < 0 || query > hash) query = hash;
  else if (!scan(text, query + 1, hash, isQueryChar)) return false;

  // Scheme: present when a ':' comes before any '/', '?' or '#'.
  let i = 0;
  let firstDelim = query;
  const slash = text.indexOf('/');
  if (slash >= 0 && slash < firstDelim) firstDelim = slash;
  const colon = text.indexOf(':');
  if (colon >= 0 && colon < firstDelim) {
    if (colon === 0 || !isAlpha(text.charCodeAt(0))) return false;
    for (let j = 1; j < colon; j++) {
      const c = text.charCodeAt(j);
      if (!isAlpha(c) && !isDigit(c) && c !== 0x2b && c !== 0x2d && c !== 0x2e) return false;
    }
    i = colon + 1;
  }
  // hier-part / relative-part: "//" authority path-abempty, or a path.
  if (text.charCodeAt(i) === 0x2f && text.charCodeAt(i + 1) === 0x2f && i + 1 < query) {
    const authStart = i + 2;
    let authEnd = text.indexOf('/', authStart);
    if (authEnd < 0 || authEnd > query) authEnd = query;
    if (!isAuthority(text, authStart, authEnd)) return false;
    i = authEnd;
  }
  return scan(text, i, query, isPathChar);
}

/** Parses an absolute URL with WHATWG `URL`; `undefined` instead of throwing. */
export function tryParseUrl(text: string): URL | undefined {
  if (typeof text !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  // '%' is never valid in a special-scheme host; Chromium keeps it (for a space, say) where Node and workerd throw.
  if ((url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.includes('%')) return undefined;
  return url;
}

function hexDigit(c: number): number {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57;
}

const HEX_UPPER = '0123456789ABCDEF';

/**
 * Percent-encoding normalisation (RFC 3986 §6.2.2.1–6.2.2.2): uppercase hex
 * digits, and decode octets of unreserved characters. Other octets stay encoded:
 * decoding `%2F` would change the path structure.
 */
function normalizePercentEncoding(text: string): string {
  if (text.indexOf('%') < 0) return text;
  let out = '';
  let from = 0;
  const n = text.length;
  for (let i = 0; i + 2 < n; i++) {
    if (text.charCodeAt(i) !== 0x25) continue;
    const h = text.charCodeAt(i + 1);
    const l = text.charCodeAt(i + 2);
    if (!isHex(h) || !isHex(l)) continue;
    const byte = (hexDigit(h) << 4) | hexDigit(l);
    out += text.slice(from, i);
    out += byte < 128 && CLASS[byte] === UNRESERVED ? String.fromCharCode(byte) : '%' + HEX_UPPER[byte >> 4]! + HEX_UPPER[byte & 15]!;
    from = i + 3;
    i += 2;
  }
  return out + text.slice(from);
}

/**
 * Normalises an absolute URL for use as an identifier (RFC 3986 §6.2.2–6.2.3):
 * lowercase scheme and host, percent-encoding normalised, dot-segments removed,
 * the scheme's default port dropped, an empty path made `/`. Parsing is WHATWG
 * `URL` (which also converts internationalised host names to A-labels).
 *
 * @throws BotsigError `ERR_URL_INVALID` when `url` is not an absolute URL.
 * @example
 * normalizeUrl('HTTPS://Agent.Example:443/a/./b/../%7efoo'); // 'https://agent.example/a/~foo'
 */
export function normalizeUrl(url: string): string {
  if (typeof url !== 'string') throw new TypeError('normalizeUrl expects a string');
  const parsed = tryParseUrl(url);
  if (parsed === undefined) throw new BotsigError('ERR_URL_INVALID', 'not an absolute URL');
  return normalizePercentEncoding(parsed.href);
}

/**
 * The URL without its fragment (and, with `dropQuery`, without its query), as
 * WHATWG serialises it.
 *
 * @throws BotsigError `ERR_URL_INVALID` when `url` is not an absolute URL.
 */
export function stripUrlSuffix(url: string, dropQuery: boolean): string {
  const parsed = tryParseUrl(url);
  if (parsed === undefined) throw new BotsigError('ERR_URL_INVALID', 'not an absolute URL');
  parsed.hash = '';
  if (dropQuery) parsed.search = '';
  return parsed.href;
}
