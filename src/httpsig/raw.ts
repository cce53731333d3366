/**
 * HTTP/1.1 message text, as printed in RFC 9421 and the Web Bot Auth drafts, turned
 * into a {@link MessageObject}. For test vectors, the CLI and debugging: not a wire
 * parser for a server (no Content-Length framing, no request smuggling defences).
 */
import { BotsigError } from '../core/errors';
import type { MessageObject } from './message';

/** Options for {@link parseRawHttpMessage}. */
export interface ParseRawHttpMessageOptions {
  /** Scheme of the connection the request arrived on, for the target URI. Default `https`. */
  scheme?: 'http' | 'https';
}

/** The result of {@link parseRawHttpMessage}: a message object plus what the text carried besides. */
export interface RawHttpMessage extends MessageObject {
  /** Field lines in order, names as written, repeated names kept as separate entries. */
  headers: Array<[string, string]>;
  /** Trailer fields of a chunked message, in order. */
  trailers?: Array<[string, string]>;
  /** The request-target exactly as on the request line (requests only). */
  target?: string;
  /** Reason phrase of a status line (responses only; may be empty). */
  reason?: string;
  /** `HTTP/1.1` and the like, from the start line. */
  version: string;
  /** Content after the empty line (chunked framing removed); absent without an empty line. */
  body?: string;
}

// tchar (RFC 9110 §5.6.2)
const TCHAR = new Uint8Array(128);
for (const ch of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[ch.charCodeAt(0)] = 1;

function isToken(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || TCHAR[c] !== 1) return false;
  }
  return true;
}

function invalid(what: string, line?: number): BotsigError {
  return new BotsigError('ERR_MESSAGE_INVALID', line === undefined ? `raw HTTP message: ${what}` : `raw HTTP message: ${what} (line ${line})`);
}

/** A line with its terminator removed; `next` is the offset after the terminator (or text length). */
interface Line {
  start: number;
  end: number;
  next: number;
}

function readLine(text: string, from: number): Line {
  const nl = text.indexOf('\n', from);
  if (nl < 0) return { start: from, end: text.length, next: text.length };
  const end = nl > from && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
  return { start: from, end, next: nl + 1 };
}

// HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3); "HTTP/2" and "HTTP/3" as
// printed in some documents are accepted too.
function isVersion(s: string): boolean {
  if (!s.startsWith('HTTP/')) return false;
  const n = s.length;
  const d = (i: number): boolean => {
    const c = s.charCodeAt(i);
    return c >= 48 && c <= 57;
  };
  if (n === 6) return d(5);
  return n === 8 && d(5) && s.charCodeAt(6) === 46 && d(7);
}

// Visible characters, SP and HTAB, and obs-text; no other controls (RFC 9110 §5.5).
function hasBadFieldChar(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 9) || c === 0x7f) return true;
  }
  return false;
}

function isWS(c: number): boolean {
  return c === 32 || c === 9;
}

function trimWS(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isWS(s.charCodeAt(a))) a++;
  while (b > a && isWS(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

// uri-host [ ":" port ], loosely: anything that cannot end or change the authority is refused.
function isAuthority(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */ || c === 64 /* @ */ || c === 92 /* \ */) return false;
  }
  return true;
}

// request-target characters (RFC 9112 §3.2): visible ASCII only.
function isTargetText(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return true;
}

function isAbsoluteForm(s: string): boolean {
  // scheme ":" "//" (RFC 3986 §3.1): ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
  let i = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const alpha = (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (alpha) continue;
    if (i > 0 && ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46)) continue;
    break;
  }
  return i > 0 && s.startsWith('://', i);
}

/**
 * Field lines from `from` up to the first empty line (or the end of the text). A line
 * starting with SP/HTAB is obs-fold: it stays attached to the previous field value
 * with its line break, for the component layer to replace (RFC 9112 §5.2, RFC 9421 §2.1).
 */
