/**
 * Structured Field Values for HTTP (RFC 9651, which obsoletes RFC 8941): parsing and
 * serialisation of Items, Lists and Dictionaries over the typed values of `sf-types.ts`.
 *
 * The parser is a single forward scan over char codes (no regexes, no per-character
 * slicing), linear in the input, because it runs on every Signature-Input/Signature
 * header a verifier sees. Every bare item keeps its lexical type, so Integer `1` and
 * Decimal `1.0` stay distinct through a round trip (RFC 9421 §2.1.1 relies on it).
 */
import { base64Decode, base64DecodeRange, base64Encode } from './base64';
import { BotsigError } from './errors';
import type { BareItem, Dictionary, InnerList, Item, List, Member, Parameters } from './sf-types';

/** The bare item variant whose `type` is `T`. */
export type BareItemOf<T extends BareItem['type']> = Extract<BareItem, { readonly type: T }>;

// ---------------------------------------------------------------------------
// Character classes (RFC 9651 §3 ABNF), one table lookup per character.

const DIGIT = 1;
const LCALPHA = 2;
const KEY = 4; // lcalpha / DIGIT / "_" / "-" / "." / "*"
const TOKEN = 8; // tchar / ":" / "/"
const ALPHA = 16;
const B64 = 32; // ALPHA / DIGIT / "+" / "/" / "="
const LCHEX = 64; // DIGIT / a-f

const CC = new Uint8Array(128);
for (let c = 48; c <= 57; c++) CC[c] = DIGIT | KEY | TOKEN | B64 | LCHEX;
for (let c = 97; c <= 122; c++) CC[c] = LCALPHA | KEY | TOKEN | ALPHA | B64 | (c <= 102 ? LCHEX : 0);
for (let c = 65; c <= 90; c++) CC[c] = TOKEN | ALPHA | B64;
for (const ch of "!#$%&'*+-.^_`|~:/") CC[ch.charCodeAt(0)]! |= TOKEN;
for (const ch of '_-.*') CC[ch.charCodeAt(0)]! |= KEY;
for (const ch of '+/=') CC[ch.charCodeAt(0)]! |= B64;

function has(c: number, cls: number): boolean {
  // c < 128 is also false for NaN, which charCodeAt returns past the end.
  return c < 128 && (CC[c]! & cls) !== 0;
}

const MAX_INTEGER = 999_999_999_999_999;
const TRUE: BareItemOf<'boolean'> = Object.freeze({ type: 'boolean', value: true });
const FALSE: BareItemOf<'boolean'> = Object.freeze({ type: 'boolean', value: false });

// ---------------------------------------------------------------------------
// Parser state. Parsing is synchronous and never calls out, so one module-level
// cursor is safe and avoids an object per call; `finally` drops the input string.

let S = '';
let P = 0;
let N = 0;

// Canonical-text tracking, for parseDictionaryWithTexts only. CANON turns false when
// the parser consumes anything that RFC 9651 §4.1 would not write back byte for byte
// (extra whitespace, `;key=?1`, a repeated parameter, leading zeros, `-0`, and, to keep
// the rule short, every Decimal, Byte Sequence, Date and Display String). It is set
// unconditionally (a store is cheaper than a test); TEXTS is only set while tracking.
let CANON = true;
let TEXTS: Map<Item | InnerList, string> | undefined;

function fail(what: string): never {
  // The message names the rule and the offset only: header values stay out of logs.
  throw new BotsigError('ERR_SF_PARSE', `${what} at offset ${P}`);
}

function failAt(at: number, what: string): never {
  P = at;
  return fail(what);
}

function skipSP(): void {
  while (S.charCodeAt(P) === 32) P++;
}

function skipOWS(): void {
  for (;;) {
    const c = S.charCodeAt(P);
    if (c !== 32 && c !== 9) return;
    P++;
  }
}

function begin(text: unknown, fn: string): void {
  if (typeof text !== 'string') throw new TypeError(`${fn} expects a string`);
  S = text;
  P = 0;
  N = text.length;
  // RFC 9651 §4.2 step 2: leading SP (not HTAB) is discarded.
  skipSP();
}

