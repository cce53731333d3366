/**
 * The Signature-Input and Signature fields (RFC 9421 §4.1, §4.2) and the
 * `@signature-params` value (§2.3): parsing, serialisation, a typed view of the
 * signature parameters, and reading every signature of a message. Received fields in
 * the common canonical shape are read by `signature-fields-reader.ts`; everything else by the
 * general parser.
 */
import { BotsigError, isBotsigError } from '../core/errors';
import type { BotsigErrorCode } from '../core/errors';
import { parseDictionary } from '../core/sf-parse';
import { serializeParameters } from '../core/sf-serialize';
import type { Dictionary, Member, Parameters } from '../core/sf-types';
import { serializeComponentIdentifier } from './component-id';
import type { ComponentIdentifier } from './component-id';
import { readReceivedInputs, readReceivedPair, readReceivedSignatures } from './signature-fields-reader';
import type { HttpMessage } from './message';
import type { ReceivedSignatureInput, SignatureEntry, SignatureInput, SignatureParams } from './signature-types';

export type { ReceivedSignatureInput, SignatureEntry, SignatureInput, SignatureParams } from './signature-types';

// sf-key (RFC 9651 §3.1.2): lcalpha or "*", then lcalpha / DIGIT / "_" / "-" / "." / "*".
/** True when `label` can be a Dictionary key, hence a signature label. */
export function isValidLabel(label: string): boolean {
  if (typeof label !== 'string' || label.length === 0) return false;
  const c0 = label.charCodeAt(0);
  if (!((c0 >= 97 && c0 <= 122) || c0 === 42)) return false;
  for (let i = 1; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46 || c === 42)) return false;
  }
  return true;
}

/**
 * The first label `${prefix}1`, `${prefix}2`, … not in `existing`.
 *
 * @throws TypeError when `prefix` cannot start a Dictionary key.
 * @example
 * nextLabel(['sig1']) // 'sig2'
 */
export function nextLabel(existing: Iterable<string>, prefix = 'sig'): string {
  if (!isValidLabel(prefix)) throw new TypeError('label prefix must be a Structured Field key');
  const taken = existing instanceof Set ? (existing as Set<string>) : new Set(existing);
  for (let n = 1; ; n++) {
    const label = prefix + n;
    if (!taken.has(label)) return label;
  }
}

/**
 * Parses a whole field value as a Dictionary (RFC 9651 §4.2.2), reporting failure under `code`.
 *
 * @throws BotsigError `code` when the value is not a valid Dictionary.
 * @throws TypeError when `value` is not a string.
 */
export function parseSignatureDictionary(value: string, code: BotsigErrorCode, what: string): Dictionary {
  if (typeof value !== 'string') throw new TypeError(`${what} value must be a string`);
  try {
    return parseDictionary(value);
  } catch (err) {
    if (isBotsigError(err)) throw new BotsigError(code, `${what} is not a valid Dictionary`, { cause: err });
    throw err;
  }
}

/**
 * Turns one Dictionary member into a {@link SignatureInput}: an Inner List of Strings
 * (component identifiers with their parameters), with the signature parameters
 * (RFC 9421 §4.1; Accept-Signature members have the same shape, §5.1).
 *
 * @throws BotsigError `code` when the member is not an Inner List of Strings.
 */
export function memberToSignatureInput(label: string, member: Member, code: BotsigErrorCode): SignatureInput {
  if (member.kind !== 'inner-list') throw new BotsigError(code, `member ${label} is not an Inner List`);
  const components: ComponentIdentifier[] = [];
  for (const it of member.items) {
    if (it.value.type !== 'string') throw new BotsigError(code, `member ${label} has a component identifier that is not a String`);
    components.push({ name: it.value.value, params: it.params });
  }
  return { label, components, params: member.params };
}

function memberToSignature(label: string, member: Member | Uint8Array): Uint8Array {
  // Already decoded by readReceivedSignatures.
  if (member instanceof Uint8Array) return member;
  if (member.kind !== 'item' || member.value.type !== 'binary') {
    throw new BotsigError('ERR_SIGNATURE_PARSE', `Signature member ${label} is not a Byte Sequence`);
  }
  return member.value.value;
}

/**
 * Parses a Signature-Input field value (RFC 9421 §4.1) into its signatures by label,
 * in field order. Several field lines are combined with `", "` first.
 *
 * @throws BotsigError `ERR_SIGNATURE_INPUT_PARSE` when the value is not a Dictionary or
 *   a member is not an Inner List of Strings.
 * @throws TypeError when `value` is not a string.
 * @example
 * parseSignatureInput('sig1=("@authority");created=1618884473').get('sig1')?.components[0]?.name // '@authority'
 */
export function parseSignatureInput(value: string): Map<string, SignatureInput> {
  const dict = parseSignatureDictionary(value, 'ERR_SIGNATURE_INPUT_PARSE', 'Signature-Input');
  const out = new Map<string, SignatureInput>();
  for (const [label, member] of dict) out.set(label, memberToSignatureInput(label, member, 'ERR_SIGNATURE_INPUT_PARSE'));
  return out;
}

