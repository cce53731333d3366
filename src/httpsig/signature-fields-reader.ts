/**
 * Internal (verification hot path): the direct readers of the Signature-Input and
 * Signature fields as signers nearly always write them, canonical RFC 9651 text with
 * Integer and plain String parameters:
 *
 *   sig1=("@authority" "signature-agent";key="sig1");created=1735689600;keyid="…";tag="web-bot-auth"
 *   sig1=:base64…:
 *
 * They build the parsed structures directly (no intermediate Items): for
 * Signature-Input, the components, the typed view of the signature parameters (only
 * the registered ones, RFC 9421 §2.3) and the received text, which is canonical by
 * construction. This is the one place where received text is kept for the signature
 * base. Anything else (other parameters or item types, escapes, extra whitespace, a
 * repeated key, an error) makes them answer `undefined`, and the caller takes the
 * general parser (`core/sf-parse.ts`), which decides and reports; the base of what
 * it reads is built by serialisation. test/httpsig/received-text.test.ts holds these
 * readers to the general parser and the serialiser.
 */
import { base64DecodeRangeToSlab } from '../core/base64';
import { parseDictionary } from '../core/sf-parse';
import type { BareItem, Parameters } from '../core/sf-types';
import { ALGORITHMS } from '../crypto/algorithm-names';
import type { ComponentIdentifier } from './component-id';
import type { ReceivedSignatureInput, SignatureParams } from './signature-types';
import { charTable } from '../core/char-table';

const MAX_INTEGER_DIGITS = 15;

// lcalpha / DIGIT / "_" / "-" / "." / "*" (RFC 9651 §3.1.2 key characters).
const KEY_CHAR = /* @__PURE__ */ charTable('abcdefghijklmnopqrstuvwxyz0123456789_-.*');

/** End of the key starting at `i` (lcalpha or "*" first), or -1. */
function keyEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (!((c >= 97 && c <= 122) || c === 42)) return -1;
  i++;
  // charCodeAt past the end is NaN, which indexes nothing.
  while (KEY_CHAR[s.charCodeAt(i)] === 1) i++;
  return i;
}

// Printable ASCII but backslash (RFC 9651 §3.3.3), and HTAB (OWS between members): the
// only characters this reader takes anywhere in a Signature-Input value. One native scan
// of the whole value up front; after it, a String is DQUOTE, characters that need no
// escape, DQUOTE, so its end is the next DQUOTE (no scan per String of nonces and keyids,
// which are long), unless a tab comes first. Escapes, controls and non-ASCII anywhere
// leave the fast path.
const PLAIN_TEXT = /^[\t\x20-\x5b\x5d-\x7e]*$/;

/**
 * End of a String starting at `i` (on DQUOTE), or -1; only in a value that passed
 * {@link PLAIN_TEXT}. `tab`: where the first tab after `i` is (-1: none), which no String holds.
 */