function end(): void {
  // RFC 9651 §4.2 steps 4-5: trailing SP is discarded, anything else is an error.
  skipSP();
  if (P < N) fail('unexpected character after the field value');
}

// RFC 9651 §4.2.1
function readList(): List {
  const list: List = [];
  while (P < N) {
    list.push(readMember());
    skipOWS();
    if (P >= N) return list;
    if (S.charCodeAt(P) !== 44) fail('expected "," between list members');
    P++;
    skipOWS();
    if (P >= N) fail('trailing "," in list');
  }
  return list;
}

// RFC 9651 §4.2.2
function readDictionary(): Dictionary {
  const dict: Dictionary = new Map();
  while (P < N) {
    const key = readKey();
    let member: Member;
    if (S.charCodeAt(P) === 61) {
      P++;
      member = readMember();
    } else {
      member = { kind: 'item', value: TRUE, params: readParams() };
    }
    // Map.set keeps the first position of a repeated key and takes the last value (§4.2.2).
    dict.set(key, member);
    skipOWS();
    if (P >= N) return dict;
    if (S.charCodeAt(P) !== 44) fail('expected "," between dictionary members');
    P++;
    skipOWS();
    if (P >= N) fail('trailing "," in dictionary');
  }
  return dict;
}

// RFC 9651 §4.2.1.1
function readMember(): Member {
  return S.charCodeAt(P) === 40 ? readInnerList() : readItem();
}

// RFC 9651 §4.2.1.2
function readInnerList(): InnerList {
  const start = P;
  const outer: boolean = CANON;
  CANON = true;
  P++; // "("
  const items: Item[] = [];
  while (P < N) {
    const before = P;
    skipSP();
    if (P >= N) break;
    const spaces = P - before;
    if (S.charCodeAt(P) === 41) {
      // Canonical: "()" or "(a b)", no space after "(" or before ")".
      if (spaces !== 0) CANON = false;
      P++;
      const list: InnerList = { kind: 'inner-list', items, params: readParams() };
      if (TEXTS !== undefined && CANON) TEXTS.set(list, S.slice(start, P));
      CANON = CANON && outer;
      return list;
    }
    if (spaces !== (items.length === 0 ? 0 : 1)) CANON = false;
    if (TEXTS === undefined) {
      items.push(readItem());
    } else {
      const itemStart = P;
      const listCanon: boolean = CANON;
      CANON = true;
      const item = readItem();
      if (CANON) TEXTS.set(item, S.slice(itemStart, P));
      CANON = CANON && listCanon;
      items.push(item);
    }
    const c = S.charCodeAt(P);
    if (c !== 32 && c !== 41 && P < N) fail('expected SP or ")" in inner list');
  }
  return fail('unterminated inner list');
}

// RFC 9651 §4.2.3
function readItem(): Item {
  const value = readBareItem();
  return { kind: 'item', value, params: readParams() };
}

// RFC 9651 §4.2.3.1
function readBareItem(): BareItem {
  const c = S.charCodeAt(P);
  if (c === 45 || has(c, DIGIT)) return readNumber();
  if (c === 34) return { type: 'string', value: readString() };
  if (c === 42 || has(c, ALPHA)) return { type: 'token', value: readToken() };
  switch (c) {
    case 58:
      return { type: 'binary', value: readBinary() };
    case 63:
      return readBoolean();
    case 64:
      return readDate();
    case 37:
      return { type: 'displaystring', value: readDisplayString() };
    default:
      return P >= N ? fail('expected a bare item, found end of input') : fail('expected a bare item');
  }
}

// RFC 9651 §4.2.3.2
function readParams(): Parameters {
  const params: Parameters = new Map();
  while (S.charCodeAt(P) === 59) {
    P++;
    if (S.charCodeAt(P) === 32) {
      CANON = false;
      skipSP();
    }
    const key = readKey();
    let value: BareItem = TRUE;
    if (S.charCodeAt(P) === 61) {
      P++;
      value = readBareItem();
      // True is written as the bare key (RFC 9651 §4.1.1.2).
      if (value === TRUE) CANON = false;
    }
    // A repeated key keeps one value: the text no longer matches the result.
    if (params.size !== 0 && params.has(key)) CANON = false;
    params.set(key, value);
  }
  return params;
}

