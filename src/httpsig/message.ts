/**
 * One internal shape for every HTTP message botsig signs or verifies (RFC 9421 §2):
 * WHATWG `Request`/`Response`, or a plain `{ method, url, status, headers, trailers }`.
 *
 * Conversion is cheap on purpose (it runs once per request): header names are
 * lowercased and field lines kept apart, nothing else. The target URI is parsed only
 * when a derived component needs it, once per message (see `messageTarget`).
 */
import { BotsigError } from '../core/errors';

/** Header fields in any of the shapes frameworks hand out. */
export type HeaderInput =
  | Headers
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | Iterable<readonly [string, string]>;

/** A message as a plain object. `status` makes it a response; otherwise it is a request. */
export interface MessageObject {
  /** Request method; `GET` when absent (fetch semantics). Case is kept (RFC 9421 §2.2.1). */
  method?: string;
  /** Absolute target URI of a request (`https://host/path?query`). */
  url?: string;
  /** Response status code; its presence makes the message a response. */
  status?: number;
  /** Header fields. A record or array of pairs keeps separate field lines (RFC 9421 §2.1, `;bs`). */
  headers?: HeaderInput;
  /** Trailer fields (RFC 9421 §2.1.3, `;tr`). */
  trailers?: HeaderInput;
  /**
   * The request-target exactly as on an HTTP/1.1 request line (RFC 9112 §3.2), for
   * `@request-target` in absolute, authority (`CONNECT`) or asterisk (`OPTIONS *`) form.
   * Without it, `@request-target` is the origin form (path and query) of `url`.
   */
  target?: string;
}

/** Anything botsig accepts as a message. */
export type MessageInput = Request | Response | MessageObject;

/**
 * The normalised message. `headers` maps lowercased field names to their raw field
 * lines in message order; values are not trimmed or combined here.
 */
export interface HttpMessage {
  kind: 'request' | 'response';
  method?: string;
  /** Absolute target URI (requests). */
  url?: string;
  /** Request-target as on the request line, when known (see {@link MessageObject.target}). */
  target?: string;
  status?: number;
  headers: Map<string, string[]>;
  trailers?: Map<string, string[]>;
  /** For a response: the request it answers, for `;req` components (RFC 9421 §2.4). */
  request?: HttpMessage;
}

/** Options for {@link toHttpMessage}. */
export interface ToHttpMessageOptions {
  /** For a response: the request that triggered it (RFC 9421 §2.4). Ignored for requests. */
  request?: MessageInput | HttpMessage;
}

