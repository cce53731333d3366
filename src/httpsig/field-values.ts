/**
 * The value of a covered HTTP field (RFC 9421 §2.1): plain, `;sf` re-serialised
 * (§2.1.1), one `;key` Dictionary member (§2.1.2) or `;bs` Byte Sequences (§2.1.3),
 * from the field's lines. Long fields and the last short Dictionary are computed once
 * and kept (the memos at the end of this module).
 */
import { base64Encode } from '../core/base64';
import { BotsigError, isBotsigError } from '../core/errors';
import { parseDictionary, parseItem, parseList } from '../core/sf-parse';
import { serializeDictionary, serializeList, serializeMember } from '../core/sf-serialize';
import type { Dictionary, Item, List } from '../core/sf-types';
import { fieldBytes, normalizeLine } from './field-lines';
import { structuredFieldType } from './structured-fields';
import type { ComponentOptions, StructuredFieldType } from './structured-fields';

/**
 * The component value of field `name` from its `lines` (present, at least one), with
 * its `;key`, `;sf` and `;bs` parameters (already checked to be compatible).
 *
 * @throws BotsigError as `componentValue` for fields.
 */
export function fieldComponentValue(
  name: string,
  lines: readonly string[],
  key: string | undefined,
  sf: boolean,
  bs: boolean,
  options: ComponentOptions | undefined,
): string {
  if (key !== undefined) return dictionaryMemberValue(name, lines, key, options);
  if (sf) return structuredValue(name, lines, options);
  // The common case: one field line of ordinary length, read as it is.
  if (!bs && lines.length === 1 && lines[0]!.length <= LONG_FIELD) return normalizeLine(lines[0]!, false);
  return linesValue(lines, bs);
}

// RFC 9421 §2.1.1
function structuredValue(name: string, lines: readonly string[], options: ComponentOptions | undefined): string {
  const type = structuredFieldType(name, options);
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

// A Dictionary of one member whose value is a String without escapes and parameters
// (RFC 9651 §3.2, §3.3.3): key, "=", DQUOTE, printable ASCII but DQUOTE and backslash, DQUOTE.
const ONE_STRING_MEMBER = /^[a-z*][a-z0-9_\-.*]*="[\x20\x21\x23-\x5b\x5d-\x7e]*"$/;

// RFC 9421 §2.1.2
function dictionaryMemberValue(name: string, lines: readonly string[], key: string, options: ComponentOptions | undefined): string {
  const type = structuredFieldType(name, options);
  if (type !== undefined && type !== 'dictionary') {
    throw new BotsigError('ERR_COMPONENT_UNSUPPORTED', `field ${name} is not a Dictionary, key does not apply`);
  }
  // One line that is one member `key="text"` (a String needing no escapes, no parameters,
  // no whitespace around it), as a Signature-Agent nearly always is: the member serialises
  // as the text it was read from (RFC 9651 §4.1.6), so that text is the value, with no
  // parse and no serialisation. Anything else takes the parser below.
  if (lines.length === 1) {
    const line = lines[0]!;
    if (ONE_STRING_MEMBER.test(line)) {
      const eq = line.indexOf('=');
      if (eq !== key.length || !line.startsWith(key)) throw new BotsigError('ERR_COMPONENT_MISSING', `field ${name} has no member with the covered key`);
      return line.slice(eq + 1);
    }
  }
  const parsed = structuredOf(longFieldMemo(lines) ?? newMemo(lines), 'dictionary', name, 'Dictionary');
  // Many signatures of one message covering the same member of a long field: the
  // last answer is reused while the key repeats.
  if (key === parsed.key) return parsed.member;
  const member = (parsed.value as Dictionary).get(key);
  if (member === undefined) throw new BotsigError('ERR_COMPONENT_MISSING', `field ${name} has no member with the covered key`);
  const value = serializeMember(member);
  parsed.key = key;
  parsed.member = value;
  return value;
}

// RFC 9421 §2.1, §2.1.3: a plain value of several or long lines, or a `;bs` value.
function linesValue(lines: readonly string[], bs: boolean): string {
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
// while it is not changed); the memo goes with the message. Short fields are
// recomputed for each use.
const longFields = new WeakMap<readonly string[], FieldMemo>();

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

/** The lines as one value (RFC 9421 §2.1), each normalised, empty ones left out. */
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