// RFC 9651 §4.2.3.3
function readKey(): string {
  const start = P;
  const c = S.charCodeAt(P);
  if (c !== 42 && !has(c, LCALPHA)) fail('expected a key');
  const s = S;
  let p = P + 1;
  while (has(s.charCodeAt(p), KEY)) p++;
  P = p;
  return s.slice(start, p);
}

// RFC 9651 §4.2.4
function readNumber(): BareItemOf<'integer'> | BareItemOf<'decimal'> {
  const s = S;
  let p = P;
  let neg = false;
  if (s.charCodeAt(p) === 45) {
    neg = true;
    p++;
  }
  if (!has(s.charCodeAt(p), DIGIT)) failAt(p, 'expected a digit');
  let value = 0;
  let digits = 0;
  for (;;) {
    const c = s.charCodeAt(p);
    if (c >= 48 && c <= 57) {
      // Checked per digit, so a long run of digits fails after 16 of them, not at its end.
      if (++digits > 15) failAt(p, 'integer with more than 15 digits');
      value = value * 10 + (c - 48);
      p++;
    } else if (c === 46) {
      if (digits > 12) failAt(p, 'decimal with more than 12 integer digits');
      p++;
      const fracStart = p;
      for (;;) {
        const f = s.charCodeAt(p);
        if (!(f >= 48 && f <= 57)) break;
        if (p - fracStart === 3) failAt(p, 'decimal with more than 3 fractional digits');
        value = value * 10 + (f - 48);
        p++;
      }
      const scale = p - fracStart;
      if (scale === 0) failAt(p, 'decimal ending in "."');
      P = p;
      CANON = false;
      // All digits as one integer (at most 15, so exact) divided by a power of ten: IEEE
      // division rounds the exact quotient once, which is the double nearest the literal.
      const d = value / (scale === 1 ? 10 : scale === 2 ? 100 : 1000);
      return { type: 'decimal', value: neg && d !== 0 ? -d : d };
    } else {
      break;
    }
  }
  // "-0" and leading zeros ("007") are not how the value is written back.
  if ((digits > 1 || neg) && s.charCodeAt(P + (neg ? 1 : 0)) === 48) CANON = false;
  P = p;
  return { type: 'integer', value: neg && value !== 0 ? -value : value };
}

// The run of characters a String holds without escaping: printable ASCII except
// DQUOTE and backslash. Sticky, a single character class and no alternation, so the
// match is one linear native scan that never backtracks.
const STRING_RUN = /[\x20\x21\x23-\x5b\x5d-\x7e]*/y;

// RFC 9651 §4.2.5
function readString(): string {
  // Hot loop on locals: module-level bindings cost a context load and a hole check per use.
  const s = S;
  const n = N;
  const first = P + 1; // past DQUOTE
  // Nonces and keyids are long: scanning their plain run natively beats a charCodeAt
  // loop several times over. What stops it (DQUOTE, escape, bad character) is handled below.
  STRING_RUN.lastIndex = first;
  let p = STRING_RUN.test(s) ? STRING_RUN.lastIndex : first;
  if (p < n && s.charCodeAt(p) === 34) {
    P = p + 1;
    return s.slice(first, p);
  }
  let out = '';
  let chunk = first;
  while (p < n) {
    const c = s.charCodeAt(p);
    if (c === 34) {
      const value = out === '' ? s.slice(chunk, p) : out + s.slice(chunk, p);
      P = p + 1;
      return value;
    }
    if (c === 92) {
      const d = s.charCodeAt(p + 1);
      if (d !== 34 && d !== 92) {
        P = p + 1;
        fail(P >= n ? 'unterminated string' : 'invalid escape in string');
      }
      out += s.slice(chunk, p);
      chunk = p + 1; // the escaped character starts the next run
      p += 2;
      continue;
    }
    if (c < 0x20 || c > 0x7e) {
      P = p;
      fail('invalid character in string');
    }
    p++;
  }
  P = p;
  return fail('unterminated string');
}

