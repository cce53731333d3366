/**
 * Base64 and UTF-8 for building test inputs and reading outputs, written apart from
 * src/core/base64.ts (over the platform's `btoa` / `atob`, present in Node, browsers and
 * workerd) so that a test of public behaviour neither imports an internal module nor checks
 * botsig's encoder with itself. Same contracts as src/core/base64.ts: encoders give the
 * canonical text (standard base64 padded, RFC 4648 §4; base64url unpadded, §5); decoders
 * give `undefined` for anything but the canonical text of some bytes. The encoder's own
 * edge cases are tested in test/core/base64.test.ts.
 */

const STANDARD = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL_SAFE = /^[A-Za-z0-9_-]*$/;

function binary(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return out;
}

/** Standard base64 with padding (RFC 4648 §4). */
export function base64Encode(bytes: Uint8Array): string {
  return btoa(binary(bytes));
}

/** base64url without padding (RFC 4648 §5). */
export function base64UrlEncode(bytes: Uint8Array): string {
  return base64Encode(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of canonical padded standard base64, or `undefined`. */
export function base64Decode(text: string): Uint8Array | undefined {
  if (!STANDARD.test(text)) return undefined;
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return base64Encode(bytes) === text ? bytes : undefined;
}

/** The bytes of canonical unpadded base64url, or `undefined`. */
export function base64UrlDecode(text: string): Uint8Array | undefined {
  if (!URL_SAFE.test(text) || text.length % 4 === 1) return undefined;
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  const bytes = base64Decode(standard + '='.repeat((4 - (standard.length % 4)) % 4));
  return bytes !== undefined && base64UrlEncode(bytes) === text ? bytes : undefined;
}

/** The UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
