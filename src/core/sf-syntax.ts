/**
 * Structured Field Values (RFC 9651 §3): the character classes and limits of the
 * syntax, shared by the parser (`sf-parse.ts`) and the serialiser (`sf-serialize.ts`).
 */

export const DIGIT = 1;
export const LCALPHA = 2;
export const KEY = 4; // lcalpha / DIGIT / "_" / "-" / "." / "*"
export const TOKEN = 8; // tchar / ":" / "/"
export const ALPHA = 16;
export const B64 = 32; // ALPHA / DIGIT / "+" / "/" / "="
export const LCHEX = 64; // DIGIT / a-f

// One table lookup per character (RFC 9651 §3 ABNF).
const CC = /* @__PURE__ */ classTable();
function classTable(): Uint8Array {
  const cc = new Uint8Array(128);
  for (let c = 48; c <= 57; c++) cc[c] = DIGIT | KEY | TOKEN | B64 | LCHEX;
  for (let c = 97; c <= 122; c++) cc[c] = LCALPHA | KEY | TOKEN | ALPHA | B64 | (c <= 102 ? LCHEX : 0);
  for (let c = 65; c <= 90; c++) cc[c] = TOKEN | ALPHA | B64;
  for (const ch of "!#$%&'*+-.^_`|~:/") cc[ch.charCodeAt(0)]! |= TOKEN;
  for (const ch of '_-.*') cc[ch.charCodeAt(0)]! |= KEY;
  for (const ch of '+/=') cc[ch.charCodeAt(0)]! |= B64;
  return cc;
}

/** True when the char code `c` is in one of the classes `cls`. */
export function has(c: number, cls: number): boolean {
  // c < 128 is also false for NaN, which charCodeAt returns past the end.
  return c < 128 && (CC[c]! & cls) !== 0;
}

/** Integers (and Dates) are within ±MAX_INTEGER (RFC 9651 §3.3.1). */
export const MAX_INTEGER = 999_999_999_999_999;