// RFC 9651 §4.2.6 (the caller has checked the first character)
function readToken(): string {
  const s = S;
  const start = P;
  let p = P + 1;
  while (has(s.charCodeAt(p), TOKEN)) p++;
  P = p;
  return s.slice(start, p);
}

// RFC 9651 §4.2.7
function readBinary(): Uint8Array {
  CANON = false;
  const s = S;
  const start = P + 1; // past ":"
  // Well-formed input: decoded in place up to the next ":" (the decoder checks every
  // character). Anything else takes the scan below, which locates the error.
  const close = s.indexOf(':', start);
  if (close >= 0) {
    const decoded = base64DecodeRange(s, start, close);
    if (decoded !== undefined) {
      P = close + 1;
      return decoded;
    }
  }
  let p = start;
  for (;;) {
    const c = s.charCodeAt(p);
    if (c === 58) break;
    if (!has(c, B64)) failAt(p, p >= N ? 'unterminated byte sequence' : 'invalid character in byte sequence');
    p++;
  }
  const bytes = base64DecodeRange(s, start, p) ?? decodeWithPadBits(s.slice(start, p));
  if (bytes === undefined) failAt(start, 'invalid base64 in byte sequence');
  P = p + 1;
  return bytes;
}

const B64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * RFC 9651 §4.2.7: parsers SHOULD NOT fail on non-zero pad bits. `base64Decode` is
 * strict about them, so on its failure the last data character is retried with those
 * bits cleared; anything else wrong still fails.
 */
function decodeWithPadBits(text: string): Uint8Array | undefined {
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  const rem = end % 4;
  if (rem < 2) return undefined;
  const v = B64_ALPHABET.indexOf(text.charAt(end - 1));
  if (v < 0) return undefined;
  const fixed = B64_ALPHABET.charAt(v & (rem === 2 ? 0x30 : 0x3c));
  return base64Decode(text.slice(0, end - 1) + fixed + text.slice(end));
}

// RFC 9651 §4.2.8
function readBoolean(): BareItemOf<'boolean'> {
  P++; // "?"
  const c = S.charCodeAt(P);
  if (c === 49) {
    P++;
    return TRUE;
  }
  if (c === 48) {
    P++;
    return FALSE;
  }
  return fail('expected "0" or "1" in boolean');
}

// RFC 9651 §4.2.9
function readDate(): BareItemOf<'date'> {
  CANON = false;
  P++; // "@"
  const start = P;
  const n = readNumber();
  if (n.type !== 'integer') {
    P = start;
    fail('date is not an integer');
  }
  return { type: 'date', value: n.value };
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function hexValue(c: number): number {
  return c <= 57 ? c - 48 : c - 87;
}

// RFC 9651 §4.2.10
function readDisplayString(): string {
  CANON = false;
  const s = S;
  if (s.charCodeAt(P + 1) !== 34) failAt(P + 1, 'expected DQUOTE after "%" in display string');
  const start = P + 2;
  let p = start;
  // First pass: find the closing DQUOTE and validate, so the byte buffer is sized exactly.
  let escapes = 0;
  for (;;) {
    const c = s.charCodeAt(p);
    if (c === 34) break;
    if (c === 37) {
      if (!has(s.charCodeAt(p + 1), LCHEX) || !has(s.charCodeAt(p + 2), LCHEX)) {
        failAt(p + 1, 'invalid percent-encoding in display string');
      }
      escapes++;
      p += 3;
    } else if (c >= 0x20 && c <= 0x7e) {
      p++;
    } else {
      failAt(p, p >= N ? 'unterminated display string' : 'invalid character in display string');
    }
  }
  const stop = p;
  P = p + 1;
  if (escapes === 0) return s.slice(start, stop); // printable ASCII is valid UTF-8
  const bytes = new Uint8Array(stop - start - 2 * escapes);
  let o = 0;
  for (let i = start; i < stop; ) {
    const c = s.charCodeAt(i);
    if (c === 37) {
      bytes[o++] = (hexValue(s.charCodeAt(i + 1)) << 4) | hexValue(s.charCodeAt(i + 2));
      i += 3;
    } else {
      bytes[o++] = c;
      i++;
    }
  }
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    return failAt(start, 'invalid UTF-8 in display string');
  }
}

