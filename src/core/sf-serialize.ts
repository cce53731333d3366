/**
 * Structured Field Values (RFC 9651 §4.1): serialisation of Items, Lists, Dictionaries
 * and their parts. Every bare item is written by its lexical type, so Integer `1` and
 * Decimal `1.0` stay distinct (RFC 9421 §2.1.1 relies on it).
 */
import { base64Encode } from './base64';
import { BotsigError } from './errors';
import { serializeDisplayString } from './sf-display-string';
import { ALPHA, has, KEY, LCALPHA, MAX_INTEGER, TOKEN } from './sf-syntax';
import type { BareItem, Dictionary, InnerList, Item, List, Member, Parameters } from './sf-types';

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
