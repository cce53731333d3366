/**
 * The default crypto provider: the platform's `crypto.subtle` (browsers, Workers,
 * Deno, Bun, Node). Every runtime botsig supports has Ed25519 there; where one does
 * not (an older browser), importing an Ed25519 key is `ERR_CRYPTO_UNSUPPORTED` naming
 * `botsig/noble`, whose `withNobleFallback()` provider does Ed25519 in pure JavaScript.
 * The fallback is opt-in so that no bundle of the main entry carries it.
 */
import { BotsigError, isBotsigError } from '../core/errors';
import { keyShape } from './registry';
import type { AlgorithmName, CryptoProvider, Jwk } from './types';

type Bytes = Uint8Array<ArrayBuffer>;

/**
 * The platform's SubtleCrypto.
 *
 * @throws BotsigError `ERR_CRYPTO_UNSUPPORTED` when the runtime has none (e.g. an
 *   insecure browser context).
 */
export function getSubtle(): SubtleCrypto {
  const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (subtle === undefined) throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', 'crypto.subtle is not available in this runtime');
  return subtle;
}

// RFC 8037 §A.1 public key: a known-good point to probe Ed25519 support with.
const PROBE_X = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';

/**
 * Whether `crypto.subtle` implements Ed25519: one import of a known-good public key.
 * Asked only after an Ed25519 import failed (to name the cause) and when a key pair is
 * generated through `botsig/noble`, so it is not remembered: key imports are cached.
 */
export async function webCryptoHasEd25519(): Promise<boolean> {
  try {
    await getSubtle().importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: PROBE_X }, { name: 'Ed25519' }, false, ['verify']);
    return true;
  } catch {
    return false;
  }
}

/** A verify function over an imported WebCrypto public key. */
export function webCryptoVerifier(key: CryptoKey, alg: AlgorithmName): (data: Uint8Array, signature: Uint8Array) => Promise<boolean> {
  const subtle = getSubtle();
  const params = keyShape(alg).signParams;
  return (data, signature) => subtle.verify(params, key, signature as Bytes, data as Bytes);
}

/** A sign function over an imported WebCrypto private key. */
export function webCryptoSigner(key: CryptoKey, alg: AlgorithmName): (data: Uint8Array) => Promise<Uint8Array> {
  const subtle = getSubtle();
  const params = keyShape(alg).signParams;
  return async (data) => new Uint8Array(await subtle.sign(params, key, data as Bytes));
}

// WebCrypto checks `alg`, `use`, `key_ops` and `ext` against the import call; pass only key material.
function material(jwk: Jwk, includePrivate: boolean): JsonWebKey {
  const out: JsonWebKey = { kty: jwk.kty };
  for (const name of includePrivate ? PRIVATE_MEMBERS : PUBLIC_MEMBERS) {
    const value = jwk[name];
    if (typeof value === 'string') (out as Record<string, string>)[name] = value;
  }
  return out;
}
const PUBLIC_MEMBERS = ['crv', 'x', 'y', 'n', 'e'] as const;
const PRIVATE_MEMBERS = [...PUBLIC_MEMBERS, 'd', 'p', 'q', 'dp', 'dq', 'qi'] as const;

/** The key material imported for `usage` (a private key to sign, a public one to verify), or the import failure, named. */
async function importFor(jwk: Jwk, alg: AlgorithmName, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  const params = keyShape(alg).importParams;
  try {
    return await getSubtle().importKey('jwk', material(jwk, usage === 'sign'), params, false, [usage]);
  } catch (error) {
    throw await failure(error, alg);
  }
}

/** What a runtime without Ed25519 in WebCrypto is told (`botsig/noble` is the remedy). */
export const NO_ED25519_MESSAGE =
  "this runtime's WebCrypto has no Ed25519: install the pure-JS fallback from botsig/noble, setCryptoProvider(withNobleFallback())";

/**
 * A WebCrypto import failure as a BotsigError (never leaks key material): an algorithm
 * the runtime does not implement is `ERR_CRYPTO_UNSUPPORTED` (for Ed25519 the runtime
 * is probed, and one without it is pointed at `botsig/noble`), anything else
 * `ERR_KEY_INVALID`.
 */
async function failure(error: unknown, alg: AlgorithmName): Promise<BotsigError> {
  if (isBotsigError(error)) return error;
  if (alg === 'ed25519' && !(await webCryptoHasEd25519())) return new BotsigError('ERR_CRYPTO_UNSUPPORTED', NO_ED25519_MESSAGE, { cause: error });
  if ((error as { name?: unknown } | null)?.name === 'NotSupportedError') {
    return new BotsigError('ERR_CRYPTO_UNSUPPORTED', `this runtime's WebCrypto does not support ${alg}`, { cause: error });
  }
  return new BotsigError('ERR_KEY_INVALID', `the key material was rejected for ${alg}`, { cause: error });
}

/**
 * {@link CryptoProvider} over `globalThis.crypto.subtle`: the default everywhere but Node
 * (where `botsig` installs the `node:crypto` provider). No pure-JS fallback: see
 * `botsig/noble` for runtimes whose WebCrypto lacks Ed25519.
 *
 * @example
 * setCryptoProvider(webCryptoProvider); // back to WebCrypto, e.g. after botsig/node installed node:crypto
 */
export const webCryptoProvider: CryptoProvider = /* @__PURE__ */ Object.freeze({
  name: 'webcrypto',
  importVerify: async (jwk: Jwk, alg: AlgorithmName) => webCryptoVerifier(await importFor(jwk, alg, 'verify'), alg),
  importSign: async (jwk: Jwk, alg: AlgorithmName) => webCryptoSigner(await importFor(jwk, alg, 'sign'), alg),
});
