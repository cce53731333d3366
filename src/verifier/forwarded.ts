/**
 * What a server received, checked: `Forwarded` (RFC 7239 §4) elements, whether a text
 * can stand as the authority of an http(s) URL, and whether a path would be read as
 * another path by the URL parser. Bounded input.
 */
import { charTable } from '../core/char-table';

/** Most bytes of a proxy header read; a longer one says nothing. */
export const MAX_FORWARDED_LENGTH = 8192;
/** Most elements (list items) of a proxy header read; more and it says nothing. */
export const MAX_FORWARDED_ELEMENTS = 64;

export interface ForwardedElement {
  host?: string;
  proto?: string;
}

// RFC 9110 §5.6.2 tchar
const TCHAR = /* @__PURE__ */ charTable("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");

function isOws(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/**
 * `Forwarded` (RFC 7239 §4) as a list of elements with their `host` and `proto`.
 * One linear pass; `undefined` when the field is malformed (then it says nothing).
 * Unquoted values are read up to the next separator, since proxies emit
 * `host=example.com:8443` unquoted although the grammar asks for quotes.
 */
export function parseForwarded(text: string): ForwardedElement[] | undefined {
  const out: ForwardedElement[] = [];
  let element: ForwardedElement = {};
  let pairs = 0;
  const n = text.length;
  let i = 0;
  for (;;) {
    while (i < n && isOws(text.charCodeAt(i))) i++;
    if (i >= n) break;
    let c = text.charCodeAt(i);
    if (c === 0x2c /* , */) {
      out.push(element);
      if (out.length > MAX_FORWARDED_ELEMENTS) return undefined;
      element = {};
      i++;
      continue;
    }
    if (c === 0x3b /* ; */) {
      i++;
      continue;
    }
    const nameStart = i;
    while (i < n && (c = text.charCodeAt(i)) < 128 && TCHAR[c] === 1) i++;
    if (i === nameStart || i >= n || text.charCodeAt(i) !== 0x3d /* = */) return undefined;
    const name = text.slice(nameStart, i).toLowerCase();
    i++;
    let value: string;
    if (i < n && text.charCodeAt(i) === 0x22 /* " */) {
      i++;
      let v = '';
      let closed = false;
      while (i < n) {
        c = text.charCodeAt(i);
        if (c === 0x22) {
          closed = true;
          i++;
          break;
        }
        if (c === 0x5c /* \ */) {
          i++;
          if (i >= n) return undefined;
        }
        v += text[i];
        i++;
      }
      if (!closed) return undefined;
      value = v;
    } else {
      const valueStart = i;
      while (i < n && (c = text.charCodeAt(i)) !== 0x2c && c !== 0x3b && c !== 0x22 && !isOws(c)) i++;
      if (i === valueStart) return undefined;
      value = text.slice(valueStart, i);
    }
    if (++pairs > MAX_FORWARDED_ELEMENTS * 8) return undefined;
    if (name === 'host' && element.host === undefined) element.host = value;
    else if (name === 'proto' && element.proto === undefined) element.proto = value;
  }
  out.push(element);
  return out;
}

// RFC 3986 §3.2.2 reg-name characters, plus ':' for the port and brackets for IP literals.
const AUTHORITY_CHAR = /* @__PURE__ */ charTable("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=%:[]");

/**
 * True when `text` can stand as the authority of an http(s) URL as received in
 * `Host`, `:authority` or a proxy header: `host[:port]` without userinfo, path,
 * query, fragment, whitespace or non-ASCII, and brackets only around an IP literal.
 * @internal
 */
export function isValidAuthority(text: string): boolean {
  const n = text.length;
  if (n === 0 || n > 262) return false;
  let close = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || AUTHORITY_CHAR[c] !== 1) return false;
    if (c === 0x5b /* [ */ && i !== 0) return false;
    if (c === 0x5d /* ] */) {
      if (text.charCodeAt(0) !== 0x5b || close >= 0) return false;
      close = i;
    }
  }
  if (text.charCodeAt(0) === 0x5b && close < 0) return false;
  // After the host: nothing, or ':' and digits.
  let portStart = -1;
  if (close >= 0) {
    if (close + 1 < n) {
      if (text.charCodeAt(close + 1) !== 0x3a) return false;
      portStart = close + 2;
    }
  } else {
    const colon = text.indexOf(':');
    if (colon === 0) return false;
    if (colon > 0) portStart = colon + 1;
  }
  if (portStart >= 0) {
    if (portStart >= n || n - portStart > 5) return false;
    for (let i = portStart; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return false;
    }
  }
  return true;
}

// A dot segment (also percent-encoded, as the URL parser reads it) or a backslash (which it reads as "/").
const AMBIGUOUS_PATH = /\\|(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * True when the path of a received request-target (`path?query`) would be read as
 * another path by the URL parser, which removes dot segments (`/a/../b`, `/a/%2e%2e/b`) and reads a backslash
 * as a slash, while routers of `node:http` frameworks and proxies pass and match it as
 * sent. The signature base's `@path` is the parsed one, so such a request must not
 * verify: a signature over `/b` would vouch for what a router serves from `/a/…`.
 * @internal
 */
export function isAmbiguousPath(target: string): boolean {
  const query = target.indexOf('?');
  return AMBIGUOUS_PATH.test(query < 0 ? target : target.slice(0, query));
}