/** True when `value` is already an {@link HttpMessage} (has `kind` and a `Map` of headers). */
export function isHttpMessage(value: unknown): value is HttpMessage {
  if (typeof value !== 'object' || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  return (kind === 'request' || kind === 'response') && (value as { headers?: unknown }).headers instanceof Map;
}

/**
 * Converts a WHATWG `Request`/`Response` or a plain message object into an
 * {@link HttpMessage}. An `HttpMessage` passes through unchanged (or is copied with
 * `options.request` attached). Field names are lowercased; separate field lines stay
 * separate (a `Headers` object has already combined them, except `Set-Cookie`).
 *
 * @throws TypeError when `input` is not a message shape (wrong types for method, url,
 *   status or header values).
 * @example
 * const msg = toHttpMessage({ method: 'GET', url: 'https://example.com/', headers: { Host: 'example.com' } });
 * msg.headers.get('host') // ['example.com']
 */
export function toHttpMessage(input: MessageInput | HttpMessage, options?: ToHttpMessageOptions): HttpMessage {
  return convert(input, options, false);
}

/**
 * Internal: {@link toHttpMessage} for a message that botsig reads and never hands out
 * (a request being verified or signed). The header map of a plain record with
 * lowercase names (Node's `req.headers`) or a WHATWG `Headers` is filled lazily, one
 * field per `get`, instead of copying every field up front; it is still a complete
 * `Map` (anything else than `get`/`has`/`set` copies the rest first). Errors are
 * the same as toHttpMessage's, at the same time.
 */
export function toReceivedMessage(input: MessageInput | HttpMessage): HttpMessage {
  return convert(input, undefined, true);
}

function convert(input: MessageInput | HttpMessage, options: ToHttpMessageOptions | undefined, lazy: boolean): HttpMessage {
  if (typeof input !== 'object' || input === null) throw new TypeError('message must be a Request, Response or message object');
  let message: HttpMessage;
  if (isHttpMessage(input)) {
    message = input;
  } else {
    const src = input as { method?: unknown; url?: unknown; target?: unknown; status?: unknown; headers?: unknown; trailers?: unknown };
    const status = src.status;
    if (status !== undefined && typeof status !== 'number') throw new TypeError('message status must be a number');
    const source = src.headers;
    let headers: Map<string, string[]> | undefined;
    if (lazy && source !== undefined && source !== null) headers = LazyFields.over(source);
    if (headers === undefined) {
      headers = new Map<string, string[]>();
      if (source !== undefined && source !== null) addFields(headers, source, 'headers');
    }
    if (status !== undefined) {
      message = { kind: 'response', status, headers };
    } else {
      const method = src.method;
      if (method !== undefined && typeof method !== 'string') throw new TypeError('message method must be a string');
      message = { kind: 'request', method: method ?? 'GET', headers };
    }
    const url = src.url;
    if (url !== undefined && typeof url !== 'string') throw new TypeError('message url must be a string');
    // Response.url is '' for a constructed response: no information, leave it out.
    if (url !== undefined && url !== '') message.url = url;
    const target = src.target;
    if (target !== undefined && typeof target !== 'string') throw new TypeError('message target must be a string');
    if (target !== undefined && message.kind === 'request') message.target = target;
    if (src.trailers !== undefined && src.trailers !== null) {
      const trailers = new Map<string, string[]>();
      addFields(trailers, src.trailers, 'trailers');
      message.trailers = trailers;
    }
  }
  const req = options?.request;
  if (req !== undefined && message.kind === 'response') {
    const request = toHttpMessage(req);
    if (request.kind !== 'request') throw new TypeError('options.request must be a request');
    message = message === input ? { ...message, request } : Object.assign(message, { request });
  }
  return message;
}

function addLine(map: Map<string, string[]>, name: string, value: unknown, what: string): void {
  if (value === undefined || value === null) return;
  const key = name.toLowerCase();
  // The common case (one string per name) allocates one array and nothing else.
  if (typeof value === 'string' || typeof value === 'number') {
    const text = typeof value === 'string' ? value : String(value);
    const list = map.get(key);
    if (list === undefined) map.set(key, [text]);
    else list.push(text);
    return;
  }
  if (!Array.isArray(value)) throw badValue(what);
  let list = map.get(key);
  for (const line of value as readonly unknown[]) {
    const text = typeof line === 'string' ? line : typeof line === 'number' ? String(line) : undefined;
    if (text === undefined) throw badValue(what);
    if (list === undefined) {
      list = [text];
      map.set(key, list);
    } else {
      list.push(text);
    }
  }
}

function badValue(what: string): TypeError {
  return new TypeError(`${what} values must be strings or arrays of strings`);
}

/** Throws what addLine would throw for `value`, without converting it. */
function checkFieldValue(value: unknown, what: string): void {
  if (typeof value === 'string' || typeof value === 'number' || value === undefined || value === null) return;
  if (!Array.isArray(value)) throw badValue(what);
  for (const line of value as readonly unknown[]) if (typeof line !== 'string' && typeof line !== 'number') throw badValue(what);
}

function addFields(map: Map<string, string[]>, source: unknown, what: string): void {
  if (typeof source !== 'object') throw new TypeError(`${what} must be a Headers, a record or pairs`);
  const iter = (source as { [Symbol.iterator]?: unknown })[Symbol.iterator];
  if (typeof iter === 'function') {
    // Headers, Map, or an array of [name, value] pairs.
    for (const pair of source as Iterable<unknown>) {
      if (!Array.isArray(pair) || pair.length < 2 || typeof pair[0] !== 'string') throw new TypeError(`${what} pairs must be [name, value]`);
      addLine(map, pair[0], pair[1], what);
    }
    return;
  }
  const record = source as Record<string, unknown>;
  for (const name of Object.keys(record)) addLine(map, name, record[name], what);
}

// ---------------------------------------------------------------------------
// Header maps filled on demand (toReceivedMessage).

const hasOwn = Object.prototype.hasOwnProperty;
const UPPERCASE = /[A-Z]/;

// The keys of the last record checked, and whether they were all lowercase: a server
// hands out records with the same keys in the same order request after request, and
// its keys are internalised strings, so comparing them is comparing pointers.
let lastKeys: readonly string[] = [];
let lastLowercase = false;

/**
 * True when every key of `record` is lowercase; checks each value's type
 * (checkFieldValue: addLine's TypeError), so that filling the map later cannot fail.
 */
function lowercaseRecord(record: Readonly<Record<string, unknown>>): boolean {
  const keys = Object.keys(record);
  const n = keys.length;
  let same = n === lastKeys.length;
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (same && k !== lastKeys[i]) same = false;
    checkFieldValue(record[k], 'headers');
  }
  if (same) return lastLowercase;
  let lowercase = true;
  for (let i = 0; i < n && lowercase; i++) if (UPPERCASE.test(keys[i]!)) lowercase = false;
  lastKeys = keys;
  lastLowercase = lowercase;
  return lowercase;
}

