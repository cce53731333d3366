/**
 * Verifying a signature (RFC 9421 §3.2). No time or nonce policy here: that is the
 * application's (profile layer) business, on top of the typed `params`.
 */
import { BotsigError, isBotsigError } from '../core/errors';
import { keyForAlgorithm } from '../crypto/keys/binding';
import { verifyBase } from '../crypto/keys/base';
import { isAlgorithmName, keyAlgorithm, toAlgorithmName } from '../crypto/registry';
import type { AlgorithmName, VerifyingKey } from '../crypto/types';
import { createSignatureBase } from './base';
import type { ComponentOptions } from './components';
import { toHttpMessage } from './message';
import type { HttpMessage, MessageInput } from './message';
import { readSignatures, signatureParams } from './signature-input';
import type { SignatureEntry, SignatureInput, SignatureParams } from './signature-input';

/** Options for {@link verifyMessage}. Give `key` or `keyLookup`. */
export interface VerifyMessageOptions extends ComponentOptions {
  /** The public key to verify with. */
  key?: VerifyingKey;
  /** Finds the key for a signature (e.g. by its `keyid`); `undefined` means unknown. */
  keyLookup?: (input: SignatureInput) => VerifyingKey | undefined | Promise<VerifyingKey | undefined>;
  /** The label to verify. Without it, signatures are tried in Signature-Input order and the first that verifies wins. */
  label?: string;
  /** For a response: the request it answers, for `;req` components (RFC 9421 §2.4). */
  request?: MessageInput | HttpMessage;
  /**
   * Allowed algorithms (RFC 9421 §3.2 step 6.0), names from `ALGORITHMS`; any of them when
   * absent. Shared-secret algorithms (`hmac-sha256`) are never allowed.
   */
  algorithms?: readonly AlgorithmName[];
}

/** The result of a successful {@link verifyMessage}. */
export interface VerifiedMessage {
  label: string;
  input: SignatureInput;
  /** The signature base that verified. */
  base: string;
  /** Typed registered parameters (created, expires, nonce, alg, keyid, tag). */
  params: SignatureParams;
  /** The key that verified the signature. */
  key: VerifyingKey;
}

/**
 * Verifies `signature` over `base` with `key`. The key's algorithm must be one of the
 * asymmetric algorithms botsig supports, also for a key object made by hand. When
 * `alg` (the signature's `alg` parameter) is given it must equal `key.alg` (RFC 9421
 * §3.2 step 6.4); a key that names no algorithm (an RSA JWK without `alg`) is bound
 * to `alg` (`keyForAlgorithm`). A crypto backend that throws on malformed signature
 * bytes counts as a failed verification.
 *
 * @throws BotsigError `ERR_ALG_NOT_ALLOWED` for a key with a shared-secret algorithm
 *   (`hmac-sha256`) or such an `alg` for a key that names none, `ERR_ALG_UNKNOWN` for
 *   a key with any other algorithm not in `ALGORITHMS` or a key that names none
 *   without `alg`, `ERR_ALG_MISMATCH` when `alg` differs from the key's algorithm;
 *   BotsigErrors from the key (e.g. `ERR_CRYPTO_UNSUPPORTED`) pass through.
 * @example
 * if (!(await verifySignatureBytes(key, base, signature, params.alg))) reject();
 */
export async function verifySignatureBytes(key: VerifyingKey, base: string, signature: Uint8Array, alg?: string): Promise<boolean> {
  if (typeof key !== 'object' || key === null || typeof key.verify !== 'function') throw new TypeError('key must be a VerifyingKey');
  let bound: VerifyingKey = key;
  if (key.alg !== undefined) {
    keyAlgorithm(key.alg);
    if (alg !== undefined && alg !== key.alg) throw new BotsigError('ERR_ALG_MISMATCH', 'the alg parameter does not match the key');
  } else {
    const b = keyForAlgorithm(key, alg === undefined ? undefined : toAlgorithmName(alg));
    if (b instanceof BotsigError) throw b;
    bound = b;
  }
  try {
    return (await verifyBase(bound, base, signature)) === true;
  } catch (err) {
    if (isBotsigError(err)) throw err;
    return false;
  }
}

