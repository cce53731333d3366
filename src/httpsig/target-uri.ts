/**
 * The target URI of a request (RFC 9421 §2.2.2-§2.2.8): its parts as derived
 * components use them, with the WHATWG URL parser's normalisation, parsed lazily and
 * once per message.
 */
import { charTable } from '../core/char-table';
import { BotsigError } from '../core/errors';

/** The parts of a request's target URI that derived components use (RFC 9421 §2.2). */
export interface TargetUri {
  /** Lowercase scheme without `:`. */
  readonly scheme: string;
  /** Lowercase host, with the port unless it is the scheme's default. */
  readonly authority: string;
  /** Absolute path, never empty (RFC 9110 §4.2.3: empty path is `/`). */
  readonly path: string;
  /** Query without the leading `?`; `undefined` when the URI has no `?`. */
  readonly query: string | undefined;
  /** Scheme, authority, path and query; no fragment. */
  readonly href: string;
}

/** A constructor that returns the object it is given: a subclass then adds its private fields to that object. */
class Stamp {
  constructor(o: object) {
    return o;
  }
}

/**
 * The parse of a message's URL, held on the message itself in private fields (added by
 * {@link ParsedTarget.hold}): invisible to any other code, to enumeration, copies and
 * comparisons, and added as cheaply as an ordinary property (Object.defineProperty,
 * which a non-enumerable property otherwise needs, costs more than the parse).
 */
class ParsedTarget extends Stamp {
  #url: string | undefined;
  #target: TargetUri | undefined;

  /** The parse held on `message`, when it was made from `url`. */
  static of(message: object, url: string): TargetUri | undefined {
    return #url in message && (message as ParsedTarget).#url === url ? (message as ParsedTarget).#target : undefined;
  }

  static hold(message: object, url: string, target: TargetUri): void {
    // The stamped object is used, not only made: a minifier drops a `new` whose result
    // goes unused when it judges the constructor free of side effects.
    const held = #url in message ? (message as ParsedTarget) : new ParsedTarget(message);
    held.#url = url;
    held.#target = target;
  }
}

/**
 * The parsed target URI of a request message (any object with its `url`, such as an
 * `HttpMessage`), computed once per message.
 *
 * @throws BotsigError `ERR_MESSAGE_INVALID` when the message has no URL or it is not an
 *   absolute URI.
 */
export function messageTarget(message: { readonly url?: string | undefined }): TargetUri {
  const url = message.url;
  if (url === undefined) throw new BotsigError('ERR_MESSAGE_INVALID', 'the message has no target URI');
  const held = ParsedTarget.of(message, url);
  if (held !== undefined) return held;
  const target = parseTargetUri(url);
  if (target === undefined) throw notAbsolute();
  // Kept on the message (every derived component and check of one message reads it),
  // checked against the URL on each use. A frozen message is parsed each time.
  if (Object.isExtensible(message)) ParsedTarget.hold(message, url, target);
  return target;
}

// Characters that the WHATWG URL parser leaves untouched in a path or query of an
// http(s) URL. Anything else sends the input to the full parser.
const SAFE_PATH = /* @__PURE__ */ charTable("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&()*+,;=:@/%'");
const SAFE_QUERY = /* @__PURE__ */ charTable('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&()*+,;=:@/%?');

/**
 * Parses an absolute URI into the parts derived components need, with the WHATWG URL
 * parser's normalisation (lowercase scheme and host, default port dropped, empty path
 * as `/`, IDNA, percent-encoding). Common already-normal `http(s)` URLs take a scan
 * that gives the same result without allocating a `URL`; the rest go through `URL`.
 * Returns `undefined` for anything that is not an absolute URI with a host.
 */
export function parseTargetUri(url: string): TargetUri | undefined {
  return fastTarget(url) ?? slowTarget(url);
}

/**
 * The end of the authority of an already-normal `http(s)` URL (`s` after its scheme and
 * "//", from `start`): a lowercase host name whose last label is no number, then a port in
 * range without leading zeros. -1 when the scan cannot decide (the URL parser then does).
 */
function authorityEnd(s: string, start: number): number {
  const n = s.length;
  let i = start;
  let prev = 46; // '.', so a leading dot or ".." falls back
  let last = 0;
  let labelStart = i;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45) {
      // a-z 0-9 -
    } else if (c === 46) {
      if (prev === 46) return -1;
      labelStart = i + 1;
    } else {
      break;
    }
    prev = c;
    last = c;
  }
  // The last label must end in a letter and not start with "0x": a last label that is a
  // number (decimal, or 0x hex such as "0xa") makes the host IPv4 to WHATWG, or invalid.
  if (i === start || !(last >= 97 && last <= 122)) return -1;
  if (s.charCodeAt(labelStart) === 48 && s.charCodeAt(labelStart + 1) === 120) return -1;
  if (i < n && s.charCodeAt(i) === 58) {
    const portStart = ++i;
    let port = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      port = port * 10 + (c - 48);
      if (port > 65535) return -1;
    }
    const len = i - portStart;
    if (len === 0 || (len > 1 && s.charCodeAt(portStart) === 48)) return -1;
  }
  return i;
}