/**
 * Parses a Signature field value (RFC 9421 §4.2) into signature bytes by label.
 *
 * @throws BotsigError `ERR_SIGNATURE_PARSE` when the value is not a Dictionary or a
 *   member is not a Byte Sequence.
 * @throws TypeError when `value` is not a string.
 * @example
 * parseSignature('sig1=:AAEC:').get('sig1') // Uint8Array [0, 1, 2]
 */
export function parseSignature(value: string): Map<string, Uint8Array> {
  const dict = parseSignatureDictionary(value, 'ERR_SIGNATURE_PARSE', 'Signature');
  const out = new Map<string, Uint8Array>();
  for (const [label, member] of dict) out.set(label, memberToSignature(label, member));
  return out;
}

/**
 * The `@signature-params` value (RFC 9421 §2.3): the covered components as an Inner
 * List of Strings with their parameters, then the signature parameters, in order.
 * Always built from the structure, never copied from header text.
 *
 * @throws BotsigError `ERR_COMPONENT_INVALID` for an unserialisable component identifier,
 *   `ERR_PARAM_INVALID` for an unserialisable signature parameter.
 * @example
 * serializeSignatureParams(parseSignatureInput('sig1=("@authority");created=1').get('sig1')!) // '("@authority");created=1'
 */
export function serializeSignatureParams(input: Pick<SignatureInput, 'components' | 'params'>): string {
  const comps = input.components;
  const ids = new Array<string>(comps.length);
  for (let i = 0; i < comps.length; i++) ids[i] = serializeComponentIdentifier(comps[i]!);
  return signatureParamsValue(ids, input.params);
}

/**
 * `@signature-params` from component identifiers already serialised (in order) and
 * the signature parameters: base building serialises each identifier once for both
 * its line and this one.
 *
 * @throws BotsigError `ERR_PARAM_INVALID` for an unserialisable signature parameter.
 */
export function signatureParamsValue(ids: readonly string[], params: Parameters): string {
  const out = '(' + ids.join(' ') + ')';
  if (params.size === 0) return out;
  try {
    return out + serializeParameters(params);
  } catch (err) {
    if (isBotsigError(err)) throw new BotsigError('ERR_PARAM_INVALID', 'a signature parameter cannot be serialised', { cause: err });
    throw err;
  }
}

/**
 * One Signature-Input member, `label=(...);params` (RFC 9421 §4.1).
 *
 * @throws TypeError when the label is not a valid Dictionary key.
 * @throws BotsigError as {@link serializeSignatureParams}.
 * @example
 * serializeSignatureInputMember({ label: 'sig1', components: [], params: new Map() }) // 'sig1=()'
 */
export function serializeSignatureInputMember(input: SignatureInput): string {
  if (!isValidLabel(input.label)) throw new TypeError('signature label must be a Structured Field key (lowercase, e.g. "sig1")');
  return input.label + '=' + serializeSignatureParams(input);
}

function param(params: Parameters, name: string, type: 'integer' | 'string'): number | string | undefined {
  const v = params.get(name);
  if (v === undefined) return undefined;
  if (v.type !== type) throw new BotsigError('ERR_PARAM_INVALID', `signature parameter ${name} must be ${type === 'integer' ? 'an Integer' : 'a String'}`);
  return v.value as number | string;
}

/**
 * Typed view of the registered signature parameters (RFC 9421 §2.3): `created` and
 * `expires` are Integers, `nonce`, `alg`, `keyid` and `tag` Strings. Absent ones are
 * left out; other parameters are ignored here (they stay in `input.params`).
 *
 * @throws BotsigError `ERR_PARAM_INVALID` when a registered parameter has the wrong type.
 * @example
 * signatureParams(parseSignatureInput('s=();created=1;keyid="k"').get('s')!.params) // { created: 1, keyid: 'k' }
 */
export function signatureParams(params: Parameters): SignatureParams {
  const out: SignatureParams = {};
  if (params.size === 0) return out;
  const created = param(params, 'created', 'integer');
  if (created !== undefined) out.created = created as number;
  const expires = param(params, 'expires', 'integer');
  if (expires !== undefined) out.expires = expires as number;
  const nonce = param(params, 'nonce', 'string');
  if (nonce !== undefined) out.nonce = nonce as string;
  const alg = param(params, 'alg', 'string');
  if (alg !== undefined) out.alg = alg as string;
  const keyid = param(params, 'keyid', 'string');
  if (keyid !== undefined) out.keyid = keyid as string;
  const tag = param(params, 'tag', 'string');
  if (tag !== undefined) out.tag = tag as string;
  return out;
}