async function verifyEntry(message: HttpMessage, entry: SignatureEntry, options: VerifyMessageOptions): Promise<VerifiedMessage> {
  if (!entry.ok) throw entry.error;
  const { input, signature } = entry;
  const params = signatureParams(input.params);
  // A shared-secret or unknown `alg` is refused before any key is looked up.
  const alg = params.alg === undefined ? undefined : toAlgorithmName(params.alg);
  let found = options.key;
  if (found === undefined) {
    found = await options.keyLookup!(input);
    if (found === undefined) throw new BotsigError('ERR_KEY_UNKNOWN', `no key for signature ${entry.label}`);
  }
  if (typeof found !== 'object' || found === null || typeof found.verify !== 'function') throw new TypeError('key must be a VerifyingKey');
  // Whatever the key object's own verify does: only the registry's asymmetric algorithms.
  if (found.alg !== undefined) keyAlgorithm(found.alg);
  // RFC 9421 §3.2 step 6: the key as used with the signature's algorithm.
  const key = keyForAlgorithm(found, alg);
  if (key instanceof BotsigError) {
    if (key.code === 'ERR_ALG_MISMATCH') throw new BotsigError('ERR_ALG_MISMATCH', `signature ${entry.label} names an alg that does not match the key`);
    throw key;
  }
  if (options.algorithms !== undefined && !options.algorithms.includes(key.alg)) {
    throw new BotsigError('ERR_ALG_NOT_ALLOWED', `the key algorithm of signature ${entry.label} is not allowed`);
  }
  const base = createSignatureBase(message, input, options);
  if (!(await verifySignatureBytes(key, base, signature))) {
    throw new BotsigError('ERR_SIGNATURE_INVALID', `signature ${entry.label} does not verify`);
  }
  return { label: entry.label, input, base, params, key };
}

/**
 * Verifies a signature of a message (RFC 9421 §3.2): selects it by `label` (or tries
 * each in order), checks the `alg` parameter against the key and the allowed
 * algorithms, rebuilds the signature base and verifies the bytes.
 *
 * @throws BotsigError `ERR_NO_SIGNATURE` (no Signature-Input or Signature field and no
 *   label asked for), `ERR_LABEL_MISSING` (label absent, or in only one of the fields),
 *   `ERR_SIGNATURE_INPUT_PARSE` / `ERR_SIGNATURE_PARSE`, `ERR_PARAM_INVALID`,
 *   `ERR_KEY_UNKNOWN` (`keyLookup` found nothing), `ERR_ALG_NOT_ALLOWED` (a
 *   shared-secret `alg` parameter or key algorithm such as `hmac-sha256`, or one
 *   outside `algorithms`), `ERR_ALG_UNKNOWN` (an `alg` parameter or key algorithm not in
 *   `ALGORITHMS`), `ERR_ALG_MISMATCH`, component errors from the base, `ERR_SIGNATURE_INVALID`.
 *   Without a label, the error of the first signature is thrown when none verifies.
 * @throws TypeError when neither `key` nor `keyLookup` is given, or `algorithms` is not
 *   a list of `ALGORITHMS` names.
 * @example
 * const { params } = await verifyMessage(request, { key, label: 'sig1', algorithms: ['ed25519'] });
 */
export async function verifyMessage(message: MessageInput | HttpMessage, options: VerifyMessageOptions): Promise<VerifiedMessage> {
  if (typeof options !== 'object' || options === null) throw new TypeError('verifyMessage needs options');
  if (options.key === undefined && typeof options.keyLookup !== 'function') throw new TypeError('verifyMessage needs options.key or options.keyLookup');
  const algorithms = options.algorithms;
  if (algorithms !== undefined && (!Array.isArray(algorithms) || !algorithms.every(isAlgorithmName))) {
    throw new TypeError('options.algorithms must list RFC 9421 asymmetric algorithm names');
  }
  const msg = toHttpMessage(message, options.request === undefined ? undefined : { request: options.request });
  const entries = readSignatures(msg);
  if (options.label !== undefined) {
    const entry = entries.get(options.label);
    if (entry === undefined) throw new BotsigError('ERR_LABEL_MISSING', `no signature labelled ${options.label}`);
    return verifyEntry(msg, entry, options);
  }
  if (entries.size === 0) throw new BotsigError('ERR_NO_SIGNATURE', 'the message has no Signature-Input or Signature field');
  let first: unknown;
  for (const entry of entries.values()) {
    try {
      return await verifyEntry(msg, entry, options);
    } catch (err) {
      if (!isBotsigError(err)) throw err;
      first ??= err;
    }
  }
  throw first;
}