/**
 * A header map over a record with lowercase names or a WHATWG `Headers`, filled one
 * field at a time by `get` (and `has`). `set` is recorded without copying; any other
 * access copies every field first, in source order, then applies what was set, so
 * the map then equals what toHttpMessage would have built, with the same `set`s.
 */
class LazyFields extends Map<string, string[]> {
  #source: Readonly<Record<string, unknown>> | Headers | undefined;
  readonly #isHeaders: boolean;
  #sets: Map<string, string[]> | undefined;

  private constructor(source: Readonly<Record<string, unknown>> | Headers, isHeaders: boolean) {
    super();
    this.#source = source;
    this.#isHeaders = isHeaders;
  }

  static {
    // Map's `size` is an accessor on its prototype (a property to TypeScript): a
    // complete count needs every field.
    const size = Object.getOwnPropertyDescriptor(Map.prototype, 'size')!.get!;
    Object.defineProperty(LazyFields.prototype, 'size', {
      configurable: true,
      get(this: LazyFields): number {
        this.#fill();
        return size.call(this) as number;
      },
    });
  }

  /** A lazy map over `source`, or `undefined` when it has another shape (the caller copies). */
  static over(source: unknown): LazyFields | undefined {
    if (typeof source !== 'object' || source === null) return undefined;
    if (typeof Headers === 'function' && source instanceof Headers) {
      return typeof source.getSetCookie === 'function' ? new LazyFields(source, true) : undefined;
    }
    if (Symbol.iterator in source) return undefined;
    return lowercaseRecord(source as Record<string, unknown>) ? new LazyFields(source as Record<string, unknown>, false) : undefined;
  }

  override get(name: string): string[] | undefined {
    const have = super.get(name);
    const src = this.#source;
    if (have !== undefined || src === undefined) return have;
    const lines = this.#isHeaders ? headerLines(src as Headers, name) : recordLines(src as Readonly<Record<string, unknown>>, name);
    if (lines !== undefined) super.set(name, lines);
    return lines;
  }

  override has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  override set(name: string, lines: string[]): this {
    if (this.#source !== undefined) (this.#sets ??= new Map()).set(name, lines);
    return super.set(name, lines);
  }

  override delete(name: string): boolean {
    this.#fill();
    return super.delete(name);
  }

  override clear(): void {
    this.#fill();
    super.clear();
  }

  override forEach(callback: (value: string[], key: string, map: Map<string, string[]>) => void, thisArg?: unknown): void {
    this.#fill();
    super.forEach(callback, thisArg);
  }

  override keys(): MapIterator<string> {
    this.#fill();
    return super.keys();
  }

  override values(): MapIterator<string[]> {
    this.#fill();
    return super.values();
  }

  override entries(): MapIterator<[string, string[]]> {
    this.#fill();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, string[]]> {
    return this.entries();
  }

  /** Copies every field, then re-applies the `set`s: from here on a plain Map. */
  #fill(): void {
    const src = this.#source;
    if (src === undefined) return;
    this.#source = undefined;
    super.clear();
    addFields(this, src, 'headers');
    const sets = this.#sets;
    this.#sets = undefined;
    if (sets !== undefined) for (const [name, lines] of sets) super.set(name, lines);
  }
}
function recordLines(record: Readonly<Record<string, unknown>>, name: string): string[] | undefined {
  if (!hasOwn.call(record, name)) return undefined;
  const v = record[name];
  if (typeof v === 'string') return [v];
  if (typeof v === 'number') return [String(v)];
  if (!Array.isArray(v) || v.length === 0) return undefined;
  // Checked by lowercaseRecord: strings and numbers only.
  return (v as readonly (string | number)[]).map((line) => (typeof line === 'string' ? line : String(line)));
}

