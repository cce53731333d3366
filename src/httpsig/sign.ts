/**
 * Creating a signature (RFC 9421 §3.1) and attaching it under a fresh label (§4).
 */
import { base64Encode } from '../core/base64';
import { BotsigError } from '../core/errors';
import { sfBoolean, sfDecimal, sfInteger, sfString } from '../core/sf-items';
import type { BareItem, Parameters } from '../core/sf-types';
import type { SigningKey } from '../crypto/types';
import { signBase } from '../crypto/keys/base';
import { keyAlgorithm, toAlgorithmName } from '../crypto/registry';
import { createSignatureBaseParts } from './base';
import { componentValues, parseComponentIdentifier } from './components';
import { coversSignature, withChainedComponents } from './cover-chain';
import type { ComponentIdentifier, ComponentOptions } from './components';
import { toHttpMessage } from './message';
import type { HttpMessage, MessageInput } from './message';
import { fieldValue, isValidLabel, nextLabel, parseSignatureDictionary, parseSignatureInput, signatureParams } from './signature-input';
import type { SignatureInput } from './signature-input';

/** Options for {@link signMessage}. */
export interface SignMessageOptions extends ComponentOptions {
  /** The private key, from `importSigningKey()`. */
  key: SigningKey;
  /** Label for the new signature; default `sig1`, or the next free `sigN`. */
  label?: string;
  /**
   * Covered components in order: `'@authority'`, `'content-digest'`,
   * `'"signature-agent";key="sig1"'`, or parsed identifiers.
   */
  components: Array<string | ComponentIdentifier>;
  /**
   * Signature parameters, kept in the given key order (RFC 9421 §2.3): numbers become
   * Integers (Decimals when fractional), strings Strings, booleans Booleans; a `BareItem`
   * is taken as is; `undefined` values are skipped. `alg` and `keyid` appear only when given here.
   */
  params?: Record<string, string | number | boolean | BareItem>;
  /** For a response: the request it answers, for `;req` components (RFC 9421 §2.4). */
  request?: MessageInput | HttpMessage;
}

/** The result of {@link signMessage}. */
export interface SignedMessage {
  label: string;
  input: SignatureInput;
  /** The signature base that was signed (RFC 9421 §2.5). */
  base: string;
  signature: Uint8Array;
  /** Field values to set on the message: any existing values with the new member appended. */
  headers: { 'signature-input': string; signature: string };
}

