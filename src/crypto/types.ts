/**
 * Shapes shared by the crypto layer. Only `crypto/registry.ts` switches on an
 * algorithm name; everything else works with these interfaces.
 */

/** HTTP Signature Algorithms registry (RFC 9421 §6.2.2) names that botsig can use. */
export type AlgorithmName = 'ed25519' | 'ecdsa-p256-sha256' | 'ecdsa-p384-sha384' | 'rsa-pss-sha512' | 'rsa-v1_5-sha256';

/**
 * A WebCrypto key, as far as botsig's signatures need to name one: the DOM library's
 * `CryptoKey` and Node's `webcrypto.CryptoKey` both fit. Declared structurally so that
 * botsig's declarations compile without the DOM library.
 */
export interface WebCryptoKey {
  /** `'public'`, `'private'` or `'secret'`. */
  readonly type: string;
  readonly extractable: boolean;
  readonly algorithm: { readonly name: string };
  readonly usages: readonly string[];
}

/** A WebCrypto key pair (the DOM library's `CryptoKeyPair`), structurally. */
export interface WebCryptoKeyPair {
  readonly privateKey: WebCryptoKey;
  readonly publicKey: WebCryptoKey;
}

/** A JSON Web Key (RFC 7517) as found in directories and key files. */
export interface Jwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
  d?: string;
  alg?: string;
  kid?: string;
  use?: string;
  key_ops?: string[];
  nbf?: number;
  exp?: number;
  x5c?: string[];
  x5u?: string;
  [member: string]: unknown;
}

/**
 * A public key, imported once, ready to verify.
 *
 * Most keys are bound to one algorithm (`alg`): the key type fixes it (Ed25519,
 * P-256, P-384), or the JWK's `alg` member or the importer named it. An RSA JWK
 * without `alg` (RFC 9421 Appendix B.1.2 prints one) is not: PSS and PKCS #1 v1.5
 * both fit it. Such a key has `alg: undefined`, lists what it can serve in
 * `algorithms`, and verifies only once bound to the algorithm a signature names
 * (`keyForAlgorithm()`, RFC 9421 §3.2 step 6); its own `verify` rejects with
 * `ERR_ALG_UNKNOWN`.
 */
export interface VerifyingKey {
  /** The algorithm this key verifies with; `undefined` for a key that names none and allows several. */
  readonly alg: AlgorithmName | undefined;
  /**
   * The algorithms the key can serve: `[alg]` for a bound key, every algorithm its key
   * type allows otherwise. Always present on keys botsig makes.
   */
  readonly algorithms?: readonly AlgorithmName[];
  /** RFC 7638 / RFC 8037 JWK SHA-256 thumbprint, base64url. */
  readonly thumbprint: string;
  /** Public members only. */
  readonly jwk: Jwk;
  verify(data: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

/** A {@link VerifyingKey} bound to one algorithm (what `keyForAlgorithm()` returns). */
export type BoundVerifyingKey = VerifyingKey & { readonly alg: AlgorithmName };

/** A private key, imported once, ready to sign. */
export interface SigningKey {
  readonly alg: AlgorithmName;
  readonly thumbprint: string;
  /** Public members of the key pair (what a directory publishes). */
  readonly publicJwk: Jwk;
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** Present when the key can sign synchronously (Ed25519 through @noble). */
  signSync?: (data: Uint8Array) => Uint8Array;
}

/**
 * A backend that turns key material into sign/verify functions. The default is
 * WebCrypto (`crypto.subtle`, with @noble/ed25519 where Ed25519 is missing);
 * `botsig/node` installs a `node:crypto` provider.
 */
export interface CryptoProvider {
  readonly name: string;
  /**
   * True when the functions that `importSign`/`importVerify` return give plain
   * values, never promises (node:crypto, @noble). Signing keys made through such a
   * provider get `signSync`.
   */
  readonly synchronous?: boolean;
  /**
   * `jwk` holds key material only (`kty`, `crv`, `x`, `y`, `n`, `e` and, for
   * `importSign`, the private members), already checked against `alg`.
   */
  importVerify(jwk: Jwk, alg: AlgorithmName): Promise<(data: Uint8Array, signature: Uint8Array) => boolean | Promise<boolean>>;
  importSign(jwk: Jwk, alg: AlgorithmName): Promise<(data: Uint8Array) => Uint8Array | Promise<Uint8Array>>;
}
