/**
 * Base64 and base64url (RFC 4648 §4, §5) without Buffer, so the same code runs in
 * browsers and Workers. Decoders are strict: they return `undefined` on any
 * character outside the alphabet or a bad length, never throw.
 *
 * These run on every signature a verifier sees (the Signature field is a Byte
 * Sequence), so both directions work four characters at a time with table lookups.
 */
const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

// 255 = not in the alphabet. One table per accepted alphabet, so the loop does one
// lookup per character and no alphabet test (RFC 4648 §5 is a superset here).
function decodeTable(alphabets: readonly string[]): Uint8Array {
  const table = new Uint8Array(128).fill(255);
  for (const alphabet of alphabets) for (let i = 0; i < 64; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
}
const DECODE_STD = decodeTable([STD]);
const DECODE_URL = decodeTable([URL]);
const DECODE_ANY = decodeTable([STD, URL]);

// Two output characters per 12 input bits: half the string concatenations of a
// character-at-a-time encoder. Built on first use (4096 short strings per alphabet).
let pairsStd: string[] | undefined;
let pairsUrl: string[] | undefined;
function pairTable(alphabet: string): string[] {
  const out = new Array<string>(4096);
  for (let i = 0; i < 4096; i++) out[i] = alphabet[i >>> 6]! + alphabet[i & 63]!;
  return out;
}

function encode(bytes: Uint8Array, alphabet: string, pairs: readonly string[], pad: boolean): string {
  let out = '';
  const n = bytes.length;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += pairs[v >>> 12]! + pairs[v & 4095]!;
  }
  if (i < n) {
    const v = (bytes[i]! << 16) | ((i + 1 < n ? bytes[i + 1]! : 0) << 8);
    out += pairs[v >>> 12]!;
    if (i + 1 < n) out += alphabet[(v >>> 6) & 63]!;
    if (pad) out += i + 1 < n ? '=' : '==';
  }
  return out;
}

export type Base64Alphabet = 'base64' | 'base64url' | 'either';

/**
 * Decodes `text[start, stop)` as base64 (`+/`), base64url (`-_`) or either, per
 * `table`. Padding is optional but, when present, must be correct. Returns
 * `undefined` for anything malformed.
 */
function decodeRange(text: string, start: number, stop: number, table: Uint8Array): Uint8Array | undefined {
  let end = stop;
  if (end > start && text.charCodeAt(end - 1) === 61 /* = */) end--;
  if (end > start && text.charCodeAt(end - 1) === 61) end--;
  if (end !== stop && (stop - start) % 4 !== 0) return undefined;
  const len = end - start;
  const rem = len & 3;
  if (rem === 1) return undefined;
  const out = new Uint8Array((len >>> 2) * 3 + (rem === 0 ? 0 : rem - 1));
  let o = 0;
  let i = start;
  const whole = end - rem;
  for (; i < whole; i += 4) {
    const a = text.charCodeAt(i);
    const b = text.charCodeAt(i + 1);
    const c = text.charCodeAt(i + 2);
    const d = text.charCodeAt(i + 3);
    if ((a | b | c | d) > 127) return undefined;
    const va = table[a]!;
    const vb = table[b]!;
    const vc = table[c]!;
    const vd = table[d]!;
    // Values are 0..63, so the union exceeds 63 only when one of them is 255.
    if ((va | vb | vc | vd) > 63) return undefined;
    const v = (va << 18) | (vb << 12) | (vc << 6) | vd;
    out[o] = v >>> 16;
    out[o + 1] = (v >>> 8) & 0xff;
    out[o + 2] = v & 0xff;
    o += 3;
  }
  if (rem === 0) return out;
  const a = text.charCodeAt(i);
  const b = text.charCodeAt(i + 1);
  const c = rem === 3 ? text.charCodeAt(i + 2) : 65; // 'A' (0) stands in for a missing third character
  if ((a | b | c) > 127) return undefined;
  const va = table[a]!;
  const vb = table[b]!;
  const vc = table[c]!;
  if ((va | vb | vc) > 63) return undefined;
  const v = (va << 18) | (vb << 12) | (vc << 6);
  // Non-canonical trailing bits (e.g. "QR==" for "A") are rejected.
  if (rem === 2 ? (v & 0xffff) !== 0 : (v & 0xff) !== 0) return undefined;
  out[o] = v >>> 16;
  if (rem === 3) out[o + 1] = (v >>> 8) & 0xff;
  return out;
}

/** Standard base64 with padding (RFC 4648 §4), as used in Structured Field byte sequences. */
export function base64Encode(bytes: Uint8Array): string {
  return encode(bytes, STD, (pairsStd ??= pairTable(STD)), true);
}

/** base64url without padding (RFC 4648 §5, RFC 7515 §2), as used in JWKs and nonces. */
export function base64UrlEncode(bytes: Uint8Array): string {
  return encode(bytes, URL, (pairsUrl ??= pairTable(URL)), false);
}

export function base64Decode(text: string): Uint8Array | undefined {
  return decodeRange(text, 0, text.length, DECODE_STD);
}

/**
 * Decodes standard base64 from `text[start, end)` without copying the substring
 * first (the Structured Field parser decodes Byte Sequences in place).
 */
export function base64DecodeRange(text: string, start: number, end: number): Uint8Array | undefined {
  return decodeRange(text, start, end, DECODE_STD);
}

export function base64UrlDecode(text: string): Uint8Array | undefined {
  return decodeRange(text, 0, text.length, DECODE_URL);
}

/** Accepts base64 or base64url, padded or not (nonces in the wild use both). */
export function base64AnyDecode(text: string): Uint8Array | undefined {
  return decodeRange(text, 0, text.length, DECODE_ANY);
}

const encoder = new TextEncoder();
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Constant-time equality of two byte arrays (length leaks, content does not). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
