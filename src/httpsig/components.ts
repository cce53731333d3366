/**
 * Component identifiers and component values (RFC 9421 §2): HTTP fields with the
 * `sf`, `key`, `bs`, `req` and `tr` parameters, and the derived components of §2.2.
 */
import { base64Encode } from '../core/base64';
import { BotsigError, isBotsigError } from '../core/errors';
import { parseDictionary, parseItem, parseList, serializeBareItem, serializeDictionary, serializeList, serializeMember, serializeParameters } from '../core/sf';
import type { Dictionary, Item, List, Parameters } from '../core/sf-types';
import { messageTarget } from './message';
import type { HttpMessage } from './message';

/** A covered component: its name (a lowercase field name or `@derived` name) and parameters. */
export interface ComponentIdentifier {
  name: string;
  params: Parameters;
}

/** How a structured field is parsed for `;sf` (RFC 9651 §3). */
export type StructuredFieldType = 'item' | 'list' | 'dictionary';

/** Options shared by component evaluation, base creation, signing and verification. */
export interface ComponentOptions {
  /**
   * Extra (or overriding) structured field types by lowercase field name, for `;sf`
   * on fields botsig does not know (RFC 9421 §2.1.1: both sides must know the type).
   */
  structuredFields?: Readonly<Record<string, StructuredFieldType>>;
}

/**
 * Structured fields botsig knows the type of, for `;sf` (RFC 9421 §2.1.1) and `;key`
 * (§2.1.2). Sources: RFC 9421 (signature fields and the `example-dict` of its
 * examples), RFC 9530 (digests), RFC 9218 (priority), RFC 9211 (cache-status),
 * RFC 9209 (proxy-status), RFC 9213 (targeted cache control), RFC 9440 (client-cert), RFC 8942 and the
 * client-hints drafts, Fetch metadata, and Web Bot Auth (signature-agent).
 */
export const STRUCTURED_FIELDS: ReadonlyMap<string, StructuredFieldType> = new Map<string, StructuredFieldType>([
  ['signature-input', 'dictionary'],
  ['signature', 'dictionary'],
  ['accept-signature', 'dictionary'],
  ['signature-agent', 'dictionary'],
  ['content-digest', 'dictionary'],
  ['repr-digest', 'dictionary'],
  ['want-content-digest', 'dictionary'],
  ['want-repr-digest', 'dictionary'],
  ['priority', 'dictionary'],
  ['cdn-cache-control', 'dictionary'],
  ['example-dict', 'dictionary'],
  ['cache-status', 'list'],
  ['proxy-status', 'list'],
  ['accept-ch', 'list'],
  ['sec-ch-ua', 'list'],
  ['sec-ch-ua-full-version-list', 'list'],
  ['client-cert', 'item'],
  ['client-cert-chain', 'list'],
  ['sec-ch-ua-mobile', 'item'],
  ['sec-ch-ua-platform', 'item'],
  ['sec-ch-ua-platform-version', 'item'],
  ['sec-ch-ua-arch', 'item'],
  ['sec-ch-ua-bitness', 'item'],
  ['sec-ch-ua-model', 'item'],
  ['sec-ch-ua-wow64', 'item'],
  ['sec-fetch-dest', 'item'],
  ['sec-fetch-mode', 'item'],
  ['sec-fetch-site', 'item'],
  ['sec-fetch-user', 'item'],
]);

// ---------------------------------------------------------------------------
// Identifier syntax

// tchar (RFC 9110 §5.6.2) without uppercase: a component name for a field is the
// lowercased field name (RFC 9421 §2.1).
const FIELD_CHAR = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~") FIELD_CHAR[ch.charCodeAt(0)] = 1;

function isFieldName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 128 || FIELD_CHAR[c] !== 1) return false;
  }
  return true;
}

/**
 * Parses a component identifier as written in a Signature-Input inner list
 * (`"signature-agent";key="sig1"`, RFC 9421 §2), or in the bare form used in options
 * (`@authority`, `Content-Digest`, `content-digest;sf`). Bare field names are lowercased.
 *
 * @throws BotsigError `ERR_COMPONENT_INVALID` when the text is not a String Item with
 *   parameters, or a bare name has characters outside a field name.
 * @throws TypeError when `text` is not a string.
 * @example
 * parseComponentIdentifier('"signature-agent";key="sig1"') // { name: 'signature-agent', params: Map { 'key' => … } }
 * parseComponentIdentifier('@authority') // { name: '@authority', params: Map {} }
 */