function toParams(params: SignMessageOptions['params']): Parameters {
  const out: Parameters = new Map();
  if (params === undefined) return out;
  if (typeof params !== 'object' || params === null) throw new TypeError('params must be an object');
  for (const name of Object.keys(params)) {
    if (!isValidLabel(name)) throw new TypeError('signature parameter names must be Structured Field keys');
    const v = params[name];
    // An explicit `undefined` means "leave it out", as with optional options.
    if (v === undefined) continue;
    let item: BareItem;
    if (typeof v === 'string') item = sfString(v);
    else if (typeof v === 'number') item = Number.isInteger(v) ? sfInteger(v) : sfDecimal(v);
    else if (typeof v === 'boolean') item = sfBoolean(v);
    else if (typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string') item = v;
    else throw new TypeError(`signature parameter ${name} has an unsupported value`);
    out.set(name, item);
  }
  return out;
}

function signatureInputsOf(message: HttpMessage | undefined): Map<string, SignatureInput> | undefined {
  const value = message === undefined ? undefined : fieldValue(message, 'signature-input');
  return value === undefined ? undefined : parseSignatureInput(value);
}

function existingLabels(message: HttpMessage): { labels: Set<string>; input: string | undefined; signature: string | undefined } {
  const input = fieldValue(message, 'signature-input');
  const signature = fieldValue(message, 'signature');
  const labels = new Set<string>();
  if (input !== undefined) for (const k of parseSignatureDictionary(input, 'ERR_SIGNATURE_INPUT_PARSE', 'Signature-Input').keys()) labels.add(k);
  if (signature !== undefined) for (const k of parseSignatureDictionary(signature, 'ERR_SIGNATURE_PARSE', 'Signature').keys()) labels.add(k);
  return { labels, input, signature };
}

/**
 * Signs a message (RFC 9421 §3.1): builds the signature base over `components` and
 * `params`, signs it with `key`, and returns the Signature-Input and Signature values
 * to set, with the new member appended to any existing signatures (§4.3).
 *
 * A covered signature (`"signature";key="sig1"`, or `"signature";req;key="sig1"` from a
 * response) brings its `"signature-input"` member and every component it covers into the
 * list, placed before it (draft-ietf-webbotauth-httpsig-protocol-01, "Multiple
 * Signatures": the signature value alone does not say what it signed).
 *
 * @throws BotsigError `ERR_LABEL_EXISTS` when `label` is already used in the message,
 *   `ERR_ALG_NOT_ALLOWED` when the key's algorithm or `params.alg` is a shared-secret one
 *   (`hmac-sha256`, also for a key object made by hand), `ERR_ALG_UNKNOWN` when either
 *   is not in `ALGORITHMS`, `ERR_ALG_MISMATCH` when `params.alg` differs from `key.alg`, `ERR_PARAM_INVALID` for a
 *   registered parameter of the wrong type (e.g. fractional `created`),
 *   `ERR_COMPONENT_INVALID` when `@query-param` names a repeated parameter (§2.2.8: it
 *   must not be signed) or for `"signature"` without `;key`, every error of `createSignatureBase`, and
 *   `ERR_SIGNATURE_INPUT_PARSE` / `ERR_SIGNATURE_PARSE` when existing signature fields
 *   cannot be parsed.
 * @throws TypeError for malformed options.
 * @example
 * const signed = await signMessage(request, {
 *   key, components: ['@method', '@authority', '@path'],
 *   params: { created: 1618884473, keyid: 'test-key-ed25519' },
 * });
 * request.headers.set('Signature-Input', signed.headers['signature-input']);
 * request.headers.set('Signature', signed.headers.signature);
 */
export async function signMessage(message: MessageInput | HttpMessage, options: SignMessageOptions): Promise<SignedMessage> {
  if (typeof options !== 'object' || options === null) throw new TypeError('signMessage needs options');
  const key = options.key;
  if (typeof key !== 'object' || key === null || typeof key.sign !== 'function') throw new TypeError('options.key must be a SigningKey');
  if (!Array.isArray(options.components)) throw new TypeError('options.components must be an array');
  // Whatever the key object's own sign does: only the registry's asymmetric algorithms.
  keyAlgorithm(key.alg);

  const msg = toHttpMessage(message, options.request === undefined ? undefined : { request: options.request });
  let components: ComponentIdentifier[] = [];
  for (const c of options.components) {
    if (typeof c === 'string') components.push(parseComponentIdentifier(c));
    else if (typeof c === 'object' && c !== null && typeof c.name === 'string' && c.params instanceof Map) components.push(c);
    else throw new TypeError('components must be strings or component identifiers');
  }
  // Covering another signature commits to it only with its Signature-Input and what it covers.
  if (coversSignature(components)) components = withChainedComponents(components, (req) => signatureInputsOf(req ? msg.request : msg));
  const params = toParams(options.params);
  const typed = signatureParams(params);
  if (typed.alg !== undefined && toAlgorithmName(typed.alg) !== key.alg) {
    throw new BotsigError('ERR_ALG_MISMATCH', 'the alg parameter does not match the signing key');
  }

  const existing = existingLabels(msg);
  let label = options.label;
  if (label === undefined) {
    label = nextLabel(existing.labels);
  } else {
    if (!isValidLabel(label)) throw new TypeError('label must be a Structured Field key (lowercase, e.g. "sig1")');
    if (existing.labels.has(label)) throw new BotsigError('ERR_LABEL_EXISTS', `label ${label} is already used in the message`);
  }

  // RFC 9421 §2.2.8: a parameter name that occurs more than once must not be covered.
  for (const c of components) {
    if (c.name === '@query-param' && componentValues(msg, c, options).length > 1) {
      throw new BotsigError('ERR_COMPONENT_INVALID', '@query-param names a repeated query parameter (RFC 9421 §2.2.8); cover @query instead');
    }
  }

  const input: SignatureInput = { label, components, params };
  // The Signature-Input member is `label=` and the base's own @signature-params value.
  const { base, signatureParams: inputValue } = createSignatureBaseParts(msg, input, options);
  const signature = await signBase(key, base);
  const member = label + '=' + inputValue;
  const sigMember = label + '=:' + base64Encode(signature) + ':';
  return {
    label,
    input,
    base,
    signature,
    headers: {
      'signature-input': existing.input === undefined || existing.input === '' ? member : existing.input + ', ' + member,
      signature: existing.signature === undefined || existing.signature === '' ? sigMember : existing.signature + ', ' + sigMember,
    },
  };
}
