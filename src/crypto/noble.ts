/**
 * Ed25519 in pure JavaScript (@noble/ed25519 with SHA-512 from @noble/hashes): the
 * opt-in fallback where WebCrypto lacks Ed25519 (older browsers; `botsig/noble`) and
 * the engine of synchronous signing (`botsig/sync`). The main entry never imports
 * this module, so no bundle of it carries @noble.
 */
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { base64UrlDecode, base64UrlEncode } from '../core/base64';
import { BotsigError, isBotsigError } from '../core/errors';
import { generateKeyPair, keyPairFromPrivateJwk, type GeneratedKeyPair } from './generate';
import type { AlgorithmName, CryptoProvider, Jwk } from './types';
import { webCryptoHasEd25519, webCryptoProvider } from './webcrypto';

let sha512Wired = false;

// Wired on first use rather than at import, so importing this module has no side effects.
function wireSha512(): void {
  if (sha512Wired) return;
  if (ed.hashes.sha512 === undefined) ed.hashes.sha512 = sha512;
  sha512Wired = true;
}

function bytes32(jwk: Jwk, member: 'x' | 'd'): Uint8Array {
  const text = jwk[member];
  const out = typeof text === 'string' ? base64UrlDecode(text) : undefined;
  if (out === undefined || out.length !== 32) {
    throw new BotsigError('ERR_KEY_INVALID', `Ed25519 JWK member "${member}" must be 32 base64url-encoded bytes`);
  }
  return out;
}

/**
 * A verify function for a raw 32-byte Ed25519 public key (RFC 8032 §5.1.7, with
 * the strict, non-ZIP-215 rules, matching OpenSSL and WebCrypto). Never throws:
 * malformed signatures or keys give `false`.
 */
export function nobleEd25519Verifier(publicKey: Uint8Array): (data: Uint8Array, signature: Uint8Array) => boolean {
  wireSha512();
  try {
    // Decoding once up front turns an off-curve key into an import error instead of a silent `false` forever.
    ed.Point.fromBytes(publicKey, false);
  } catch (cause) {
    throw new BotsigError('ERR_KEY_INVALID', 'Ed25519 public key is not a valid curve point', { cause });
  }
  return (data, signature) => {
    if (signature.length !== 64) return false;
    try {
      return ed.verify(signature, data, publicKey, { zip215: false });
    } catch {
      return false;
    }
  };
}

/**
 * A sign function for a 32-byte Ed25519 seed (RFC 8032 §5.1.6). Checks that
 * `publicKey`, when given, belongs to the seed.
 *
 * @throws BotsigError `ERR_KEY_INVALID` when the public key does not match.
 */
export function nobleEd25519Signer(seed: Uint8Array, publicKey?: Uint8Array): (data: Uint8Array) => Uint8Array {
  wireSha512();
  if (publicKey !== undefined) {
    const derived = ed.getPublicKey(seed);
    let diff = derived.length ^ publicKey.length;
    for (let i = 0; i < derived.length && i < publicKey.length; i++) diff |= derived[i]! ^ publicKey[i]!;
    if (diff !== 0) throw new BotsigError('ERR_KEY_INVALID', 'the Ed25519 private key does not match its public key "x"');
  }
  return (data) => ed.sign(data, seed);
}

/** A fresh Ed25519 key pair as a private JWK (`kty`, `crv`, `x`, `d`), from `crypto.getRandomValues`. */
export function nobleGenerateEd25519Jwk(): Jwk {
  wireSha512();
  const seed = ed.utils.randomSecretKey();
  return { kty: 'OKP', crv: 'Ed25519', x: base64UrlEncode(ed.getPublicKey(seed)), d: base64UrlEncode(seed) };
}

function ed25519Only(alg: AlgorithmName): void {
  if (alg !== 'ed25519') throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `the noble provider only implements ed25519, not ${alg}`);
}

/**
 * A {@link CryptoProvider} that does Ed25519 in pure JavaScript and nothing else
 * (other algorithms throw `ERR_CRYPTO_UNSUPPORTED`). Synchronous and portable;
 * slower than WebCrypto or node:crypto.
 */
export const nobleEd25519Provider: CryptoProvider = /* @__PURE__ */ Object.freeze({
  name: 'noble-ed25519',
  synchronous: true,
  async importVerify(jwk: Jwk, alg: AlgorithmName) {
    ed25519Only(alg);
    return nobleEd25519Verifier(bytes32(jwk, 'x'));
  },
  async importSign(jwk: Jwk, alg: AlgorithmName) {
    ed25519Only(alg);
    return nobleEd25519Signer(bytes32(jwk, 'd'), bytes32(jwk, 'x'));
  },
});

/** The 32-byte `x` / `d` of an Ed25519 JWK. @throws BotsigError `ERR_KEY_INVALID`. */
export function ed25519JwkBytes(jwk: Jwk, member: 'x' | 'd'): Uint8Array {
  return bytes32(jwk, member);
}

/** Whether `error` says the provider cannot do Ed25519 in this runtime. */
function unsupported(error: unknown, alg: AlgorithmName): boolean {
  return alg === 'ed25519' && isBotsigError(error) && error.code === 'ERR_CRYPTO_UNSUPPORTED';
}

/**
 * A {@link CryptoProvider} that uses `inner` (default: the WebCrypto provider) and,
 * when `inner` cannot do Ed25519 in this runtime (it answers `ERR_CRYPTO_UNSUPPORTED`,
 * as WebCrypto does in browsers that predate Ed25519), does Ed25519 in pure JavaScript
 * with @noble/ed25519. Every other algorithm, and every other failure, is `inner`'s.
 * Install it once with `setCryptoProvider(withNobleFallback())`, or pass it as the
 * `provider` option of a key import.
 *
 * @throws TypeError when `inner` is not a provider.
 * @example
 * import { setCryptoProvider } from 'botsig';
 * import { withNobleFallback } from 'botsig/noble';
 * setCryptoProvider(withNobleFallback());
 */
export function withNobleFallback(inner: CryptoProvider = webCryptoProvider): CryptoProvider {
  if (typeof inner !== 'object' || inner === null || typeof inner.importSign !== 'function' || typeof inner.importVerify !== 'function') {
    throw new TypeError('withNobleFallback(inner): inner must be a CryptoProvider');
  }
  return Object.freeze({
    name: `${inner.name}+noble`,
    ...(inner.synchronous === true ? { synchronous: true } : {}),
    async importVerify(jwk: Jwk, alg: AlgorithmName) {
      try {
        return await inner.importVerify(jwk, alg);
      } catch (error) {
        if (unsupported(error, alg)) return nobleEd25519Provider.importVerify(jwk, alg);
        throw error;
      }
    },
    async importSign(jwk: Jwk, alg: AlgorithmName) {
      try {
        return await inner.importSign(jwk, alg);
      } catch (error) {
        if (unsupported(error, alg)) return nobleEd25519Provider.importSign(jwk, alg);
        throw error;
      }
    },
  });
}

/**
 * `generateKeyPair('ed25519')` that works without Ed25519 in WebCrypto: WebCrypto when
 * it has Ed25519, else a seed from `crypto.getRandomValues` and @noble/ed25519.
 *
 * @example
 * const { privateJwk, publicJwk, thumbprint } = await generateNobleKeyPair();
 */
export async function generateNobleKeyPair(): Promise<GeneratedKeyPair> {
  if (await webCryptoHasEd25519()) return generateKeyPair('ed25519');
  return keyPairFromPrivateJwk(nobleGenerateEd25519Jwk(), 'ed25519');
}
