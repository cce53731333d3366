/**
 * Internal (verification hot path): readers for the Signature-Input and Signature
 * fields as signers nearly always write them, canonical RFC 9651 text with Integer
 * and plain String parameters:
 *
 *   sig1=("@authority" "signature-agent";key="sig1");created=1735689600;keyid="…";tag="web-bot-auth"
 *   sig1=:base64…:
 *
 * They build the parsed structures directly (no intermediate Items) and, for
 * Signature-Input, keep the received text, which is canonical by construction.
 * Anything else (other item types, escapes, extra whitespace, a repeated key, an
 * error) makes them answer `undefined`, and the caller takes the general parser,
 * which decides and reports. test/httpsig/fast-fields.test.ts holds them to it.
 */
import { base64DecodeRange } from '../core/base64';
import type { BareItem, Parameters } from '../core/sf-types';
import type { ComponentIdentifier } from './components';
import type { ReceivedSignatureInput } from './signature-input';

const MAX_INTEGER_DIGITS = 15;

// lcalpha / DIGIT / "_" / "-" / "." / "*" (RFC 9651 §3.1.2 key characters).
function isKeyChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46 || c === 42;
}

/** End of the key starting at `i` (lcalpha or "*" first), or -1. */
function keyEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (!((c >= 97 && c <= 122) || c === 42)) return -1;
  i++;
  while (isKeyChar(s.charCodeAt(i))) i++;
  return i;
}

// Printable ASCII but DQUOTE and backslash: one native scan (sticky, no backtracking)
// over nonces and keyids, which are long.
const PLAIN_RUN = /[\x20\x21\x23-\x5b\x5d-\x7e]*/y;

/** End of a String starting at `i` (on DQUOTE) with no escape, or -1. */
function plainStringEnd(s: string, i: number): number {
  PLAIN_RUN.lastIndex = i + 1;
  PLAIN_RUN.test(s);
  const e = PLAIN_RUN.lastIndex;
  // Escapes, controls, non-ASCII and the end of input all leave the fast path.
  return s.charCodeAt(e) === 34 ? e + 1 : -1;
}

// Parser state for one call (single-threaded, never re-entered).
let end = 0;

/**
 * Parameters starting at `i`: `;key=Integer` and `;key="String"` only, each key once.
 * Sets `end`; `undefined` when anything else is there.
 */
function params(s: string, i: number): Parameters | undefined {
  const out: Parameters = new Map();
  while (s.charCodeAt(i) === 59) {
    const k = keyEnd(s, i + 1);
    if (k < 0 || s.charCodeAt(k) !== 61) return undefined;
    const key = s.slice(i + 1, k);
    if (out.has(key)) return undefined;
    let j = k + 1;
    const c = s.charCodeAt(j);
    let value: BareItem;
    if (c === 34) {
      const e = plainStringEnd(s, j);
      if (e < 0) return undefined;
      value = { type: 'string', value: s.slice(j + 1, e - 1) };
      j = e;
    } else {
      const neg = c === 45;
      if (neg) j++;
      const first = s.charCodeAt(j);
      // Canonical Integers: no leading zero (except "0" itself), no "-0".
      if (first === 48) {
        if (neg) return undefined;
        j++;
        value = { type: 'integer', value: 0 };
      } else {
        if (!(first >= 49 && first <= 57)) return undefined;
        const start = j;
        let n = 0;
        for (;;) {
          const d = s.charCodeAt(j);
          if (!(d >= 48 && d <= 57)) break;
          n = n * 10 + (d - 48);
          j++;
        }
        if (j - start > MAX_INTEGER_DIGITS) return undefined;
        value = { type: 'integer', value: neg ? -n : n };
      }
      const after = s.charCodeAt(j);
      // A Decimal, more digits after "0", or a Token-like tail is not for this reader.
      if (after === 46 || (after >= 48 && after <= 57) || (after >= 65 && after <= 90) || (after >= 97 && after <= 122)) return undefined;
    }
    out.set(key, value);
    i = j;
  }
  end = i;
  return out;
}

/** Moves past `, ` style separators (OWS "," OWS, RFC 9651 §4.2.2); -1 when malformed. */
function nextMember(s: string, i: number): number {
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
  if (i >= s.length) return i;
  if (s.charCodeAt(i) !== 44) return -1;
  i++;
  while (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9) i++;
  return i < s.length ? i : -1;
}

/**
 * Signature-Input in the common canonical shape, each input with its received text;
 * `undefined` when the value is anything else.
 */
export function readReceivedInputs(s: string): Map<string, ReceivedSignatureInput> | undefined {
  const out = new Map<string, ReceivedSignatureInput>();
  const n = s.length;
  let i = 0;
  while (s.charCodeAt(i) === 32) i++;
  while (i < n) {
    const k = keyEnd(s, i);
    if (k < 0 || s.charCodeAt(k) !== 61 || s.charCodeAt(k + 1) !== 40) return undefined;
    const label = s.slice(i, k);
    if (out.has(label)) return undefined;
    const open = k + 1;
    let j = open + 1;
    const components: ComponentIdentifier[] = [];
    const idTexts: string[] = [];
    if (s.charCodeAt(j) !== 41) {
      for (;;) {
        if (s.charCodeAt(j) !== 34) return undefined;
        const e = plainStringEnd(s, j);
        if (e < 0) return undefined;
        const p = params(s, e);
        if (p === undefined) return undefined;
        components.push({ name: s.slice(j + 1, e - 1), params: p });
        idTexts.push(s.slice(j, end));
        j = end;
        const c = s.charCodeAt(j);
        if (c === 41) break;
        // One SP, then the next item's DQUOTE (checked at the top): no other spacing.
        if (c !== 32) return undefined;
        j++;
      }
    }
    const p = params(s, j + 1);
    if (p === undefined) return undefined;
    out.set(label, { label, components, params: p, paramsText: s.slice(open, end), idTexts });
    i = nextMember(s, end);
    if (i < 0) return undefined;
  }
  return out;
}

/** Signature as `label=:base64:` members without parameters; `undefined` otherwise. */
export function readReceivedSignatures(s: string): Map<string, Uint8Array> | undefined {
  const out = new Map<string, Uint8Array>();
  const n = s.length;
  let i = 0;
  while (s.charCodeAt(i) === 32) i++;
  while (i < n) {
    const k = keyEnd(s, i);
    if (k < 0 || s.charCodeAt(k) !== 61 || s.charCodeAt(k + 1) !== 58) return undefined;
    const label = s.slice(i, k);
    if (out.has(label)) return undefined;
    const close = s.indexOf(':', k + 2);
    if (close < 0) return undefined;
    const bytes = base64DecodeRange(s, k + 2, close);
    if (bytes === undefined || s.charCodeAt(close + 1) === 59) return undefined;
    out.set(label, bytes);
    i = nextMember(s, close + 1);
    if (i < 0) return undefined;
  }
  return out;
}