function plainStringEnd(s: string, i: number, tab: number): number {
  const e = s.indexOf('"', i + 1);
  if (e < 0) return -1;
  return tab >= 0 && tab < e ? -1 : e + 1;
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

// Most component identifiers have no parameters. They share this one empty map: what
// these readers build is internal to verification, which only reads it.
const NO_PARAMS: Parameters = new Map();

// The registered signature parameters (RFC 9421 §2.3), one bit each.
const CREATED = 1;
const EXPIRES = 2;
const KEYID = 4;
const NONCE = 8;
const TAG = 16;
const ALG = 32;

/** Whether `lit` is written in `s` at `i`: compared code unit by code unit (a builtin call such as startsWith costs more for these short keys). */
function writtenAt(s: string, i: number, lit: string): boolean {
  const n = lit.length;
  // charCodeAt past the end is NaN, equal to no code unit.
  for (let k = 0; k < n; k++) if (s.charCodeAt(i + k) !== lit.charCodeAt(k)) return false;
  return true;
}

/**
 * Which registered parameter is written `name=` at `start` (a whole key: "=" ends a key),
 * as its bit; 0 for anything else (another key, or no "="). {@link keyLength} gives its length.
 */
function registeredParam(s: string, start: number): number {
  switch (s.charCodeAt(start)) {
    case 99: // c
      return writtenAt(s, start + 1, 'reated=') ? CREATED : 0;
    case 101: // e
      return writtenAt(s, start + 1, 'xpires=') ? EXPIRES : 0;
    case 107: // k
      return writtenAt(s, start + 1, 'eyid=') ? KEYID : 0;
    case 110: // n
      return writtenAt(s, start + 1, 'once=') ? NONCE : 0;
    case 116: // t
      return writtenAt(s, start + 1, 'ag=') ? TAG : 0;
    case 97: // a
      return writtenAt(s, start + 1, 'lg=') ? ALG : 0;
    default:
      return 0;
  }
}

/** The length of a registered parameter's key, by its bit: created and expires 7, keyid and nonce 5, tag and alg 3. */
function keyLength(bit: number): number {
  return bit <= EXPIRES ? 7 : bit <= NONCE ? 5 : 3;
}

// Values that repeat request after request come back as the same string objects: the
// literal for a registered algorithm name or the Web Bot Auth tag. Their hashes are
// computed once, so the lookups that follow (algorithm registry, nonce scope) hash
// nothing new. Constants: nothing here remembers a request.
const KNOWN_STRINGS = /* @__PURE__ */ byLength(ALGORITHMS, 'web-bot-auth');

// Component names compared and looked up on every request (the profile's checks, the
// structured-field table): as literals, these comparisons and lookups are by pointer.
const KNOWN_NAMES = /* @__PURE__ */ byLength([
  '@authority',
  '@target-uri',
  '@method',
  '@path',
  '@query',
  '@query-param',
  '@scheme',
  '@request-target',
  '@status',
  'signature-agent',
  'content-digest',
  'content-type',
  'content-length',
  'date',
  'host',
]);

/** Literals grouped by length (index: the length), so a text is compared with those of its length only. */
function byLength(literals: readonly string[], ...more: string[]): readonly (readonly string[] | undefined)[] {
  const out: string[][] = [];
  for (const lit of literals) (out[lit.length] ??= []).push(lit);
  for (const lit of more) (out[lit.length] ??= []).push(lit);
  // Every length up to the longest has an entry (holes read as undefined, without a lookup up the prototype chain).
  return Array.from(out, (group) => group);
}

/**
 * `s[start, stop)`, as the literal of `known` it is written as when it is one (compared
 * where it stands, no slice made), else as a slice.
 */
function knownAt(known: readonly (readonly string[] | undefined)[], s: string, start: number, stop: number): string {
  const group = known[stop - start];
  if (group !== undefined) {
    for (let i = 0; i < group.length; i++) if (writtenAt(s, start, group[i]!)) return group[i]!;
  }
  return s.slice(start, stop);
}

/**
 * A Signature-Input member read by this module. Its `params` map is built from the
 * received text only when asked for: verification reads `view`.
 */
class DirectInput implements ReceivedSignatureInput {
  #params: Parameters | undefined;

  constructor(
    readonly label: string,
    // Internal to verification, which only reads them.
    readonly components: ComponentIdentifier[],
    readonly paramsText: string,
    readonly idTexts: string[],
    readonly view: SignatureParams,
  ) {}

  get params(): Parameters {
    if (this.#params === undefined) {
      // paramsText is a canonical Inner List: the general parser reads it back.
      const member = parseDictionary('m=' + this.paramsText).get('m')!;
      this.#params = member.params;
    }
    return this.#params;
  }
}

/** A canonical Integer starting at `j`; sets `at.end` after it. `undefined` when anything else is there. */
function readInteger(s: string, j: number, at: { end: number }): number | undefined {
  const neg = s.charCodeAt(j) === 45;
  if (neg) j++;
  const first = s.charCodeAt(j);
  let value: number;
  // Canonical Integers: no leading zero (except "0" itself), no "-0".
  if (first === 48) {
    if (neg) return undefined;
    j++;
    value = 0;
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
    value = neg ? -n : n;
  }
  // A Decimal ("1.5"), more digits after "0" ("01") or a Token-like tail ("1a") needs no
  // check here: after a value only ";", ")", SP, "," or the end may come, which the callers
  // (params, signatureParams, innerList, nextMember) check, so such a tail declines there.
  at.end = j;
  return value;
}

/**
 * One read of a Signature-Input value: the text, and `end`, the offset where the last
 * value read stopped (set by each method that succeeds).
 */
class InputReader {
  end = 0;
  /** Where the first tab not yet passed is, -1 when none is left. */
  private tab: number;
  constructor(readonly s: string) {
    this.tab = s.indexOf('\t');
  }

  /**
   * {@link plainStringEnd} for the String at `i`. Strings are read left to right, so the
   * next tab is looked for once per tab passed, not once per String: linear in the value
   * wherever its tabs are.
   */
  stringEnd(i: number): number {
    let tab = this.tab;
    if (tab >= 0 && tab <= i) this.tab = tab = this.s.indexOf('\t', i + 1);
    return plainStringEnd(this.s, i, tab);
  }

  /** Signature-Input in the common canonical shape, each input with its received text; `undefined` otherwise. */
  inputs(): Map<string, ReceivedSignatureInput> | undefined {
    const s = this.s;
    if (!PLAIN_TEXT.test(s)) return undefined;
    const out = new Map<string, ReceivedSignatureInput>();
    const n = s.length;
    let i = 0;
    while (s.charCodeAt(i) === 32) i++;
    while (i < n) {
      const input = this.member(i);
      if (input === undefined || out.has(input.label)) return undefined;
      out.set(input.label, input);
      i = nextMember(s, this.end);
      if (i < 0) return undefined;
    }
    return out;
  }

  /** The member starting at `i` (`label=(…);params`); sets `end` after it. `undefined` when not in the shape this reader takes. */
  member(i: number): DirectInput | undefined {
    const s = this.s;
    const k = keyEnd(s, i);
    if (k < 0 || s.charCodeAt(k) !== 61 || s.charCodeAt(k + 1) !== 40) return undefined;
    const label = s.slice(i, k);
    const open = k + 1;
    const list = this.innerList(open);
    if (list === undefined) return undefined;
    const view = this.signatureParams(this.end + 1);
    if (view === undefined) return undefined;
    return new DirectInput(label, list.components, s.slice(open, this.end), list.idTexts, view);
  }

  /**
   * The inner list of component identifiers starting at `open` (on "("); sets `end` to
   * its ")". `undefined` when it is not in the shape this reader takes.
   */
  innerList(open: number): { components: ComponentIdentifier[]; idTexts: string[] } | undefined {
    const s = this.s;
    let j = open + 1;
    const components: ComponentIdentifier[] = [];
    const idTexts: string[] = [];
    if (s.charCodeAt(j) !== 41) {
      for (;;) {
        if (s.charCodeAt(j) !== 34) return undefined;
        const e = this.stringEnd(j);
        if (e < 0) return undefined;
        const p = this.params(e);
        if (p === undefined) return undefined;
        components.push({ name: knownAt(KNOWN_NAMES, s, j + 1, e - 1), params: p });
        idTexts.push(s.slice(j, this.end));
        j = this.end;
        const c = s.charCodeAt(j);
        if (c === 41) break;
        // One SP, then the next item's DQUOTE (checked at the top): no other spacing.
        if (c !== 32) return undefined;
        j++;
      }
    }
    this.end = j;
    return { components, idTexts };
  }

  /** A canonical Integer starting at `j`; sets `end`. `undefined` when anything else is there. */
  integer(j: number): number | undefined {
    return readInteger(this.s, j, this);
  }

  /**
   * Component identifier parameters starting at `i`: `;key=Integer` and `;key="String"`
   * only, each key once. Sets `end`; `undefined` when anything else is there.
   */
  params(i: number): Parameters | undefined {
    const s = this.s;
    if (s.charCodeAt(i) !== 59) {
      this.end = i;
      return NO_PARAMS;
    }
    const out: Parameters = new Map();
    while (s.charCodeAt(i) === 59) {
      const k = keyEnd(s, i + 1);
      if (k < 0 || s.charCodeAt(k) !== 61) return undefined;
      const key = s.slice(i + 1, k);
      if (out.has(key)) return undefined;
      const j = k + 1;
      let value: BareItem;
      if (s.charCodeAt(j) === 34) {
        const e = this.stringEnd(j);
        if (e < 0) return undefined;
        value = { type: 'string', value: s.slice(j + 1, e - 1) };
        this.end = e;
      } else {
        const n = this.integer(j);
        if (n === undefined) return undefined;
        value = { type: 'integer', value: n };
      }
      out.set(key, value);
      i = this.end;
    }
    this.end = i;
    return out;
  }

  /**
   * Signature parameters starting at `i`, straight into their typed view: the registered
   * ones only, each once, Integers for `created`/`expires` and plain Strings for the
   * others. Sets `end`; `undefined` for anything else (another parameter, a wrong type),
   * which the general parser then reads and judges.
   */
  signatureParams(i: number): SignatureParams | undefined {
    const s = this.s;
    let seen = 0;
    let created: number | undefined;
    let expires: number | undefined;
    let keyid: string | undefined;
    let nonce: string | undefined;
    let tag: string | undefined;
    let alg: string | undefined;
    while (s.charCodeAt(i) === 59) {
      const which = registeredParam(s, i + 1);
      if (which === 0 || (seen & which) !== 0) return undefined;
      seen |= which;
      const j = i + 1 + keyLength(which) + 1;
      if (which === CREATED || which === EXPIRES) {
        const n = this.integer(j);
        if (n === undefined) return undefined;
        if (which === CREATED) created = n;
        else expires = n;
      } else {
        if (s.charCodeAt(j) !== 34) return undefined;
        const e = this.stringEnd(j);
        if (e < 0) return undefined;
        if (which === NONCE) nonce = s.slice(j + 1, e - 1);
        else if (which === KEYID) keyid = s.slice(j + 1, e - 1);
        else if (which === TAG) tag = knownAt(KNOWN_STRINGS, s, j + 1, e - 1);
        else alg = knownAt(KNOWN_STRINGS, s, j + 1, e - 1);
        this.end = e;
      }
      i = this.end;
    }
    this.end = i;
    return paramsView(seen, created, expires, nonce, alg, keyid, tag);
  }
}

/** The typed view of the registered parameters read (`seen`: their bits), members in the order signatureParams() sets them. */
function paramsView(
  seen: number,
  created: number | undefined,
  expires: number | undefined,
  nonce: string | undefined,
  alg: string | undefined,
  keyid: string | undefined,
  tag: string | undefined,
): SignatureParams {
  // All six (the common case) in one literal.
  if (seen === 63) return { created: created!, expires: expires!, nonce: nonce!, alg: alg!, keyid: keyid!, tag: tag! };
  const view: SignatureParams = {};
  if (created !== undefined) view.created = created;
  if (expires !== undefined) view.expires = expires;
  if (nonce !== undefined) view.nonce = nonce;
  if (alg !== undefined) view.alg = alg;
  if (keyid !== undefined) view.keyid = keyid;
  if (tag !== undefined) view.tag = tag;
  return view;
}

/**
 * Signature-Input in the common canonical shape, each input with its received text
 * (`paramsText`, `idTexts`) and the typed view of its parameters; `undefined` when the
 * value is anything else.
 */
export function readReceivedInputs(s: string): Map<string, ReceivedSignatureInput> | undefined {
  return new InputReader(s).inputs();
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
    const bytes = base64DecodeRangeToSlab(s, k + 2, close);
    if (bytes === undefined || s.charCodeAt(close + 1) === 59) return undefined;
    out.set(label, bytes);
    i = nextMember(s, close + 1);
    if (i < 0) return undefined;
  }
  return out;
}

