/**
 * Base64 and base64url (RFC 4648 §4, §5) without Buffer, so the same code runs in
 * browsers and Workers. Decoders are strict: they return `undefined` on any
 * character outside the alphabet or a bad length, never throw.
 */
const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

// 255 = not in alphabet; both alphabets decode (RFC 4648 §5 is a superset here).
const DECODE = new Uint8Array(128).fill(255);
for (let i = 0; i < 64; i++) {
  DECODE[STD.charCodeAt(i)] = i;
  DECODE[URL.charCodeAt(i)] = i;
}

function encode(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = '';
  const n = bytes.length;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += alphabet[v >>> 18]! + alphabet[(v >>> 12) & 63]! + alphabet[(v >>> 6) & 63]! + alphabet[v & 63]!;
  }
  if (i < n) {
    const v = (bytes[i]! << 16) | ((i + 1 < n ? bytes[i + 1]! : 0) << 8);
    out += alphabet[v >>> 18]! + alphabet[(v >>> 12) & 63]!;
    if (i + 1 < n) out += alphabet[(v >>> 6) & 63]!;
    if (pad) out += i + 1 < n ? '=' : '==';
  }
  return out;
}

export type Base64Alphabet = 'base64' | 'base64url' | 'either';

/**
 * Decodes base64 (`+/`), base64url (`-_`) or either. Padding is optional but, when
 * present, must be correct. Returns `undefined` for anything malformed.
 */
function decode(text: string, alphabet: Base64Alphabet): Uint8Array | undefined {
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 61 /* = */) end--;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  if (end !== text.length && text.length % 4 !== 0) return undefined;
  const rem = end % 4;
  if (rem === 1) return undefined;
  const out = new Uint8Array(((end >>> 2) * 3) + (rem === 0 ? 0 : rem - 1));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) return undefined;
    if (alphabet === 'base64' && (c === 45 || c === 95)) return undefined;
    if (alphabet === 'base64url' && (c === 43 || c === 47)) return undefined;
    const v = DECODE[c]!;
    if (v === 255) return undefined;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >>> bits) & 0xff;
    }
  }
  // Non-canonical trailing bits (e.g. "QR==" for "A") are rejected.
  if (bits > 0 && (acc & ((1 << bits) - 1)) !== 0) return undefined;
  return out;
}

/** Standard base64 with padding (RFC 4648 §4), as used in Structured Field byte sequences. */
export function base64Encode(bytes: Uint8Array): string {
  return encode(bytes, STD, true);
}

/** base64url without padding (RFC 4648 §5, RFC 7515 §2), as used in JWKs and nonces. */
export function base64UrlEncode(bytes: Uint8Array): string {
  return encode(bytes, URL, false);
}

export function base64Decode(text: string): Uint8Array | undefined {
  return decode(text, 'base64');
}

export function base64UrlDecode(text: string): Uint8Array | undefined {
  return decode(text, 'base64url');
}

/** Accepts base64 or base64url, padded or not (nonces in the wild use both). */
export function base64AnyDecode(text: string): Uint8Array | undefined {
  return decode(text, 'either');
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
