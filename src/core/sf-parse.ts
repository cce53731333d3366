/**
 * Structured Field Values (RFC 9651 §4.2): parsing field values into Items, Lists and
 * Dictionaries (typed as in `sf-types.ts`).
 *
 * The parser is a single forward scan over char codes (no per-character slicing),
 * linear in the input, because it runs on the structured fields a verifier sees
 * (Signature-Agent, `;sf` and `;key` components, and any Signature-Input the direct
 * reader of `httpsig/signature-fields-reader.ts` leaves to it). Every bare item keeps its lexical
 * type, so Integer `1` and Decimal `1.0` stay distinct through a round trip.
 */
import { base64Decode, base64DecodeRange } from './base64';
import { BotsigError } from './errors';
import { scanDisplayString } from './sf-display-string';
import { FALSE, TRUE } from './sf-items';
import { ALPHA, B64, DIGIT, has, KEY, LCALPHA, TOKEN } from './sf-syntax';
import type { BareItem, BareItemOf, Dictionary, InnerList, Item, List, Member, Parameters } from './sf-types';

// The run of characters a String holds without escaping: printable ASCII except
// DQUOTE and backslash. Sticky, a single character class and no alternation, so the
// match is one linear native scan that never backtracks. (Its `lastIndex` is set
// before every use: it carries nothing from one parse to the next.)
const STRING_RUN = /[\x20\x21\x23-\x5b\x5d-\x7e]*/y;

const B64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * One parse: the input and the cursor. Parsing is synchronous and never calls out;
 * each entry point makes its own Parser, so no state outlives a call.
 */
class Parser {
  readonly s: string;
  readonly n: number;
  p = 0;

  constructor(text: unknown, fn: string) {
    if (typeof text !== 'string') throw new TypeError(`${fn} expects a string`);
    this.s = text;
    this.n = text.length;
    // RFC 9651 §4.2 step 2: leading SP (not HTAB) is discarded.
    this.skipSP();
  }

  fail(what: string): never {
    // The message names the rule and the offset only: header values stay out of logs.
    throw new BotsigError('ERR_SF_PARSE', `${what} at offset ${this.p}`);
  }

  failAt(at: number, what: string): never {
    this.p = at;
    return this.fail(what);
  }

  skipSP(): void {
    const s = this.s;
    let p = this.p;
    while (s.charCodeAt(p) === 32) p++;
    this.p = p;
  }

  skipOWS(): void {
    const s = this.s;
    let p = this.p;
    for (;;) {
      const c = s.charCodeAt(p);
      if (c !== 32 && c !== 9) break;
      p++;
    }
    this.p = p;
  }

  end(): void {
    // RFC 9651 §4.2 steps 4-5: trailing SP is discarded, anything else is an error.
    this.skipSP();
    if (this.p < this.n) this.fail('unexpected character after the field value');
  }

  // RFC 9651 §4.2.1
  list(): List {
    const list: List = [];
    while (this.p < this.n) {
      list.push(this.member());
      this.skipOWS();
      if (this.p >= this.n) return list;
      if (this.s.charCodeAt(this.p) !== 44) this.fail('expected "," between list members');
      this.p++;
      this.skipOWS();
      if (this.p >= this.n) this.fail('trailing "," in list');
    }
    return list;
  }

  // RFC 9651 §4.2.2
  dictionary(): Dictionary {
    const dict: Dictionary = new Map();
    while (this.p < this.n) {
      const key = this.key();
      let member: Member;
      if (this.s.charCodeAt(this.p) === 61) {
        this.p++;
        member = this.member();
      } else {
        member = { kind: 'item', value: TRUE, params: this.params() };
      }
      // Map.set keeps the first position of a repeated key and takes the last value (§4.2.2).
      dict.set(key, member);
      this.skipOWS();
      if (this.p >= this.n) return dict;
      if (this.s.charCodeAt(this.p) !== 44) this.fail('expected "," between dictionary members');
      this.p++;
      this.skipOWS();
      if (this.p >= this.n) this.fail('trailing "," in dictionary');
    }
    return dict;
  }