// ---------------------------------------------------------------------------
// Parsing entry points

/**
 * Parses a field value as an Item (RFC 9651 §4.2, §4.2.3).
 *
 * `text` is the combined field value (field lines joined with `", "`); leading and
 * trailing SP are ignored.
 *
 * @throws BotsigError `ERR_SF_PARSE` when `text` is not a valid Item (message names the offset).
 * @throws TypeError when `text` is not a string.
 * @example
 * parseItem('"sig1";key="a"') // { kind: 'item', value: { type: 'string', value: 'sig1' }, params: Map { 'key' => … } }
 */
export function parseItem(text: string): Item {
  begin(text, 'parseItem');
  try {
    const item = readItem();
    end();
    return item;
  } finally {
    S = '';
  }
}

/**
 * Parses a field value as a List of Items and Inner Lists (RFC 9651 §4.2, §4.2.1).
 * An empty (or all-SP) value is an empty list.
 *
 * @throws BotsigError `ERR_SF_PARSE` when `text` is not a valid List.
 * @throws TypeError when `text` is not a string.
 * @example
 * parseList('1, (a b);q=0.5').length // 2
 */
export function parseList(text: string): List {
  begin(text, 'parseList');
  try {
    const list = readList();
    end();
    return list;
  } finally {
    S = '';
  }
}

/**
 * Parses a field value as a Dictionary (RFC 9651 §4.2, §4.2.2). A member without
 * `=` is Boolean true with its parameters; a repeated key keeps its first position
 * and takes the last value.
 *
 * @throws BotsigError `ERR_SF_PARSE` when `text` is not a valid Dictionary.
 * @throws TypeError when `text` is not a string.
 * @example
 * parseDictionary('sig1=("@authority");created=1618884473').get('sig1')?.kind // 'inner-list'
 */
export function parseDictionary(text: string): Dictionary {
  begin(text, 'parseDictionary');
  try {
    const dict = readDictionary();
    end();
    return dict;
  } finally {
    S = '';
  }
}

/**
 * Internal (verification hot path): {@link parseDictionary}, and also records in
 * `texts`, for every Inner List member and every Item inside an Inner List, its exact
 * text when that text is already what RFC 9651 §4.1 serialisation would produce (with
 * the Inner List's text running from "(" through its parameters). A value left out of
 * `texts` is not canonical as written and must be serialised. test/core/sf-canonical
 * checks the rule against the serialiser over every corpus case and random input.
 *
 * @throws as {@link parseDictionary}.
 */
export function parseDictionaryWithTexts(text: string, texts: Map<Item | InnerList, string>): Dictionary {
  TEXTS = texts;
  try {
    return parseDictionary(text);
  } finally {
    TEXTS = undefined;
  }
}

// ---------------------------------------------------------------------------
// Serialisation (RFC 9651 §4.1)

function serializeFail(what: string): never {
  throw new BotsigError('ERR_SF_SERIALIZE', what);
}

// RFC 9651 §4.1.4
function serializeInteger(v: number, what: string): string {
  if (typeof v !== 'number') throw new TypeError(`${what} value must be a number`);
  if (!Number.isInteger(v) || v > MAX_INTEGER || v < -MAX_INTEGER) {
    serializeFail(`${what} is not an integer in the range ±999,999,999,999,999`);
  }
  return String(v); // String(-0) is "0"
}