function headerLines(headers: Headers, name: string): string[] | undefined {
  // Headers looks names up in any case; the map's keys are lowercase.
  if (UPPERCASE.test(name)) return undefined;
  if (name === 'set-cookie') {
    const cookies = headers.getSetCookie();
    return cookies.length === 0 ? undefined : cookies;
  }
  let v: string | null;
  try {
    v = headers.get(name);
  } catch {
    // Not a valid field name for Headers: no such field.
    return undefined;
  }
  return v === null ? undefined : [v];
}

// ---------------------------------------------------------------------------
// Target URI, parsed lazily and once per message.

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

// The last URL parsed and its parts. The parts are a function of the URL string alone,
// so the memo is keyed by it: every derived component of one message (and every request
// to the same URL) reuses the parse, with no per-message WeakMap entry to create.
let lastUrl: string | undefined;
let lastTarget: TargetUri | undefined;

/**
 * The parsed target URI of a request message, computed once per URL.
 *
 * @throws BotsigError `ERR_MESSAGE_INVALID` when the message has no URL or it is not an
 *   absolute URI.
 */
export function messageTarget(message: HttpMessage): TargetUri {
  const url = message.url;
  if (url === undefined) throw new BotsigError('ERR_MESSAGE_INVALID', 'the message has no target URI');
  if (url === lastUrl && lastTarget !== undefined) {
    // An equal string from another message takes the old one's place: the next test
    // (the next derived component of this message) is then a pointer comparison, not
    // one more pass over a long URL.
    lastUrl = url;
    return lastTarget;
  }
  const target = parseTargetUri(url);
  if (target === undefined) throw new BotsigError('ERR_MESSAGE_INVALID', 'the message target URI is not an absolute URI');
  lastUrl = url;
  lastTarget = target;
  return target;
}

// Characters that the WHATWG URL parser leaves untouched in a path or query of an
// http(s) URL. Anything else sends the input to the full parser.
const SAFE_PATH = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&()*+,;=:@/%'") {
  SAFE_PATH[ch.charCodeAt(0)] = 1;
}
const SAFE_QUERY = new Uint8Array(128);
for (const ch of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&()*+,;=:@/%?') {
  SAFE_QUERY[ch.charCodeAt(0)] = 1;
}

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

function fastTarget(s: string): TargetUri | undefined {
  let scheme: string;
  let i: number;
  if (s.startsWith('https://')) {
    scheme = 'https';
    i = 8;
  } else if (s.startsWith('http://')) {
    scheme = 'http';
    i = 7;
  } else {
    return undefined;
  }
  const n = s.length;
  const hostStart = i;
  let prev = 46; // '.', so a leading dot or ".." falls back
  let last = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45) {
      // a-z 0-9 -
    } else if (c === 46) {
      if (prev === 46) return undefined;
    } else {
      break;
    }
    prev = c;
    last = c;
  }
  // The last label must end in a letter: numeric-looking hosts are IPv4 to WHATWG.
  if (i === hostStart || !(last >= 97 && last <= 122)) return undefined;
  const host = s.slice(hostStart, i);
  let authority = host;
  if (i < n && s.charCodeAt(i) === 58) {
    const portStart = ++i;
    let port = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      port = port * 10 + (c - 48);
      if (port > 65535) return undefined;
    }
    const len = i - portStart;
    if (len === 0 || (len > 1 && s.charCodeAt(portStart) === 48)) return undefined;
    if (!((scheme === 'https' && port === 443) || (scheme === 'http' && port === 80))) {
      authority = host + ':' + s.slice(portStart, i);
    }
  }
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

function slowTarget(s: string): TargetUri | undefined {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return undefined;
  }
  // '%' is never valid in an http(s) host; Chromium's parser keeps it (e.g. for a space) where others throw.
  if (u.host === '' || u.hostname.includes('%')) return undefined;
  let href = u.href;
  // '#' and '?' are percent-encoded everywhere before the fragment and the query.
  const hash = href.indexOf('#');
  if (hash >= 0) href = href.slice(0, hash);
  const q = href.indexOf('?');
  const query = q >= 0 ? href.slice(q + 1) : undefined;
  const path = u.pathname === '' ? '/' : u.pathname;
  return { scheme: u.protocol.slice(0, -1), authority: u.host, path, query, href };
}