export function parseComponentIdentifier(text: string): ComponentIdentifier {
  if (typeof text !== 'string') throw new TypeError('component identifier must be a string');
  let source = text;
  if (text.charCodeAt(0) !== 34 /* " */) {
    const semi = text.indexOf(';');
    let name = (semi < 0 ? text : text.slice(0, semi)).trim();
    const derived = name.charCodeAt(0) === 64; /* @ */
    if (!derived) name = name.toLowerCase();
    if (!isFieldName(derived ? name.slice(1) : name)) {
      throw new BotsigError('ERR_COMPONENT_INVALID', 'component name is not a field name or @-name');
    }
    source = '"' + name + '"' + (semi < 0 ? '' : text.slice(semi));
  }
  let parsed;
  try {
    parsed = parseItem(source);
  } catch (err) {
    throw new BotsigError('ERR_COMPONENT_INVALID', 'component identifier is not a String Item with parameters', { cause: err });
  }
  if (parsed.value.type !== 'string') throw new BotsigError('ERR_COMPONENT_INVALID', 'component identifier must be a String');
  return { name: parsed.value.value, params: parsed.params };
}

/**
 * Serialises a component identifier: the name as an sf-string, then its parameters in
 * order (RFC 9421 §2.5, `component-identifier`).
 *
 * @throws BotsigError `ERR_COMPONENT_INVALID` when the name or a parameter cannot be serialised.
 * @example
 * serializeComponentIdentifier(parseComponentIdentifier('@authority;req')) // '"@authority";req'
 */
export function serializeComponentIdentifier(id: ComponentIdentifier): string {
  try {
    return serializeBareItem({ type: 'string', value: id.name }) + (id.params.size === 0 ? '' : serializeParameters(id.params));
  } catch (err) {
    if (isBotsigError(err)) throw new BotsigError('ERR_COMPONENT_INVALID', 'component identifier cannot be serialised', { cause: err });
    throw err;
  }
}

// ---------------------------------------------------------------------------
// Values

/**
 * The component value(s) of `id` in `message`: one entry per signature base line
 * (RFC 9421 §2.1, §2.2, §2.4). Only `@query-param` with a repeated parameter name gives
 * more than one entry (one per occurrence, in query order).
 *
 * @throws BotsigError `ERR_COMPONENT_MISSING` (absent field, dictionary member, query
 *   parameter, trailers, or related request), `ERR_COMPONENT_INVALID` (parameters that do
 *   not apply or conflict, `req` on a request, a value with CR/LF or non-ASCII, a
 *   malformed structured value), `ERR_COMPONENT_UNSUPPORTED` (unknown derived name or
 *   parameter, `;sf` on a field of unknown type), `ERR_MESSAGE_INVALID` (no usable URL or status).
 * @example
 * componentValues(toHttpMessage({ url: 'https://example.com/a?b=c' }), parseComponentIdentifier('@query')) // ['?b=c']
 */
export function componentValues(message: HttpMessage, id: ComponentIdentifier, options?: ComponentOptions): string[] {
  const v = componentValue(message, id, options);
  return typeof v === 'string' ? [v] : v;
}

