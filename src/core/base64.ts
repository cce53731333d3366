/**
 * Base64 and base64url (RFC 4648 §4, §5) without Buffer, so the same code runs in
 * browsers and Workers. Decoders are strict: they return `undefined` on any
 * character outside the alphabet or a bad length, never throw.
 *
 * The Byte Sequence decoders run on every signature a verifier sees (the Signature
 * field is one), and the encoders on every signature an agent makes, so they work four
 * characters at a time with table lookups. The base64url and either-alphabet decoders
 * (key members, nonces, data URLs) apply the same rules a character at a time: less
 * code in bundles that only import keys.
 */
import { slabBytes } from './byte-slab';

const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL = STD.slice(0, 62) + '-_';

// 255 = not in the alphabet. One table per accepted alphabet, so the loop does one
// lookup per character and no alphabet test (RFC 4648 §5 is a superset here).
function decodeTable(alphabets: readonly string[]): Uint8Array {
  const table = new Uint8Array(128).fill(255);
  for (const alphabet of alphabets) for (let i = 0; i < 64; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
}
const DECODE_STD = /* @__PURE__ */ decodeTable([STD]);
const DECODE_URL = /* @__PURE__ */ decodeTable([URL]);
const DECODE_ANY = /* @__PURE__ */ decodeTable([STD, URL]);

// The alphabets as character codes, for the encoder.
const STD_CODES = /* @__PURE__ */ codes(STD);
const URL_CODES = /* @__PURE__ */ codes(URL);
function codes(alphabet: string): Uint8Array {
  const out = new Uint8Array(64);
  for (let i = 0; i < 64; i++) out[i] = alphabet.charCodeAt(i);
  return out;
}

// Bytes per String.fromCharCode call: a multiple of 3 (whole groups), and few enough
// character codes (8,192) for any engine's argument limit.
const ENCODE_CHUNK = 6144;

/**
 * Character codes into an array, then one String.fromCharCode per chunk: the result
 * is a flat string. (Appending two characters at a time builds a rope of many pieces,
 * which the next reader, e.g. a TextEncoder, must first copy into one.)
 */
function encode(bytes: Uint8Array, alphabet: Uint8Array, pad: boolean): string {
  const n = bytes.length;
  let out = '';
  for (let start = 0; start < n; start += ENCODE_CHUNK) {
    const stop = Math.min(n, start + ENCODE_CHUNK);
    out += encodeChunk(bytes, start, stop, alphabet, pad);
  }
  return out;
}

function encodeChunk(bytes: Uint8Array, start: number, stop: number, alphabet: Uint8Array, pad: boolean): string {
  const whole = start + Math.floor((stop - start) / 3) * 3;
  const rest = stop - whole;
  const chars: number[] = new Array<number>(((whole - start) / 3) * 4 + (rest === 0 ? 0 : pad ? 4 : rest + 1));
  let o = 0;
  for (let i = start; i < whole; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    chars[o++] = alphabet[v >>> 18]!;
    chars[o++] = alphabet[(v >>> 12) & 63]!;
    chars[o++] = alphabet[(v >>> 6) & 63]!;
    chars[o++] = alphabet[v & 63]!;
  }
  if (rest > 0) {
    const v = (bytes[whole]! << 16) | (rest === 2 ? bytes[whole + 1]! << 8 : 0);
    chars[o++] = alphabet[v >>> 18]!;
    chars[o++] = alphabet[(v >>> 12) & 63]!;
    if (rest === 2) chars[o++] = alphabet[(v >>> 6) & 63]!;
    if (pad) {
      chars[o++] = 61; // '='
      if (rest === 1) chars[o++] = 61;
    }
  }
  return String.fromCharCode.apply(null, chars);
}

function newBytes(n: number): Uint8Array {
  return new Uint8Array(n);
}

/**
 * Decodes `text[start, stop)` as base64 (`+/`), base64url (`-_`) or either, per
 * `table`. Padding is optional but, when present, must be correct. Returns
 * `undefined` for anything malformed.
 */
function decodeRange(text: string, start: number, stop: number, table: Uint8Array, alloc: (n: number) => Uint8Array = newBytes): Uint8Array | undefined {
  let end = stop;
  if (end > start && text.charCodeAt(end - 1) === 61 /* = */) end--;
  if (end > start && text.charCodeAt(end - 1) === 61) end--;
  if (end !== stop && (stop - start) % 4 !== 0) return undefined;
  const len = end - start;
  const rem = len & 3;
  if (rem === 1) return undefined;
  const out = alloc((len >>> 2) * 3 + (rem === 0 ? 0 : rem - 1));
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
  return encode(bytes, STD_CODES, true);
}

/** base64url without padding (RFC 4648 §5, RFC 7515 §2), as used in JWKs and nonces. */
export function base64UrlEncode(bytes: Uint8Array): string {
  return encode(bytes, URL_CODES, false);
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

/**
 * {@link base64DecodeRange} into a view of a shared slab (`byte-slab.ts`): for bytes that
 * are read right away and dropped (a received signature handed to the crypto provider).
 */
export function base64DecodeRangeToSlab(text: string, start: number, end: number): Uint8Array | undefined {
  return decodeRange(text, start, end, DECODE_STD, slabBytes);
}

/**
 * {@link decodeRange}'s rules (optional but correct padding, canonical trailing bits) on
 * all of `text`, a character at a time: the decoder of the calls off the hot path.
 */
function decodeText(text: string, table: Uint8Array): Uint8Array | undefined {
  const stop = text.length;
  let end = stop;
  while (end > 0 && stop - end < 2 && text.charCodeAt(end - 1) === 61 /* = */) end--;
  if ((end !== stop && stop % 4 !== 0) || (end & 3) === 1) return undefined;
  const out = new Uint8Array((end * 3) >>> 2);
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    // Past the table (code 128 and up) is outside every alphabet, as 255 is.
    const v = table[text.charCodeAt(i)] ?? 255;
    if (v > 63) return undefined;
    // Only the low bits matter: the int32 overflow of `acc` drops bits already written.
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) out[o++] = acc >>> (bits -= 8);
  }
  // The bits left over must be zero: non-canonical endings (e.g. "QR==" for "A") are rejected.
  return (acc & ((1 << bits) - 1)) === 0 ? out : undefined;
}

export function base64UrlDecode(text: string): Uint8Array | undefined {
  return decodeText(text, DECODE_URL);
}

/** Accepts base64 or base64url, padded or not (nonces in the wild use both). */
export function base64AnyDecode(text: string): Uint8Array | undefined {
  return decodeText(text, DECODE_ANY);
}

const encoder = /* @__PURE__ */ new TextEncoder();
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
