/**
 * `@query-param` (RFC 9421 §2.2.8): WHATWG application/x-www-form-urlencoded parsing,
 * then percent-encoding of the UTF-8 octets with the form-urlencoded percent-encode
 * set, except that SP is %20 (the RFC's examples), not "+".
 */
import { charTable } from '../core/char-table';
import type { TargetUri } from './target-uri';

// ASCII alphanumeric, "*", "-", ".", "_" are left as they are.
const FORM_SAFE = /* @__PURE__ */ charTable('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._');
const HEX_CODES = /* @__PURE__ */ new TextEncoder().encode('0123456789ABCDEF');

/**
 * The values of the query parameters named `encodedName` (the `name` parameter of
 * `@query-param`, already in encoded form), each re-encoded, in query order.
 * `query` excludes the leading `?`.
 */
export function queryParamValues(query: string, encodedName: string): string[] {
  return valuesAt(query, queryIndex(query), encodedName);
}

/**
 * {@link queryParamValues} of a message's query: `target` is the message's parsed target
 * URI (`messageTarget`), with which the query's index is kept, so that every
 * `@query-param` of the message reads the query once.
 */
export function targetQueryParamValues(target: TargetUri, encodedName: string): string[] {
  const query = target.query ?? '';
  let index = indexes.get(target);
  if (index === undefined) indexes.set(target, (index = queryIndex(query)));
  return valuesAt(query, index, encodedName);
}

// Each target URI's query index, held as long as the target (that is, its message) is.
const indexes = new WeakMap<TargetUri, Map<string, number[]>>();

function valuesAt(query: string, index: Map<string, number[]>, encodedName: string): string[] {
  const ranges = index.get(encodedName);
  if (ranges === undefined) return [];
  const out = new Array<string>(ranges.length >> 1);
  for (let i = 0; i < ranges.length; i += 2) {
    const from = ranges[i]!;
    const to = ranges[i + 1]!;
    out[i >> 1] = from === to ? '' : reencode(query, from, to);
  }
  return out;
}

/**
 * The query's parameters by re-encoded name: for each, the `[start, end)` offsets of
 * its values in `query`, in order. One scan of the query however many parameters and
 * `@query-param` components there are (RFC 9421 §2.2.8, WHATWG urlencoded parsing).
 */
function queryIndex(query: string): Map<string, number[]> {
  const index = new Map<string, number[]>();
  const n = query.length;
  let start = 0;
  while (start < n) {
    // The sequence ends at "&"; its name at the first "=" inside it, if any.
    let end = start;
    let eq = -1;
    for (; end < n; end++) {
      const c = query.charCodeAt(end);
      if (c === 38) break;
      if (c === 61 && eq < 0) eq = end;
    }
    if (end > start) {
      if (eq < 0) eq = end;
      const name = reencode(query, start, eq);
      const valueStart = eq === end ? end : eq + 1;
      const ranges = index.get(name);
      if (ranges === undefined) index.set(name, [valueStart, end]);
      else ranges.push(valueStart, end);
    }
    start = end + 1;
  }
  return index;
}

function reencode(s: string, from: number, to: number): string {
  // Fast path: nothing to decode or escape.
  let plain = true;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || FORM_SAFE[c] !== 1) {
      plain = false;
      break;
    }
  }
  if (plain) return s.slice(from, to);
  const bytes = percentDecode(s, from, to);
  // UTF-8 decode (invalid sequences become U+FFFD), then encode again.
  const text = decoder.decode(bytes);
  const utf8 = encoder.encode(text);
  // ASCII out, three octets at most per octet in, decoded to a string once (no
  // string of one or three characters per octet).
  const out = new Uint8Array(utf8.length * 3);
  let o = 0;
  for (let i = 0; i < utf8.length; i++) {
    const b = utf8[i]!;
    if (b < 128 && FORM_SAFE[b] === 1) {
      out[o++] = b;
    } else {
      out[o++] = 37; // %
      out[o++] = HEX_CODES[b >> 4]!;
      out[o++] = HEX_CODES[b & 15]!;
    }
  }
  return decoder.decode(out.subarray(0, o));
}

const decoder = /* @__PURE__ */ new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = /* @__PURE__ */ new TextEncoder();

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

/** True when `src[i]` ("%") starts an escape: two hex digits follow. */
function isEscape(src: Uint8Array, i: number): boolean {
  if (i + 2 >= src.length) return false;
  return hexValue(src[i + 1]!) >= 0 && hexValue(src[i + 2]!) >= 0;
}

function percentDecode(s: string, from: number, to: number): Uint8Array {
  // The input is first UTF-8 encoded (WHATWG "percent-decode a string"); "+" is SP.
  const src = encoder.encode(s.slice(from, to));
  const out = new Uint8Array(src.length);
  let o = 0;
  for (let i = 0; i < src.length; i++) {
    const b = src[i]!;
    if (b === 43) {
      out[o++] = 32;
    } else if (b === 37 && isEscape(src, i)) {
      out[o++] = (hexValue(src[i + 1]!) << 4) | hexValue(src[i + 2]!);
      i += 2;
    } else {
      out[o++] = b;
    }
  }
  return out.subarray(0, o);
}