/** Like {@link componentValues}, without wrapping the common single value in an array. */
export function componentValue(message: HttpMessage, id: ComponentIdentifier, options?: ComponentOptions): string | string[] {
  const name = id.name;
  let req = false;
  let sf = false;
  let bs = false;
  let tr = false;
  let key: string | undefined;
  let qname: string | undefined;
  for (const [p, v] of id.params) {
    switch (p) {
      case 'req':
      case 'sf':
      case 'bs':
      case 'tr':
        if (v.type !== 'boolean' || !v.value) throw new BotsigError('ERR_COMPONENT_INVALID', `component parameter ${p} must be a true flag`);
        if (p === 'req') req = true;
        else if (p === 'sf') sf = true;
        else if (p === 'bs') bs = true;
        else tr = true;
        break;
      case 'key':
      case 'name':
        if (v.type !== 'string') throw new BotsigError('ERR_COMPONENT_INVALID', `component parameter ${p} must be a String`);
        if (p === 'key') key = v.value;
        else qname = v.value;
        break;
      default:
        throw new BotsigError('ERR_COMPONENT_UNSUPPORTED', 'component identifier has an unknown parameter');
    }
  }

  let ctx = message;
  if (req) {
    if (message.kind === 'request') throw new BotsigError('ERR_COMPONENT_INVALID', '`req` does not apply to a request (RFC 9421 §2.4)');
    if (message.request === undefined) throw new BotsigError('ERR_COMPONENT_MISSING', 'a `req` component needs the related request');
    ctx = message.request;
  }

  if (name.charCodeAt(0) === 64 /* @ */) {
    if (sf || bs || tr || key !== undefined) {
      throw new BotsigError('ERR_COMPONENT_INVALID', 'derived components take no sf, key, bs or tr parameter');
    }
    if (qname !== undefined && name !== '@query-param') {
      throw new BotsigError('ERR_COMPONENT_INVALID', 'only @query-param takes a name parameter');
    }
    return derivedValue(ctx, name, qname);
  }

  if (!isFieldName(name)) throw new BotsigError('ERR_COMPONENT_INVALID', 'component name is not a lowercase field name');
  if (qname !== undefined) throw new BotsigError('ERR_COMPONENT_INVALID', 'the name parameter applies to @query-param only');
  if (bs && (sf || key !== undefined)) {
    throw new BotsigError('ERR_COMPONENT_INVALID', 'bs cannot be combined with sf or key (RFC 9421 §2.1)');
  }
  const fields = tr ? ctx.trailers : ctx.headers;
  const lines = fields?.get(name);
  if (lines === undefined || lines.length === 0) {
    throw new BotsigError('ERR_COMPONENT_MISSING', `covered ${tr ? 'trailer' : 'header'} field ${name} is absent`);
  }
  if (key !== undefined) return dictionaryMemberValue(name, lines, key, options);
  if (sf) return structuredValue(name, lines, options);
  // The common case: one field line of ordinary length, read as it is.
  if (!bs && lines.length === 1 && lines[0]!.length <= LONG_FIELD) return normalizeLine(lines[0]!, false);
  return fieldValue(lines, bs);
}

function fieldType(name: string, options: ComponentOptions | undefined): StructuredFieldType | undefined {
  const extra = options?.structuredFields;
  if (extra !== undefined && Object.hasOwn(extra, name)) return extra[name];
  return STRUCTURED_FIELDS.get(name);
}

function combined(lines: readonly string[]): string {
  // Empty lines carry no members; joining them would leave a stray comma.
  let out = '';
  for (const line of lines) {
    const v = normalizeLine(line, false);
    if (v === '') continue;
    out = out === '' ? v : out + ', ' + v;
  }
  return out;
}

// RFC 9421 §2.1.1
function structuredValue(name: string, lines: readonly string[], options: ComponentOptions | undefined): string {
  const type = fieldType(name, options);
  if (type === undefined) {
    throw new BotsigError('ERR_COMPONENT_UNSUPPORTED', `the structured type of field ${name} is not known (RFC 9421 §2.1.1)`);
  }
  const parsed = structuredOf(longFieldMemo(lines) ?? newMemo(lines), type, name, type);
  if (parsed.serialized !== undefined) return parsed.serialized;
  const value = parsed.value!;
  let text: string;
  try {
    text = type === 'dictionary' ? serializeDictionary(value as Dictionary) : type === 'list' ? serializeList(value as List) : serializeMember(value as Item);
  } catch (err) {
    if (isBotsigError(err)) throw new BotsigError('ERR_COMPONENT_INVALID', `field ${name} is not a valid ${type}`, { cause: err });
    throw err;
  }
  parsed.serialized = text;
  return text;
}

// RFC 9421 §2.1.2
function dictionaryMemberValue(name: string, lines: readonly string[], key: string, options: ComponentOptions | undefined): string {
  const type = fieldType(name, options);
  if (type !== undefined && type !== 'dictionary') {
    throw new BotsigError('ERR_COMPONENT_UNSUPPORTED', `field ${name} is not a Dictionary, key does not apply`);
  }
  const parsed = structuredOf(longFieldMemo(lines) ?? shortDictionaryMemo(lines), 'dictionary', name, 'Dictionary');
  // An agent sends the same Signature-Agent on every request and covers the same
  // member: the last answer is reused while both repeat.
  if (key === parsed.key) return parsed.member;
  const member = (parsed.value as Dictionary).get(key);
  if (member === undefined) throw new BotsigError('ERR_COMPONENT_MISSING', `field ${name} has no member with the covered key`);
  const value = serializeMember(member);
  parsed.key = key;
  parsed.member = value;
  return value;
}