// RFC 9651 §4.1.5
function serializeDecimal(v: number): string {
  if (typeof v !== 'number') throw new TypeError('decimal value must be a number');
  if (!Number.isFinite(v)) serializeFail('decimal is not finite');
  const abs = Math.abs(v);
  if (abs >= 1e12) serializeFail('decimal has more than 12 integer digits');
  // Round the shortest decimal spelling of the double (what the caller wrote, e.g.
  // 0.0025), not its binary expansion, half to even at three fractional digits.
  const text = String(abs);
  let thousandths: number; // abs rounded, in units of 0.001; < 1e15 so exact
  if (text.includes('e')) {
    thousandths = 0; // only below 1e-6 here, which rounds to zero
  } else {
    const dot = text.indexOf('.');
    const intPart = dot < 0 ? text : text.slice(0, dot);
    const frac = dot < 0 ? '' : text.slice(dot + 1);
    thousandths = Number(intPart) * 1000 + Number((frac + '000').slice(0, 3));
    if (frac.length > 3) {
      const next = frac.charCodeAt(3);
      // The shortest spelling has no trailing zeros: more digits after a "5" mean above half.
      if (next > 53 || (next === 53 && (frac.length > 4 || thousandths % 2 === 1))) thousandths++;
    }
  }
  if (thousandths >= 1e15) serializeFail('decimal has more than 12 integer digits');
  const intDigits = Math.floor(thousandths / 1000);
  let fracDigits = thousandths % 1000;
  let fracText: string;
  if (fracDigits === 0) fracText = '0';
  else {
    fracText = String(fracDigits).padStart(3, '0');
    while (fracDigits % 10 === 0) {
      fracDigits /= 10;
      fracText = fracText.slice(0, -1);
    }
  }
  return `${v < 0 && thousandths !== 0 ? '-' : ''}${intDigits}.${fracText}`;
}

// Printable ASCII except DQUOTE and backslash: a String that needs no escaping. One
// character class, anchored, so the match is linear. It is used instead of a charCodeAt
// loop because parsed Strings are slices of the field value, which V8 scans several
// times slower per character than a regex does.
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

// RFC 9651 §4.1.6
function serializeString(v: string): string {
  if (typeof v !== 'string') throw new TypeError('string value must be a string');
  if (PLAIN_STRING.test(v)) return '"' + v + '"';
  let out = '"';
  let chunk = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) serializeFail('string contains a character outside printable ASCII');
    if (c === 34 || c === 92) {
      out += v.slice(chunk, i) + '\\';
      chunk = i;
    }
  }
  return out + v.slice(chunk) + '"';
}

// RFC 9651 §4.1.7
function serializeToken(v: string): string {
  if (typeof v !== 'string') throw new TypeError('token value must be a string');
  const c = v.charCodeAt(0);
  if (c !== 42 && !has(c, ALPHA)) serializeFail('token does not start with ALPHA or "*"');
  for (let i = 1; i < v.length; i++) {
    if (!has(v.charCodeAt(i), TOKEN)) serializeFail('token contains a character outside tchar / ":" / "/"');
  }
  return v;
}

// RFC 9651 §4.1.1.3
function serializeKey(k: string): string {
  if (typeof k !== 'string') throw new TypeError('key must be a string');
  const c = k.charCodeAt(0);
  if (c !== 42 && !has(c, LCALPHA)) serializeFail('key does not start with lcalpha or "*"');
  for (let i = 1; i < k.length; i++) {
    if (!has(k.charCodeAt(i), KEY)) serializeFail('key contains a character outside lcalpha / DIGIT / "_-.*"');
  }
  return k;
}

const HEX = '0123456789abcdef';

function pct(out: string, byte: number): string {
  return out + '%' + HEX[byte >>> 4]! + HEX[byte & 15]!;
}

// RFC 9651 §4.1.11
function serializeDisplayString(v: string): string {
  if (typeof v !== 'string') throw new TypeError('display string value must be a string');
  let out = '%"';
  let chunk = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x25 && c !== 0x22) continue;
    out += v.slice(chunk, i);
    if (c < 0x80) {
      out = pct(out, c);
    } else if (c < 0x800) {
      out = pct(pct(out, 0xc0 | (c >>> 6)), 0x80 | (c & 63));
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = v.charCodeAt(i + 1);
      if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) {
        serializeFail('display string contains a lone surrogate');
      }
      const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      out = pct(pct(pct(pct(out, 0xf0 | (cp >>> 18)), 0x80 | ((cp >>> 12) & 63)), 0x80 | ((cp >>> 6) & 63)), 0x80 | (cp & 63));
      i++;
    } else {
      out = pct(pct(pct(out, 0xe0 | (c >>> 12)), 0x80 | ((c >>> 6) & 63)), 0x80 | (c & 63));
    }
    chunk = i + 1;
  }
  return out + v.slice(chunk) + '"';
}