/** The combined value of a header field (lines joined with `", "`), or `undefined` when absent. */
export function fieldValue(message: HttpMessage, name: string): string | undefined {
  const lines = message.headers.get(name);
  if (lines === undefined || lines.length === 0) return undefined;
  return lines.length === 1 ? lines[0] : lines.join(', ');
}

/**
 * Reads every signature of a message once: parses Signature-Input and Signature and
 * pairs them by label (RFC 9421 §3.2 steps 1–3). Labels keep Signature-Input order,
 * then labels found only in Signature. A label present in only one field, or a member
 * of the wrong shape, is an entry with `ok: false` and an error (`ERR_LABEL_MISSING`,
 * `ERR_SIGNATURE_INPUT_PARSE`, `ERR_SIGNATURE_PARSE`); the other labels are unaffected.
 * A message without either field gives an empty map.
 *
 * @throws BotsigError `ERR_SIGNATURE_INPUT_PARSE` / `ERR_SIGNATURE_PARSE` when a field as
 *   a whole is not a Dictionary.
 * @example
 * for (const entry of readSignatures(toHttpMessage(request)).values()) if (entry.ok) console.log(entry.label);
 */
export function readSignatures(message: HttpMessage): Map<string, SignatureEntry> {
  return read(message, false);
}

/**
 * Internal (verification hot path): {@link readSignatures}, with each input a
 * {@link ReceivedSignatureInput}. A Signature-Input in the common canonical shape is
 * read by the direct reader (`signature-fields-reader.ts`), and each input then carries its
 * received text and typed view, so that the base reuses the text instead of
 * serialising the structure again; any other value is read by the general parser,
 * and its inputs carry no text (their base is serialised). Entries, errors included,
 * are those of {@link readSignatures}.
 *
 * @throws as {@link readSignatures}.
 */
export function readSignaturesWithTexts(message: HttpMessage): Map<string, SignatureEntry<ReceivedSignatureInput>> {
  return read(message, true) as Map<string, SignatureEntry<ReceivedSignatureInput>>;
}

function read(message: HttpMessage, received: boolean): Map<string, SignatureEntry> {
  const out = new Map<string, SignatureEntry>();
  const inputText = fieldValue(message, 'signature-input');
  const sigText = fieldValue(message, 'signature');
  if (inputText === undefined && sigText === undefined) return out;
  if (received && inputText !== undefined && sigText !== undefined) {
    // One signature, as nearly every request carries: no map per field.
    const pair = readReceivedPair(inputText, sigText);
    if (pair !== undefined) return out.set(pair.input.label, { label: pair.input.label, ok: true, input: pair.input, signature: pair.signature });
  }
  // Received inputs: the common canonical shape is read directly (with its text),
  // anything else by the general parser, which also reports the errors.
  const direct = received && inputText !== undefined ? readReceivedInputs(inputText) : undefined;
  const inputs =
    inputText === undefined || direct !== undefined ? undefined : parseSignatureDictionary(inputText, 'ERR_SIGNATURE_INPUT_PARSE', 'Signature-Input');
  const sigs: ReadonlyMap<string, Member | Uint8Array> | undefined =
    sigText === undefined
      ? undefined
      : ((received ? readReceivedSignatures(sigText) : undefined) ?? parseSignatureDictionary(sigText, 'ERR_SIGNATURE_PARSE', 'Signature'));
  const pair = (label: string, input: SignatureInput): void => {
    const sigMember = sigs?.get(label);
    if (sigMember === undefined) {
      out.set(label, { label, ok: false, input, error: new BotsigError('ERR_LABEL_MISSING', `label ${label} is in Signature-Input but not in Signature`) });
      return;
    }
    try {
      out.set(label, { label, ok: true, input, signature: memberToSignature(label, sigMember) });
    } catch (err) {
      out.set(label, { label, ok: false, input, error: asBotsigError(err) });
    }
  };
  if (direct !== undefined) {
    for (const [label, input] of direct) pair(label, input);
  } else if (inputs !== undefined) {
    for (const [label, member] of inputs) {
      let input: SignatureInput;
      try {
        input = memberToSignatureInput(label, member, 'ERR_SIGNATURE_INPUT_PARSE');
      } catch (err) {
        out.set(label, { label, ok: false, error: asBotsigError(err) });
        continue;
      }
      pair(label, input);
    }
  }
  if (sigs !== undefined) {
    for (const [label, member] of sigs) {
      if (direct?.has(label) || inputs?.has(label)) continue;
      const error = new BotsigError('ERR_LABEL_MISSING', `label ${label} is in Signature but not in Signature-Input`);
      let signature: Uint8Array | undefined;
      try {
        signature = memberToSignature(label, member);
      } catch {
        // Not a Byte Sequence: the entry has no signature.
      }
      out.set(label, signature === undefined ? { label, ok: false, error } : { label, ok: false, error, signature });
    }
  }
  return out;
}

function asBotsigError(err: unknown): BotsigError {
  if (err instanceof BotsigError) return err;
  throw err;
}