  // RFC 9651 §4.2.1.1
  member(): Member {
    return this.s.charCodeAt(this.p) === 40 ? this.innerList() : this.item();
  }

  // RFC 9651 §4.2.1.2
  innerList(): InnerList {
    const s = this.s;
    this.p++; // "("
    const items: Item[] = [];
    while (this.p < this.n) {
      this.skipSP();
      if (this.p >= this.n) break;
      if (s.charCodeAt(this.p) === 41) {
        this.p++;
        return { kind: 'inner-list', items, params: this.params() };
      }
      items.push(this.item());
      const c = s.charCodeAt(this.p);
      if (c !== 32 && c !== 41 && this.p < this.n) this.fail('expected SP or ")" in inner list');
    }
    return this.fail('unterminated inner list');
  }

  // RFC 9651 §4.2.3
  item(): Item {
    const value = this.bareItem();
    return { kind: 'item', value, params: this.params() };
  }

  // RFC 9651 §4.2.3.1
  bareItem(): BareItem {
    const c = this.s.charCodeAt(this.p);
    if (c === 45 || has(c, DIGIT)) return this.number();
    if (c === 34) return { type: 'string', value: this.string() };
    if (c === 42 || has(c, ALPHA)) return { type: 'token', value: this.token() };
    switch (c) {
      case 58:
        return { type: 'binary', value: this.binary() };
      case 63:
        return this.boolean();
      case 64:
        return this.date();
      case 37:
        return { type: 'displaystring', value: this.displayString() };
      default:
        return this.p >= this.n ? this.fail('expected a bare item, found end of input') : this.fail('expected a bare item');
    }
  }

  // RFC 9651 §4.2.3.2
  params(): Parameters {
    const s = this.s;
    const params: Parameters = new Map();
    while (s.charCodeAt(this.p) === 59) {
      this.p++;
      this.skipSP();
      const key = this.key();
      let value: BareItem = TRUE;
      if (s.charCodeAt(this.p) === 61) {
        this.p++;
        value = this.bareItem();
      }
      params.set(key, value);
    }
    return params;
  }

  // RFC 9651 §4.2.3.3
  key(): string {
    const s = this.s;
    const start = this.p;
    const c = s.charCodeAt(start);
    if (c !== 42 && !has(c, LCALPHA)) this.fail('expected a key');
    let p = start + 1;
    while (has(s.charCodeAt(p), KEY)) p++;
    this.p = p;
    return s.slice(start, p);
  }

  // RFC 9651 §4.2.4
  number(): BareItemOf<'integer'> | BareItemOf<'decimal'> {
    const s = this.s;
    let p = this.p;
    let neg = false;
    if (s.charCodeAt(p) === 45) {
      neg = true;
      p++;
    }
    if (!has(s.charCodeAt(p), DIGIT)) this.failAt(p, 'expected a digit');
    let value = 0;
    let digits = 0;
    for (;;) {
      const c = s.charCodeAt(p);
      if (c >= 48 && c <= 57) {
        // Checked per digit, so a long run of digits fails after 16 of them, not at its end.
        if (++digits > 15) this.failAt(p, 'integer with more than 15 digits');
        value = value * 10 + (c - 48);
        p++;
      } else if (c === 46) {
        if (digits > 12) this.failAt(p, 'decimal with more than 12 integer digits');
        p++;
        const fracStart = p;
        for (;;) {
          const f = s.charCodeAt(p);
          if (!(f >= 48 && f <= 57)) break;
          if (p - fracStart === 3) this.failAt(p, 'decimal with more than 3 fractional digits');
          value = value * 10 + (f - 48);
          p++;
        }
        const scale = p - fracStart;
        if (scale === 0) this.failAt(p, 'decimal ending in "."');
        this.p = p;
        // All digits as one integer (at most 15, so exact) divided by a power of ten: IEEE
        // division rounds the exact quotient once, which is the double nearest the literal.
        const d = value / (scale === 1 ? 10 : scale === 2 ? 100 : 1000);
        return { type: 'decimal', value: neg && d !== 0 ? -d : d };
      } else {
        break;
      }
    }
    this.p = p;
    return { type: 'integer', value: neg && value !== 0 ? -value : value };
  }

