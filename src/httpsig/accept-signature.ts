/**
 * The Accept-Signature field (RFC 9421 §5.1): a request for signatures, with the same
 * syntax as Signature-Input.
 */
import { BotsigError } from '../core/errors';
import type { Parameters } from '../core/sf-types';
import { isValidLabel, memberToSignatureInput, parseSignatureDictionary, serializeSignatureInputMember } from './signature-input';
import type { SignatureInput } from './signature-input';

/** What an Accept-Signature member asks of the signer (RFC 9421 §5.1). */
export interface AcceptSignatureRequest {
  /** The signer should include `created`. */
  created: boolean;
  /** The signer should include `expires`. */
  expires: boolean;
  /** Use this value as the signature's `nonce`. */
  nonce?: string;
  /** Use this algorithm. */
  alg?: string;
  /** Use this key. */
  keyid?: string;
  /** Use this value as the signature's `tag`. */
  tag?: string;
}

/**
 * Parses an Accept-Signature field value into requested signatures by label, each
 * with its covered components and parameters in order. In a request, `created` and
 * `expires` are bare flags (`;created`), read with {@link acceptSignatureRequest}.
 *
 * @throws BotsigError `ERR_ACCEPT_SIGNATURE_PARSE` when the value is not a Dictionary
 *   or a member is not an Inner List of Strings.
 * @throws TypeError when `value` is not a string.
 * @example
 * parseAcceptSignature('sig1=("@method" "@authority");created;tag="web-bot-auth"').get('sig1')?.components.length // 2
 */
export function parseAcceptSignature(value: string): Map<string, SignatureInput> {
  const dict = parseSignatureDictionary(value, 'ERR_ACCEPT_SIGNATURE_PARSE', 'Accept-Signature');
  const out = new Map<string, SignatureInput>();
  for (const [label, member] of dict) out.set(label, memberToSignatureInput(label, member, 'ERR_ACCEPT_SIGNATURE_PARSE'));
  return out;
}

/**
 * Serialises requested signatures as an Accept-Signature field value (RFC 9421 §5.1).
 * Give `created`/`expires` as Boolean true parameters to get the bare `;created` form.
 *
 * @throws TypeError when a label is invalid or repeated.
 * @throws BotsigError `ERR_COMPONENT_INVALID` / `ERR_PARAM_INVALID` for unserialisable values.
 * @example
 * serializeAcceptSignature([{ label: 'sig1', components: [parseComponentIdentifier('@authority')],
 *   params: new Map([['created', sfBoolean(true)], ['tag', sfString('web-bot-auth')]]) }])
 * // 'sig1=("@authority");created;tag="web-bot-auth"'
 */
export function serializeAcceptSignature(inputs: readonly SignatureInput[]): string {
  if (!Array.isArray(inputs)) throw new TypeError('inputs must be an array');
  const seen = new Set<string>();
  let out = '';
  for (const input of inputs) {
    if (!isValidLabel(input.label)) throw new TypeError('signature label must be a Structured Field key');
    if (seen.has(input.label)) throw new TypeError('signature labels must be unique');
    seen.add(input.label);
    out += (out === '' ? '' : ', ') + serializeSignatureInputMember(input);
  }
  return out;
}

/**
 * Typed view of a requested signature's parameters (RFC 9421 §5.1). `created` and
 * `expires` count as requested when present as a flag (or, leniently, as an Integer).
 *
 * @throws BotsigError `ERR_PARAM_INVALID` when a parameter has the wrong type.
 */
export function acceptSignatureRequest(params: Parameters): AcceptSignatureRequest {
  const out: AcceptSignatureRequest = { created: flag(params, 'created'), expires: flag(params, 'expires') };
  for (const name of ['nonce', 'alg', 'keyid', 'tag'] as const) {
    const v = params.get(name);
    if (v === undefined) continue;
    if (v.type !== 'string') throw new BotsigError('ERR_PARAM_INVALID', `Accept-Signature parameter ${name} must be a String`);
    out[name] = v.value;
  }
  return out;
}

function flag(params: Parameters, name: string): boolean {
  const v = params.get(name);
  if (v === undefined) return false;
  if (v.type === 'boolean') return v.value;
  if (v.type === 'integer') return true;
  throw new BotsigError('ERR_PARAM_INVALID', `Accept-Signature parameter ${name} must be a flag`);
}