/**
 * Serialises one bare item (RFC 9651 §4.1.3.1): Integer, Decimal (rounded half to even
 * to three fractional digits), String, Token, Byte Sequence, Boolean, Date, Display String.
 *
 * @throws BotsigError `ERR_SF_SERIALIZE` for a value the RFC cannot express (integer out of
 *   range, decimal with more than 12 integer digits, string outside printable ASCII, bad token…).
 * @throws TypeError when the value has the wrong JavaScript type for its `type` tag, or the tag is unknown.
 * @example
 * serializeBareItem(sfDecimal(1)) // '1.0'
 */
export function serializeBareItem(v: BareItem): string {
  switch (v.type) {
    case 'integer':
      return serializeInteger(v.value, 'integer');
    case 'decimal':
      return serializeDecimal(v.value);
    case 'string':
      return serializeString(v.value);
    case 'token':
      return serializeToken(v.value);
    case 'binary':
      if (!(v.value instanceof Uint8Array)) throw new TypeError('binary value must be a Uint8Array');
      return `:${base64Encode(v.value)}:`;
    case 'boolean':
      if (typeof v.value !== 'boolean') throw new TypeError('boolean value must be a boolean');
      return v.value ? '?1' : '?0';
    case 'date':
      return '@' + serializeInteger(v.value, 'date');
    case 'displaystring':
      return serializeDisplayString(v.value);
    default:
      throw new TypeError('unknown bare item type');
  }
}

/**
 * Serialises Parameters (RFC 9651 §4.1.1.2): `;key=value` per entry, `;key` for Boolean true.
 *
 * @throws BotsigError `ERR_SF_SERIALIZE` for an invalid key or value.
 */
export function serializeParameters(p: Parameters): string {
  let out = '';
  for (const [key, value] of p) {
    out += ';' + serializeKey(key);
    if (!(value.type === 'boolean' && value.value === true)) out += '=' + serializeBareItem(value);
  }
  return out;
}

/**
 * Serialises an Item: bare item then parameters (RFC 9651 §4.1.3).
 *
 * @throws BotsigError `ERR_SF_SERIALIZE` for an unserialisable value.
 * @example
 * serializeItem(item(sfString('sig1'), new Map([['key', sfToken('a')]]))) // '"sig1";key=a'
 */
export function serializeItem(i: Item): string {
  return serializeBareItem(i.value) + serializeParameters(i.params);
}

/**
 * Serialises an Inner List: `(a b c)` then parameters (RFC 9651 §4.1.1.1).
 *
 * @throws BotsigError `ERR_SF_SERIALIZE` for an unserialisable value.
 */
export function serializeInnerList(l: InnerList): string {
  let out = '(';
  const items = l.items;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ' ';
    out += serializeItem(items[i]!);
  }
  return out + ')' + serializeParameters(l.params);
}

/**
 * Serialises a List or Dictionary member: an Item or an Inner List.
 *
 * @throws BotsigError `ERR_SF_SERIALIZE` for an unserialisable value.
 */
export function serializeMember(m: Member): string {
  return m.kind === 'inner-list' ? serializeInnerList(m) : serializeItem(m);
}

/**
 * Serialises a List (RFC 9651 §4.1.1). An empty list gives `''`; RFC 9651 says the
 * field should then be omitted, which is the caller's decision.
 *
 * @throws BotsigError `ERR_SF_SERIALIZE` for an unserialisable value.
 * @example
 * serializeList([item(sfInteger(1)), innerList([item(sfToken('a'))])]) // '1, (a)'
 */
export function serializeList(list: List): string {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    if (i > 0) out += ', ';
    out += serializeMember(list[i]!);
  }
  return out;
}