// RFC 9421 §2.1, §2.1.3: a plain value of several or long lines, or a `;bs` value.
function fieldValue(lines: readonly string[], bs: boolean): string {
  const memo = longFieldMemo(lines);
  if (memo === undefined) return bs ? byteSequenceValue(lines) : plainValue(lines);
  let done = bs ? memo.bytes : memo.plain;
  if (done === undefined) {
    try {
      done = bs ? byteSequenceValue(lines) : plainValue(lines);
    } catch (err) {
      if (!isBotsigError(err)) throw err;
      done = err;
    }
    if (bs) memo.bytes = done;
    else memo.plain = done;
  }
  if (typeof done !== 'string') throw done;
  return done;
}

function plainValue(lines: readonly string[]): string {
  if (lines.length === 1) return normalizeLine(lines[0]!, false);
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) out += ', ';
    out += normalizeLine(lines[i]!, false);
  }
  return out;
}

// RFC 9421 §2.1.3
function byteSequenceValue(lines: readonly string[]): string {
  let out = '';
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) out += ', ';
    out += ':' + base64Encode(fieldBytes(normalizeLine(lines[i]!, true))) + ':';
  }
  return out;
}

// ---------------------------------------------------------------------------
// What is computed from a field's lines, kept while the same lines come back.
//
// A message may carry thousands of signatures, each covering the same large field:
// one member each of a Signature-Agent Dictionary (`"signature-agent";key="sigN"`),
// or the field itself. Computing the value anew for each is signatures × field
// length; these memos make it field length once, then a lookup per signature. They
// hold values computed from the lines' text only (with the structured type for the
// parsed forms), and are checked against the lines on every use.

/** Fields up to this length (all lines together) are recomputed rather than kept per message. */
const LONG_FIELD = 1024;

/** A structured field's lines parsed as `type`, or the error they give. */
interface StructuredMemo {
  readonly type: StructuredFieldType;
  readonly value: Dictionary | List | Item | undefined;
  /** Why `value` is undefined: a bad field line (`lineError`, thrown as is) or the parse's error. */
  readonly error: BotsigError | undefined;
  readonly lineError: boolean;
  /** The `;sf` value, once serialised. */
  serialized: string | undefined;
  /** The last `;key` member served, and its value. */
  key: string | undefined;
  member: string;
}

interface FieldMemo {
  /** The field lines (string references, compared with `===`). */
  readonly lines: string[];
  /** Plain and `;bs` values of the lines, or the error they give. */
  plain: string | BotsigError | undefined;
  bytes: string | BotsigError | undefined;
  structured: StructuredMemo | undefined;
}

// Long fields: one memo per lines array, i.e. per field of a message, checked by
// pointer comparison of its lines (a message's lines array holds the same strings
// while it is not changed). Short fields are recomputed, except for `;key`: the last
// short Dictionary is kept, compared by content (bounded by LONG_FIELD), so that the
// equal Signature-Agent fields of an agent's successive requests share one parse.
const longFields = new WeakMap<readonly string[], FieldMemo>();
let shortDictionary: FieldMemo = newMemo([]);

function newMemo(lines: readonly string[]): FieldMemo {
  return { lines: lines.slice(), plain: undefined, bytes: undefined, structured: undefined };
}

/** The memo of a field longer than LONG_FIELD (all lines together); `undefined` for a shorter one. */
function longFieldMemo(lines: readonly string[]): FieldMemo | undefined {
  const n = lines.length;
  let total = 0;
  for (let i = 0; i < n && total <= LONG_FIELD; i++) total += lines[i]!.length;
  if (total <= LONG_FIELD) return undefined;
  let memo = longFields.get(lines);
  if (memo === undefined || !sameLines(memo.lines, lines)) {
    memo = newMemo(lines);
    longFields.set(lines, memo);
  }
  return memo;
}

function shortDictionaryMemo(lines: readonly string[]): FieldMemo {
  if (!sameLines(shortDictionary.lines, lines)) shortDictionary = newMemo(lines);
  return shortDictionary;
}