/** The authority from `start` to `end` (see {@link authorityEnd}), without the scheme's default port. */
function authorityText(s: string, start: number, end: number): string {
  const text = s.slice(start, end);
  // ":443" after https (start 8), ":80" after http (start 7).
  return text.endsWith(start === 8 ? ':443' : ':80') ? text.slice(0, text.lastIndexOf(':')) : text;
}

/** The scheme's end ("://" included) of a URL starting `https://` or `http://`, else 0. */
function schemeEnd(s: string): number {
  return s.startsWith('https://') ? 8 : s.startsWith('http://') ? 7 : 0;
}

function notAbsolute(): BotsigError {
  return new BotsigError('ERR_MESSAGE_INVALID', 'the message target URI is not an absolute URI');
}

/**
 * The `@authority` of an absolute URI (RFC 9421 §2.2.3), as {@link parseTargetUri} gives it,
 * without the rest of the parse: for a signer that covers `@authority` only.
 *
 * @throws BotsigError `ERR_MESSAGE_INVALID` for anything that is not an absolute URI with a
 *   host, as {@link messageTarget}.
 */
export function urlAuthority(url: string): string {
  const start = schemeEnd(url);
  const end = start === 0 ? -1 : authorityEnd(url, start);
  if (end !== -1) {
    // The authority ends at "/", "?", "#" or the end; anything else is for the URL parser.
    const c = url.charCodeAt(end);
    if (end === url.length || c === 47 || c === 63 || c === 35) return authorityText(url, start, end);
  }
  const parsed = parsedUrl(url);
  if (parsed === undefined) throw notAbsolute();
  return parsed.host;
}

function fastTarget(s: string): TargetUri | undefined {
  const hostStart = schemeEnd(s);
  if (hostStart === 0) return undefined;
  const scheme = hostStart === 8 ? 'https' : 'http';
  let i = authorityEnd(s, hostStart);
  if (i === -1) return undefined;
  const n = s.length;
  const authority = authorityText(s, hostStart, i);
  let path = '/';
  if (i < n && s.charCodeAt(i) === 47) {
    const pathStart = i;
    let segStart = i + 1;
    for (; i <= n; i++) {
      // The path ends at "?", "#" or the end of the input; its last segment is checked too.
      const c = i < n ? s.charCodeAt(i) : 47;
      const last = i === n || c === 63 || c === 35;
      if (c === 47 || last) {
        // "." and ".." segments are removed by the URL parser.
        const len = i - segStart;
        if ((len === 1 || len === 2) && s.charCodeAt(segStart) === 46 && (len === 1 || s.charCodeAt(segStart + 1) === 46)) {
          return undefined;
        }
        if (last) break;
        segStart = i + 1;
        continue;
      }
      if (c >= 128 || SAFE_PATH[c] !== 1) return undefined;
      // %2e is a dot segment too.
      if (c === 37 && s.charCodeAt(i + 1) === 50 && (s.charCodeAt(i + 2) | 32) === 101) return undefined;
    }
    if (i > n) i = n;
    path = s.slice(pathStart, i);
  } else if (i < n) {
    const c = s.charCodeAt(i);
    if (c !== 63 && c !== 35) return undefined;
  }
  let query: string | undefined;
  if (i < n && s.charCodeAt(i) === 63) {
    const queryStart = ++i;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c === 35) break;
      if (c >= 128 || SAFE_QUERY[c] !== 1) return undefined;
    }
    query = s.slice(queryStart, i);
  }
  // Whatever follows is the fragment, which is not part of the target URI.
  const base = scheme + '://' + authority + path;
  return { scheme, authority, path, query, href: query === undefined ? base : base + '?' + query };
}

/** `s` read by the URL parser, when it is an absolute URI with a host. */
function parsedUrl(s: string): URL | undefined {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return undefined;
  }
  // '%' is never valid in an http(s) host; Chromium's parser keeps it (e.g. for a space) where others throw.
  return u.host === '' || u.hostname.includes('%') ? undefined : u;
}

function slowTarget(s: string): TargetUri | undefined {
  const u = parsedUrl(s);
  if (u === undefined) return undefined;
  let href = u.href;
  // '#' and '?' are percent-encoded everywhere before the fragment and the query.
  const hash = href.indexOf('#');
  if (hash >= 0) href = href.slice(0, hash);
  const q = href.indexOf('?');
  const query = q >= 0 ? href.slice(q + 1) : undefined;
  const path = u.pathname === '' ? '/' : u.pathname;
  return { scheme: u.protocol.slice(0, -1), authority: u.host, path, query, href };
}
