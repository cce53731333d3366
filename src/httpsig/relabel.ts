/**
 * Renaming a signature label (RFC 9421 §7.2.5): labels are not covered by the
 * signature, so an intermediary may change them; the signature bytes stay the same.
 */
import { BotsigError } from '../core/errors';
import { serializeDictionary } from '../core/sf-serialize';
import type { Dictionary } from '../core/sf-types';
import { isValidLabel, memberToSignatureInput, parseSignatureDictionary } from './signature-input';

/** The two signature field values of a message: `Signature-Input` and `Signature`. */
export interface SignatureFields {
  'signature-input': string;
  signature: string;
}

function renameKey(dict: Dictionary, from: string, to: string): Dictionary {
  const out: Dictionary = new Map();
  for (const [k, v] of dict) out.set(k === from ? to : k, v);
  return out;
}

/**
 * Renames signature `from` to `to` in both field values, keeping every member's
 * position, components, parameters and signature bytes. The values are re-serialised
 * in canonical Structured Field form (RFC 9651 §4.1), which does not change any
 * signature base (`@signature-params` is rebuilt from the parsed structure).
 *
 * Note that a covered `"signature-agent";key="…"` member key is part of the signature
 * base: renaming the label does not (and must not) rename that member.
 *
 * @throws BotsigError `ERR_LABEL_MISSING` when `from` is not in both fields,
 *   `ERR_LABEL_EXISTS` when `to` is already used, `ERR_SIGNATURE_INPUT_PARSE` /
 *   `ERR_SIGNATURE_PARSE` when a field does not parse.
 * @throws TypeError when `to` is not a valid label.
 * @example
 * relabelSignature({ 'signature-input': 'sig1=();created=1', signature: 'sig1=:AA==:' }, 'sig1', 'proxy1')
 * // { 'signature-input': 'proxy1=();created=1', signature: 'proxy1=:AA==:' }
 */
export function relabelSignature(headers: SignatureFields, from: string, to: string): SignatureFields {
  if (typeof headers !== 'object' || headers === null) throw new TypeError('headers must be an object');
  if (!isValidLabel(to)) throw new TypeError('the new label must be a Structured Field key (lowercase, e.g. "sig2")');
  const inputs = parseSignatureDictionary(headers['signature-input'], 'ERR_SIGNATURE_INPUT_PARSE', 'Signature-Input');
  const sigs = parseSignatureDictionary(headers.signature, 'ERR_SIGNATURE_PARSE', 'Signature');
  const inputMember = inputs.get(from);
  const sigMember = sigs.get(from);
  if (inputMember === undefined || sigMember === undefined) {
    throw new BotsigError('ERR_LABEL_MISSING', `label ${from} is not in both Signature-Input and Signature`);
  }
  if (from === to) return { 'signature-input': headers['signature-input'], signature: headers.signature };
  if (inputs.has(to) || sigs.has(to)) throw new BotsigError('ERR_LABEL_EXISTS', `label ${to} is already used`);
  // Shape checks, so that a relabelled field is never worse than the original.
  memberToSignatureInput(from, inputMember, 'ERR_SIGNATURE_INPUT_PARSE');
  if (sigMember.kind !== 'item' || sigMember.value.type !== 'binary') {
    throw new BotsigError('ERR_SIGNATURE_PARSE', `Signature member ${from} is not a Byte Sequence`);
  }
  return {
    'signature-input': serializeDictionary(renameKey(inputs, from, to)),
    signature: serializeDictionary(renameKey(sigs, from, to)),
  };
}

/** @deprecated Renamed {@link relabelSignature} (one name in every entry point); this alias goes in the next release. */
export const renameSignatureLabel = relabelSignature;