function readFields(text: string, from: number, fields: Array<[string, string]>, lineNo: number): { next: number; ended: boolean; lineNo: number } {
  let pos = from;
  // Value of the field being read: [start of value, end of its last line].
  let open: { name: string; start: number; end: number } | undefined;
  const close = (): void => {
    if (open === undefined) return;
    const value = trimWS(text.slice(open.start, open.end));
    fields.push([open.name, value]);
    open = undefined;
  };
  while (pos < text.length) {
    const line = readLine(text, pos);
    lineNo++;
    if (line.end === line.start) {
      close();
      return { next: line.next, ended: true, lineNo };
    }
    const raw = text.slice(line.start, line.end);
    if (hasBadFieldChar(raw)) throw invalid('control character in a field line', lineNo);
    if (isWS(raw.charCodeAt(0))) {
      if (open === undefined) throw invalid('continuation line without a field before it', lineNo);
      open.end = line.end;
    } else {
      close();
      const colon = raw.indexOf(':');
      if (colon <= 0) throw invalid('field line without a name and colon', lineNo);
      const name = raw.slice(0, colon);
      // No whitespace is allowed between the name and the colon (RFC 9112 §5.1).
      if (!isToken(name)) throw invalid('field name is not a token', lineNo);
      open = { name, start: line.start + colon + 1, end: line.end };
    }
    pos = line.next;
  }
  close();
  return { next: text.length, ended: false, lineNo };
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

// Chunk sizes beyond this cannot be in a string the caller was willing to pass.
const MAX_CHUNK_HEX_DIGITS = 8;

/** Removes chunked framing (RFC 9112 §7.1); trailer fields go to `trailers`. */
function decodeChunked(text: string, from: number, trailers: Array<[string, string]>, lineNo: number): string {
  let pos = from;
  let body = '';
  for (;;) {
    if (pos >= text.length) throw invalid('chunked content ends before the last chunk', lineNo);
    const line = readLine(text, pos);
    lineNo++;
    let size = 0;
    let i = line.start;
    for (; i < line.end; i++) {
      const h = hexValue(text.charCodeAt(i));
      if (h < 0) break;
      if (i - line.start >= MAX_CHUNK_HEX_DIGITS) throw invalid('chunk size too large', lineNo);
      size = size * 16 + h;
    }
    if (i === line.start) throw invalid('chunk size is not hexadecimal', lineNo);
    // Only chunk extensions (";...", after optional whitespace) may follow the size.
    let j = i;
    while (j < line.end && isWS(text.charCodeAt(j))) j++;
    if (j < line.end && text.charCodeAt(j) !== 59 /* ; */) throw invalid('chunk size is not hexadecimal', lineNo);
    pos = line.next;
    if (size === 0) break;
    if (pos + size > text.length) throw invalid('chunk is shorter than its size', lineNo);
    body += text.slice(pos, pos + size);
    pos += size;
    // CRLF (or LF) after the data.
    if (text.charCodeAt(pos) === 13 && text.charCodeAt(pos + 1) === 10) pos += 2;
    else if (text.charCodeAt(pos) === 10) pos += 1;
    else throw invalid('chunk data is not followed by a line break', lineNo);
    lineNo++;
  }
  const rest = readFields(text, pos, trailers, lineNo);
  // Anything after the trailer section is not part of this message.
  if (rest.ended && rest.next < text.length) throw invalid('text after the end of the chunked message');
  return body;
}

function isChunked(fields: ReadonlyArray<readonly [string, string]>): boolean {
  let last = '';
  for (const [name, value] of fields) {
    if (name.length !== 17 || name.toLowerCase() !== 'transfer-encoding') continue;
    // Empty list elements are ignored (RFC 9110 §5.6.1), within a line as across lines.
    for (const coding of value.split(',')) {
      const c = trimWS(coding);
      if (c !== '') last = c.toLowerCase();
    }
  }
  return last === 'chunked';
}

/**
 * Parses an HTTP/1.1 message in text form (RFC 9112): a request line
 * (`METHOD target HTTP/1.1`) or status line (`HTTP/1.1 200 OK`), field lines, an
 * empty line and the content. Lines may end in CRLF or LF. Repeated fields stay
 * separate entries; obs-fold continuation lines stay attached to their field value
 * (with the line break) so the component layer can apply RFC 9421 §2.1. A chunked
 * body is decoded and its trailer fields returned in `trailers` (RFC 9421 §2.1.4).
 *
 * The target URI is `scheme://Host + target` for an origin-form target, the target
 * itself in absolute-form, `scheme://target` for CONNECT (authority-form), and
 * `scheme://Host` for `OPTIONS *`; `target` keeps the request-target as written.
 * Field values are not validated beyond control characters.
 *
 * @throws BotsigError `ERR_MESSAGE_INVALID` for anything that is not such a message:
 *   bad start line, field line without a colon, name with whitespace, control
 *   characters, missing or repeated Host for an origin-form target, broken chunking.
 * @throws TypeError when `text` is not a string or `options.scheme` is not http/https.
 * @example
 * const msg = parseRawHttpMessage('GET /a?b=c HTTP/1.1\nHost: example.com\n\n');
 * msg.url // 'https://example.com/a?b=c'
 */
export function parseRawHttpMessage(text: string, options?: ParseRawHttpMessageOptions): RawHttpMessage {
  if (typeof text !== 'string') throw new TypeError('raw HTTP message must be a string');
  const scheme = options?.scheme ?? 'https';
  if (scheme !== 'http' && scheme !== 'https') throw new TypeError("options.scheme must be 'http' or 'https'");

  // A recipient may skip empty lines before the start line (RFC 9112 §2.2).
  let pos = 0;
  let lineNo = 0;
  let first = readLine(text, pos);
  lineNo++;
  while (first.end === first.start && first.next < text.length) {
    pos = first.next;
    first = readLine(text, pos);
    lineNo++;
  }
  if (first.end === first.start) throw invalid('no start line');
  const startLine = text.slice(first.start, first.end);
  const sp1 = startLine.indexOf(' ');
  if (sp1 <= 0) throw invalid('start line is not a request or status line', lineNo);

  const headers: Array<[string, string]> = [];
  const out: RawHttpMessage = { headers, version: '' };

  if (startLine.startsWith('HTTP/')) {
    // status-line = HTTP-version SP status-code SP [ reason-phrase ]
    const version = startLine.slice(0, sp1);
    const code = startLine.slice(sp1 + 1, sp1 + 4);
    const after = startLine.slice(sp1 + 4);
    if (!isVersion(version) || code.length !== 3 || !/^[1-9][0-9][0-9]$/.test(code)) {
      throw invalid('status line is malformed', lineNo);
    }
    if (after !== '' && after.charCodeAt(0) !== 32) throw invalid('status line is malformed', lineNo);
    const reason = after.slice(1);
    if (hasBadFieldChar(reason)) throw invalid('status line is malformed', lineNo);
    out.version = version;
    out.status = Number(code);
    out.reason = reason;
  } else {
    // request-line = method SP request-target SP HTTP-version
    const sp2 = startLine.indexOf(' ', sp1 + 1);
    if (sp2 < 0 || startLine.indexOf(' ', sp2 + 1) >= 0) throw invalid('request line is malformed', lineNo);
    const method = startLine.slice(0, sp1);
    const target = startLine.slice(sp1 + 1, sp2);
    const version = startLine.slice(sp2 + 1);
    if (!isToken(method) || !isTargetText(target) || !isVersion(version)) throw invalid('request line is malformed', lineNo);
    out.method = method;
    out.target = target;
    out.version = version;
  }

  const fields = readFields(text, first.next, headers, lineNo);
  lineNo = fields.lineNo;
  if (fields.ended) {
    if (isChunked(headers)) {
      const trailers: Array<[string, string]> = [];
      out.body = decodeChunked(text, fields.next, trailers, lineNo);
      if (trailers.length > 0) out.trailers = trailers;
    } else {
      out.body = text.slice(fields.next);
    }
  }

  if (out.target !== undefined) out.url = targetUri(out.method!, out.target, headers, scheme);
  return out;
}

function targetUri(method: string, target: string, headers: ReadonlyArray<readonly [string, string]>, scheme: string): string {
  if (isAbsoluteForm(target)) return target;
  if (method === 'CONNECT') {
    if (!isAuthority(target)) throw invalid('CONNECT target is not an authority');
    return scheme + '://' + target;
  }
  let host: string | undefined;
  for (const [name, value] of headers) {
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue;
    // A request with more than one Host is invalid (RFC 9112 §3.2).
    if (host !== undefined) throw invalid('more than one Host field');
    host = value;
  }
  if (host === undefined) throw invalid('request without Host and without an absolute-form target');
  if (!isAuthority(host)) throw invalid('Host is not an authority');
  if (target === '*') {
    if (method !== 'OPTIONS') throw invalid('asterisk-form target is only for OPTIONS');
    return scheme + '://' + host;
  }
  if (target.charCodeAt(0) !== 47 /* / */) throw invalid('request target is not in origin, absolute, authority or asterisk form');
  return scheme + '://' + host + target;
}