/** True when `held` and `lines` are equal strings; `held` then takes the strings of `lines` (pointer tests next time). */
function sameLines(held: string[], lines: readonly string[]): boolean {
  const n = lines.length;
  if (n !== held.length) return false;
  for (let i = 0; i < n; i++) if (held[i] !== lines[i]) return false;
  for (let i = 0; i < n; i++) held[i] = lines[i]!;
  return true;
}

/**
 * The lines parsed as `type` (kept in `memo`), or the error: a bad field line as
 * such, a text that is not a `type` as ERR_COMPONENT_INVALID naming the field (`what`:
 * how the message names the type). A field that fails at its last character fails
 * once, however many signatures cover it.
 */
function structuredOf(memo: FieldMemo, type: StructuredFieldType, name: string, what: string): StructuredMemo {
  let parsed = memo.structured;
  if (parsed === undefined || parsed.type !== type) {
    let value: Dictionary | List | Item | undefined;
    let error: BotsigError | undefined;
    let text: string | undefined;
    try {
      text = combined(memo.lines);
      value = type === 'dictionary' ? parseDictionary(text) : type === 'list' ? parseList(text) : parseItem(text);
    } catch (err) {
      if (!isBotsigError(err)) throw err;
      error = err;
    }
    parsed = { type, value, error, lineError: text === undefined, serialized: undefined, key: undefined, member: '' };
    memo.structured = parsed;
  }
  if (parsed.value === undefined) {
    if (parsed.lineError) throw parsed.error!;
    throw new BotsigError('ERR_COMPONENT_INVALID', `field ${name} is not a valid ${what}`, { cause: parsed.error });
  }
  return parsed;
}

/**
 * The octets of a field value. Strings from `Headers` and Node carry one octet per
 * code unit (ISO-8859-1); a string with wider characters came from application code
 * and is taken as UTF-8.
 */
function fieldBytes(value: string): Uint8Array {
  let wide = false;
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0xff) {
      wide = true;
      break;
    }
  }
  if (wide) return encoder.encode(value);
  const out = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) out[i] = value.charCodeAt(i);
  return out;
}

const FIELD_LINE = /^[\t\x20-\x7e]*$/;

/**
 * One field line as a component value (RFC 9421 §2.1): obs-fold (OWS CRLF RWS, RFC
 * 9112 §5.2) becomes one SP, then outer SP/HTAB are stripped. Without `bytes`, any other
 * control character, DEL or non-ASCII is refused (§2.5 step 4: the base is ASCII).
 */
function normalizeLine(line: string, bytes: boolean): string {
  // The common case (visible ASCII, SP and HTAB only) is recognised by one linear,
  // anchored character class: faster than a charCodeAt loop on the sliced and
  // concatenated strings header values often are in V8.
  if (FIELD_LINE.test(line)) return trimWS(line);
  const n = line.length;
  let fold = false;
  for (let i = 0; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) continue;
    if (c === 9) continue;
    if (c === 13 || c === 10) {
      fold = true;
      continue;
    }
    if (!bytes) throw new BotsigError('ERR_COMPONENT_INVALID', 'field value has control or non-ASCII characters (use ;bs)');
  }
  return trimWS(fold ? unfold(line) : line);
}