/**
 * The shape of nearly every signed request, read without a map per field: Signature-Input
 * of exactly one member (as {@link readReceivedInputs} reads it) and Signature of exactly
 * one member with the same label (as {@link readReceivedSignatures} reads it). `undefined`
 * for anything else, which the caller then reads in full.
 */
export function readReceivedPair(inputText: string, sigText: string): { input: ReceivedSignatureInput; signature: Uint8Array } | undefined {
  if (!PLAIN_TEXT.test(inputText)) return undefined;
  const reader = new InputReader(inputText);
  let i = 0;
  while (inputText.charCodeAt(i) === 32) i++;
  const input = reader.member(i);
  if (input === undefined || nextMember(inputText, reader.end) !== inputText.length) return undefined;
  const s = sigText;
  i = 0;
  while (s.charCodeAt(i) === 32) i++;
  const label = input.label;
  const k = i + label.length;
  if (!writtenAt(s, i, label) || s.charCodeAt(k) !== 61 || s.charCodeAt(k + 1) !== 58) return undefined;
  const close = s.indexOf(':', k + 2);
  if (close < 0 || s.charCodeAt(close + 1) === 59 || nextMember(s, close + 1) !== s.length) return undefined;
  const signature = base64DecodeRangeToSlab(s, k + 2, close);
  return signature === undefined ? undefined : { input, signature };
}