  // RFC 9651 §4.2.5
  string(): string {
    // Hot loop on locals, not on `this`.
    const s = this.s;
    const n = this.n;
    const first = this.p + 1; // past DQUOTE
    // Nonces and keyids are long: scanning their plain run natively beats a charCodeAt
    // loop several times over. What stops it (DQUOTE, escape, bad character) is handled below.
    STRING_RUN.lastIndex = first;
    let p = STRING_RUN.test(s) ? STRING_RUN.lastIndex : first;
    if (p < n && s.charCodeAt(p) === 34) {
      this.p = p + 1;
      return s.slice(first, p);
    }
    let out = '';
    let chunk = first;
    while (p < n) {
      const c = s.charCodeAt(p);
      if (c === 34) {
        const value = out === '' ? s.slice(chunk, p) : out + s.slice(chunk, p);
        this.p = p + 1;
        return value;
      }
      if (c === 92) {
        const d = s.charCodeAt(p + 1);
        if (d !== 34 && d !== 92) this.failAt(p + 1, p + 1 >= n ? 'unterminated string' : 'invalid escape in string');
        out += s.slice(chunk, p);
        chunk = p + 1; // the escaped character starts the next run
        p += 2;
        continue;
      }
      if (c < 0x20 || c > 0x7e) this.failAt(p, 'invalid character in string');
      p++;
    }
    return this.failAt(p, 'unterminated string');
  }

  // RFC 9651 §4.2.6 (the caller has checked the first character)
  token(): string {
    const s = this.s;
    const start = this.p;
    let p = start + 1;
    while (has(s.charCodeAt(p), TOKEN)) p++;
    this.p = p;
    return s.slice(start, p);
  }

  // RFC 9651 §4.2.7
  binary(): Uint8Array {
    const s = this.s;
    const start = this.p + 1; // past ":"
    // Well-formed input: decoded in place up to the next ":" (the decoder checks every
    // character). Anything else takes the scan below, which locates the error.
    const close = s.indexOf(':', start);
    if (close >= 0) {
      const decoded = base64DecodeRange(s, start, close);
      if (decoded !== undefined) {
        this.p = close + 1;
        return decoded;
      }
    }
    let p = start;
    for (;;) {
      const c = s.charCodeAt(p);
      if (c === 58) break;
      if (!has(c, B64)) this.failAt(p, p >= this.n ? 'unterminated byte sequence' : 'invalid character in byte sequence');
      p++;
    }
    const bytes = base64DecodeRange(s, start, p) ?? decodeWithPadBits(s.slice(start, p));
    if (bytes === undefined) this.failAt(start, 'invalid base64 in byte sequence');
    this.p = p + 1;
    return bytes;
  }

  // RFC 9651 §4.2.8
  boolean(): BareItemOf<'boolean'> {
    const c = this.s.charCodeAt(++this.p); // past "?"
    if (c === 49 || c === 48) {
      this.p++;
      return c === 49 ? TRUE : FALSE;
    }
    return this.fail('expected "0" or "1" in boolean');
  }

  // RFC 9651 §4.2.9
  date(): BareItemOf<'date'> {
    const start = ++this.p; // past "@"
    const n = this.number();
    if (n.type !== 'integer') this.failAt(start, 'date is not an integer');
    return { type: 'date', value: n.value };
  }

  // RFC 9651 §4.2.10
  displayString(): string {
    const r = scanDisplayString(this.s, this.p);
    if (r.error !== undefined) return this.failAt(r.at, r.error);
    this.p = r.at;
    return r.value;
  }
}

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

// ---------------------------------------------------------------------------
// Entry points

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
  const parser = new Parser(text, 'parseItem');
  const item = parser.item();
  parser.end();
  return item;
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
  const parser = new Parser(text, 'parseList');
  const list = parser.list();
  parser.end();
  return list;
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
  const parser = new Parser(text, 'parseDictionary');
  const dict = parser.dictionary();
  parser.end();
  return dict;
}