/** Strips outer SP and HTAB (RFC 9421 §2.1). */
function trimWS(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isWS(s.charCodeAt(a))) a++;
  while (b > a && isWS(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

function isWS(c: number): boolean {
  return c === 32 || c === 9;
}

/**
 * Replaces each obs-fold (OWS CRLF RWS, RFC 9112 §5.2) by one SP, in one forward scan
 * that copies the character codes into a buffer: at a fold, the OWS already copied is
 * taken back (each character at most once) and one SP written. (Trimming an
 * accumulated string at each fold instead copies it every time: quadratic in the
 * number of folds.)
 */
function unfold(line: string): string {
  const n = line.length;
  const out = new Uint16Array(n);
  let o = 0;
  for (let i = 0; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c !== 13 && c !== 10) {
      out[o++] = c;
      continue;
    }
    // CRLF (or a bare LF, as some raw parsers leave it) must be followed by SP/HTAB.
    let j = i + (c === 13 && line.charCodeAt(i + 1) === 10 ? 2 : c === 10 ? 1 : 0);
    if (j === i || !isWS(line.charCodeAt(j))) {
      throw new BotsigError('ERR_COMPONENT_INVALID', 'field value has a line break that is not obs-fold');
    }
    while (j < n && isWS(line.charCodeAt(j))) j++;
    // The OWS before the line break (and a fold's SP right before it) goes with the fold.
    while (o > 0 && isWS(out[o - 1]!)) o--;
    out[o++] = 32;
    i = j - 1;
  }
  return fromCodes(out, o);
}

// Character codes per String.fromCharCode call: few enough arguments for any engine.
const CODES_CHUNK = 8192;

/** `codes[0, length)` as a string, one String.fromCharCode per chunk. */
function fromCodes(codes: Uint16Array, length: number): string {
  let s = '';
  for (let i = 0; i < length; i += CODES_CHUNK) {
    s += String.fromCharCode.apply(null, codes.subarray(i, Math.min(length, i + CODES_CHUNK)) as unknown as number[]);
  }
  return s;
}

// ---------------------------------------------------------------------------
// Derived components (RFC 9421 §2.2)

function requestOnly(message: HttpMessage, name: string): void {
  if (message.kind !== 'request') throw new BotsigError('ERR_COMPONENT_INVALID', `${name} applies to requests only (use ;req on a response)`);
}

function derivedValue(message: HttpMessage, name: string, qname: string | undefined): string | string[] {
  switch (name) {
    case '@method': {
      requestOnly(message, name);
      const method = message.method ?? 'GET';
      if (!isToken(method)) throw new BotsigError('ERR_MESSAGE_INVALID', 'request method is not a token');
      return method;
    }
    case '@target-uri':
      requestOnly(message, name);
      return messageTarget(message).href;
    case '@authority':
      requestOnly(message, name);
      return messageTarget(message).authority;
    case '@scheme':
      requestOnly(message, name);
      return messageTarget(message).scheme;
    case '@request-target': {
      requestOnly(message, name);
      if (message.target !== undefined) {
        if (!isPrintable(message.target)) throw new BotsigError('ERR_MESSAGE_INVALID', 'request-target has characters outside visible ASCII');
        return message.target;
      }
      const t = messageTarget(message);
      return t.query === undefined ? t.path : t.path + '?' + t.query;
    }
    case '@path':
      requestOnly(message, name);
      return messageTarget(message).path;
    case '@query': {
      requestOnly(message, name);
      const q = messageTarget(message).query;
      return q === undefined ? '?' : '?' + q;
    }
    case '@query-param': {
      requestOnly(message, name);
      if (qname === undefined) throw new BotsigError('ERR_COMPONENT_INVALID', '@query-param needs a name parameter');
      const values = queryParamValues(messageTarget(message).query ?? '', qname);
      if (values.length === 0) throw new BotsigError('ERR_COMPONENT_MISSING', 'covered query parameter is absent');
      return values.length === 1 ? values[0]! : values;
    }
    case '@status': {
      if (message.kind !== 'response') throw new BotsigError('ERR_COMPONENT_INVALID', '@status applies to responses only');
      const status = message.status;
      if (status === undefined || !Number.isInteger(status) || status < 100 || status > 999) {
        throw new BotsigError('ERR_MESSAGE_INVALID', 'response status is not a three-digit integer');
      }
      return String(status);
    }
    case '@signature-params':
      throw new BotsigError('ERR_COMPONENT_INVALID', '@signature-params cannot be a covered component (RFC 9421 §2.3)');
    default:
      throw new BotsigError('ERR_COMPONENT_UNSUPPORTED', 'unknown derived component');
  }
}

function isPrintable(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return true;
}

function isToken(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // tchar, uppercase allowed (methods are case-sensitive, RFC 9110 §9.1).
    if (c >= 65 && c <= 90) continue;
    if (c >= 128 || FIELD_CHAR[c] !== 1) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// @query-param (RFC 9421 §2.2.8): WHATWG application/x-www-form-urlencoded parsing,
// then percent-encoding of the UTF-8 octets with the form-urlencoded percent-encode
// set, except that SP is %20 (the RFC's examples), not "+".

// ASCII alphanumeric, "*", "-", ".", "_" are left as they are.
const FORM_SAFE = new Uint8Array(128);
for (const ch of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._') FORM_SAFE[ch.charCodeAt(0)] = 1;
const HEX_CODES = new Uint8Array([...'0123456789ABCDEF'].map((ch) => ch.charCodeAt(0)));

/**
 * The values of the query parameters named `encodedName` (the `name` parameter of
 * `@query-param`, already in encoded form), each re-encoded, in query order.
 * `query` excludes the leading `?`.
 */
export function queryParamValues(query: string, encodedName: string): string[] {
  const ranges = queryIndex(query).get(encodedName);
  if (ranges === undefined) return [];
  const out = new Array<string>(ranges.length >> 1);
  for (let i = 0; i < ranges.length; i += 2) {
    const from = ranges[i]!;
    const to = ranges[i + 1]!;
    out[i >> 1] = from === to ? '' : reencode(query, from, to);
  }
  return out;
}

// The index of the last query read: a function of the query string alone, so every
// `@query-param` of a message (and of the next request to the same URL) reuses one
// parse. messageTarget hands out the same string for one message, so the check is a
// pointer comparison; an equal string from another message takes the place of the
// old one, so that the next checks are too.
let lastQuery: string | undefined;
let lastIndex: Map<string, number[]> = new Map();

/**
 * The query's parameters by re-encoded name: for each, the `[start, end)` offsets of
 * its values in `query`, in order. One scan of the query however many parameters and
 * `@query-param` components there are (RFC 9421 §2.2.8, WHATWG urlencoded parsing).
 */
function queryIndex(query: string): Map<string, number[]> {
  if (query === lastQuery) {
    lastQuery = query;
    return lastIndex;
  }
  const index = new Map<string, number[]>();
  const n = query.length;
  let start = 0;
  while (start < n) {
    // The sequence ends at "&"; its name at the first "=" inside it, if any.
    let end = start;
    let eq = -1;
    for (; end < n; end++) {
      const c = query.charCodeAt(end);
      if (c === 38) break;
      if (c === 61 && eq < 0) eq = end;
    }
    if (end > start) {
      if (eq < 0) eq = end;
      const name = reencode(query, start, eq);
      const valueStart = eq === end ? end : eq + 1;
      const ranges = index.get(name);
      if (ranges === undefined) index.set(name, [valueStart, end]);
      else ranges.push(valueStart, end);
    }
    start = end + 1;
  }
  lastQuery = query;
  lastIndex = index;
  return index;
}

function reencode(s: string, from: number, to: number): string {
  // Fast path: nothing to decode or escape.
  let plain = true;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || FORM_SAFE[c] !== 1) {
      plain = false;
      break;
    }
  }
  if (plain) return s.slice(from, to);
  const bytes = percentDecode(s, from, to);
  // UTF-8 decode (invalid sequences become U+FFFD), then encode again.
  const text = decoder.decode(bytes);
  const utf8 = encoder.encode(text);
  // ASCII out, three octets at most per octet in, decoded to a string once (no
  // string of one or three characters per octet).
  const out = new Uint8Array(utf8.length * 3);
  let o = 0;
  for (let i = 0; i < utf8.length; i++) {
    const b = utf8[i]!;
    if (b < 128 && FORM_SAFE[b] === 1) {
      out[o++] = b;
    } else {
      out[o++] = 37; // %
      out[o++] = HEX_CODES[b >> 4]!;
      out[o++] = HEX_CODES[b & 15]!;
    }
  }
  return decoder.decode(out.subarray(0, o));
}

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const encoder = new TextEncoder();

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}

function percentDecode(s: string, from: number, to: number): Uint8Array {
  // The input is first UTF-8 encoded (WHATWG "percent-decode a string"); "+" is SP.
  const src = encoder.encode(s.slice(from, to));
  const out = new Uint8Array(src.length);
  let o = 0;
  for (let i = 0; i < src.length; i++) {
    const b = src[i]!;
    if (b === 43) {
      out[o++] = 32;
    } else if (b === 37 && i + 2 < src.length && hexValue(src[i + 1]!) >= 0 && hexValue(src[i + 2]!) >= 0) {
      out[o++] = (hexValue(src[i + 1]!) << 4) | hexValue(src[i + 2]!);
      i += 2;
    } else {
      out[o++] = b;
    }
  }
  return out.subarray(0, o);
}
