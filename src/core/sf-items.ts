/**
 * Structured Field Values (RFC 9651 §3): constructors for bare items, Items and Inner
 * Lists. They check JavaScript types only; whether a value fits the RFC's ranges and
 * alphabets is checked when it is serialised (`sf-serialize.ts`).
 */
import type { BareItem, BareItemOf, InnerList, Item, Parameters } from './sf-types';

/** Boolean true and false: one frozen object each, shared by the parser and `sfBoolean`. */
export const TRUE: BareItemOf<'boolean'> = /* @__PURE__ */ Object.freeze({ type: 'boolean', value: true });
export const FALSE: BareItemOf<'boolean'> = /* @__PURE__ */ Object.freeze({ type: 'boolean', value: false });

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