/**
 * Serialises a Dictionary (RFC 9651 §4.1.2) in the Map's order. A member that is
 * Boolean true is written as its key and parameters alone. An empty dictionary gives `''`.
 *
 * @throws BotsigError `ERR_SF_SERIALIZE` for an invalid key or value.
 * @example
 * serializeDictionary(new Map([['a', item(sfDecimal(1))], ['b', item(sfBoolean(true))]])) // 'a=1.0, b'
 */
export function serializeDictionary(dict: Dictionary): string {
  let out = '';
  let first = true;
  for (const [key, m] of dict) {
    if (!first) out += ', ';
    first = false;
    out += serializeKey(key);
    if (m.kind === 'item' && m.value.type === 'boolean' && m.value.value === true) {
      out += serializeParameters(m.params);
    } else {
      out += '=' + serializeMember(m);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Constructors. They check JavaScript types only; whether the value fits the RFC's
// ranges and alphabets is checked when it is serialised.

function check(ok: boolean, what: string): void {
  if (!ok) throw new TypeError(what);
}

/** A String bare item (RFC 9651 §3.3.3). @throws TypeError when `s` is not a string. */
export function sfString(s: string): BareItemOf<'string'> {
  check(typeof s === 'string', 'sfString expects a string');
  return { type: 'string', value: s };
}

/** A Token bare item (RFC 9651 §3.3.4). @throws TypeError when `s` is not a string. */
export function sfToken(s: string): BareItemOf<'token'> {
  check(typeof s === 'string', 'sfToken expects a string');
  return { type: 'token', value: s };
}

/** An Integer bare item (RFC 9651 §3.3.1). @throws TypeError when `n` is not a number. */
export function sfInteger(n: number): BareItemOf<'integer'> {
  check(typeof n === 'number', 'sfInteger expects a number');
  return { type: 'integer', value: n };
}

/**
 * A Decimal bare item (RFC 9651 §3.3.2); `sfDecimal(1)` serialises as `1.0`.
 * @throws TypeError when `n` is not a number.
 */
export function sfDecimal(n: number): BareItemOf<'decimal'> {
  check(typeof n === 'number', 'sfDecimal expects a number');
  return { type: 'decimal', value: n };
}

/** A Boolean bare item (RFC 9651 §3.3.6). @throws TypeError when `b` is not a boolean. */
export function sfBoolean(b: boolean): BareItemOf<'boolean'> {
  check(typeof b === 'boolean', 'sfBoolean expects a boolean');
  return b ? TRUE : FALSE;
}

/** A Byte Sequence bare item (RFC 9651 §3.3.5). @throws TypeError when `bytes` is not a Uint8Array. */
export function sfBinary(bytes: Uint8Array): BareItemOf<'binary'> {
  check(bytes instanceof Uint8Array, 'sfBinary expects a Uint8Array');
  return { type: 'binary', value: bytes };
}

/** A Date bare item, in seconds since the epoch (RFC 9651 §3.3.7). @throws TypeError when `seconds` is not a number. */
export function sfDate(seconds: number): BareItemOf<'date'> {
  check(typeof seconds === 'number', 'sfDate expects a number');
  return { type: 'date', value: seconds };
}

/** A Display String bare item, any Unicode text (RFC 9651 §3.3.8). @throws TypeError when `s` is not a string. */
export function sfDisplayString(s: string): BareItemOf<'displaystring'> {
  check(typeof s === 'string', 'sfDisplayString expects a string');
  return { type: 'displaystring', value: s };
}

/**
 * An Item: a bare item with parameters (RFC 9651 §3.3). `params` defaults to a new empty Map.
 * @example
 * item(sfInteger(1618884473)) // { kind: 'item', value: { type: 'integer', value: 1618884473 }, params: Map {} }
 */
export function item(value: BareItem, params?: Parameters): Item {
  return { kind: 'item', value, params: params ?? new Map() };
}

/** An Inner List (RFC 9651 §3.1.1). `params` defaults to a new empty Map. */
export function innerList(items: Item[], params?: Parameters): InnerList {
  return { kind: 'inner-list', items, params: params ?? new Map() };
}

/** The parameter `name`, or `undefined` when absent. */
export function getParam(params: Parameters, name: string): BareItem | undefined {
  return params.get(name);
}
