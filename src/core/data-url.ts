/**
 * `data:` URLs (RFC 2397), as carried by a Signature-Agent member that inlines a
 * key directory (SPEC 2.3). A strict, linear decoder: the input is a header value.
 */
import { base64AnyDecode } from './base64';
import { BotsigError } from './errors';
import { charTable } from './char-table';

/** A decoded `data:` URL. */
export interface DataUrl {
  /** The media type essence (`type/subtype`), lowercased; `text/plain` when omitted (RFC 2397 §2). */
  readonly mediaType: string;
  /** Media type parameters, names lowercased, values percent-decoded. */
  readonly parameters: ReadonlyMap<string, string>;
  /** Whether the data was base64-encoded (`;base64`). */
  readonly base64: boolean;
  /** The decoded octets. */
  readonly body: Uint8Array;
}

export interface DataUrlOptions {
  /** Largest decoded body accepted, in bytes. Default: no limit beyond the input's length. */
  readonly maxBytes?: number;
}

// RFC 7230 tchar: the characters of a media type's type, subtype and parameter names.
const TCHAR = /* @__PURE__ */ charTable("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&'*+-.^_`|~");

function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || TCHAR[c] !== 1) return false;
  }
  return true;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x57;
  return -1;
}

/** Percent-decodes visible ASCII into octets; `undefined` for a bad escape or a character outside 0x21–0x7E. */
function percentDecode(text: string, start: number, end: number): Uint8Array | undefined {
  const out = new Uint8Array(end - start);
  let o = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25) {
      if (i + 2 >= end) return undefined;
      const h = hexValue(text.charCodeAt(i + 1));
      const l = hexValue(text.charCodeAt(i + 2));
      if (h < 0 || l < 0) return undefined;
      out[o++] = (h << 4) | l;
      i += 2;
    } else if (c > 0x20 && c < 0x7f) {
      out[o++] = c;
    } else {
      return undefined;
    }
  }
  return out.subarray(0, o);
}

// Octets per String.fromCharCode call: few enough arguments for any engine.
const LATIN1_CHUNK = 8192;

/**
 * Octets as Latin-1 characters, one String.fromCharCode per chunk: a flat string, not
 * a rope of one-character pieces (which costs tens of bytes per octet until flattened).
 */
function latin1(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += LATIN1_CHUNK) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + LATIN1_CHUNK) as unknown as number[]);
  }
  return out;
}

function fail(reason: string): never {
  throw new BotsigError('ERR_URL_INVALID', `invalid data: URL (${reason})`);
}

/**
 * Decodes a `data:` URL (RFC 2397): `data:[<mediatype>][;base64],<data>`. A
 * fragment is not part of the data and is ignored. Base64 data may use either
 * alphabet, padded or not; percent-encoded data is decoded octet by octet.
 *
 * @throws BotsigError `ERR_URL_INVALID` when `text` is not a well-formed data URL
 *   or the body exceeds `maxBytes`.
 * @example
 * parseDataUrl('data:application/json;base64,e30').body; // Uint8Array of '{}'
 */
export function parseDataUrl(text: string, options?: DataUrlOptions): DataUrl {
  if (typeof text !== 'string') throw new TypeError('parseDataUrl expects a string');
  const maxBytes = options?.maxBytes;
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 0)) {
    throw new TypeError('maxBytes must be a non-negative integer');
  }
  if (text.length < 5 || text.slice(0, 5).toLowerCase() !== 'data:') fail('scheme');
  let end = text.indexOf('#');
  if (end < 0) end = text.length;
  const comma = text.indexOf(',');
  if (comma < 0 || comma > end) fail('no comma');

  // Header: [type/subtype] *( ";" attribute "=" value ) [ ";base64" ]
  const segments = text.slice(5, comma).split(';');
  let base64 = false;
  if (segments.length > 1 && segments[segments.length - 1]!.toLowerCase() === 'base64') {
    base64 = true;
    segments.pop();
  }
  const typeText = segments[0]!.toLowerCase();
  let mediaType = 'text/plain';
  if (typeText !== '') {
    const slash = typeText.indexOf('/');
    if (slash < 0 || !isToken(typeText.slice(0, slash)) || !isToken(typeText.slice(slash + 1))) fail('media type');
    mediaType = typeText;
  }
  const parameters = new Map<string, string>();
  for (let i = 1; i < segments.length; i++) {
    const segment = segments[i]!;
    const eq = segment.indexOf('=');
    if (eq <= 0) fail('parameter');
    const name = segment.slice(0, eq).toLowerCase();
    if (!isToken(name)) fail('parameter name');
    const raw = percentDecode(segment, eq + 1, segment.length);
    if (raw === undefined) fail('parameter value');
    // Parameter values are ASCII in practice; decode as Latin-1 so no octet is lost.
    const value = latin1(raw);
    if (!parameters.has(name)) parameters.set(name, value);
  }
  if (typeText === '' && !parameters.has('charset')) parameters.set('charset', 'US-ASCII');

  const data = percentDecode(text, comma + 1, end);
  if (data === undefined) fail('data');
  let body: Uint8Array = data;
  if (base64) {
    const decoded = base64AnyDecode(latin1(data));
    if (decoded === undefined) fail('base64');
    body = decoded;
  }
  if (maxBytes !== undefined && body.length > maxBytes) fail('too large');
  return { mediaType, parameters, base64, body };
}
