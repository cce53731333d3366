/**
 * Ed25519 in pure JavaScript (@noble/ed25519 with SHA-512 from @noble/hashes):
 * the fallback where WebCrypto lacks Ed25519 (older browsers) and the engine of
 * synchronous signing.
 */
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { base64UrlDecode, base64UrlEncode } from '../core/base64';
import { BotsigError } from '../core/errors';
import type { AlgorithmName, CryptoProvider, Jwk } from './types';

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

/** The public key (`x`) of an Ed25519 seed. */
export function nobleEd25519PublicKey(seed: Uint8Array): Uint8Array {
  wireSha512();
  return ed.getPublicKey(seed);
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
export const nobleEd25519Provider: CryptoProvider = Object.freeze({
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
