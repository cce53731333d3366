/**
 * The HTTP Signature Algorithms that botsig knows (RFC 9421 §3.3, §6.2.2).
 *
 * This module is the only place that branches on an algorithm name: every other
 * module looks the algorithm up here and reads the parameters it needs (WebCrypto
 * import and sign parameters, node:crypto options, the JWK shape, the JOSE name).
 */
import { BotsigError } from '../core/errors';
import { isAlgorithmName } from './algorithm-names';
import type { AlgorithmName, Jwk } from './types';

/** node:crypto options, expressed without node types so this module stays isomorphic. */
export interface NodeSignatureOptions {
  /** Digest name for `crypto.sign`/`crypto.verify`; `null` for Ed25519 (no prehash). */
  readonly hash: string | null;
  /** ECDSA: raw r‖s (RFC 9421 §3.3.4, §3.3.5), not DER. */
  readonly dsaEncoding?: 'ieee-p1363';
  /** RSA padding: PSS (RFC 8017 §8.1) or PKCS #1 v1.5 (RFC 8017 §8.2). */
  readonly padding?: 'pss' | 'pkcs1';
  /** RSA-PSS salt length in bytes. */
  readonly saltLength?: number;
}

/** Everything the crypto layer needs to know about one algorithm. */
export interface AlgorithmSpec {
  readonly name: AlgorithmName;
  /** The JOSE `alg` name for the same operation (RFC 7518 §3.1, RFC 8037 §3.1). */
  readonly jose: string;
  /** Required JWK `kty` (RFC 7518 §6, RFC 8037 §2). */
  readonly kty: 'OKP' | 'EC' | 'RSA';
  /** Required JWK `crv` for OKP and EC keys. */
  readonly crv?: string;
  /** Byte length of each public coordinate (`x`, `y`) and of `d`, for OKP and EC keys. */
  readonly keyBytes?: number;
  /** Signature length in bytes when the algorithm fixes it; RSA signatures are as long as the modulus. */
  readonly signatureBytes?: number;
  /** True when a pure-JS implementation (@noble/ed25519) can stand in for a missing WebCrypto one. */
  readonly nobleFallback: boolean;
  readonly webCrypto: {
    readonly importParams: AlgorithmIdentifier | RsaHashedImportParams | EcKeyImportParams;
    readonly signParams: AlgorithmIdentifier | RsaPssParams | EcdsaParams;
    readonly generateParams: AlgorithmIdentifier | RsaHashedKeyGenParams | EcKeyGenParams;
  };
  readonly node: NodeSignatureOptions;
}

/** RSA moduli outside this range are refused: too weak below, a verification cost lever above. */
export const RSA_MIN_MODULUS_BITS = 2048;
export const RSA_MAX_MODULUS_BITS = 8192;

const F4 = new Uint8Array([1, 0, 1]);

const SPECS: Readonly<Record<AlgorithmName, AlgorithmSpec>> = {
  // RFC 9421 §3.3.6
  ed25519: {
    name: 'ed25519',
    jose: 'EdDSA',
    kty: 'OKP',
    crv: 'Ed25519',
    keyBytes: 32,
    signatureBytes: 64,
    nobleFallback: true,
    webCrypto: { importParams: { name: 'Ed25519' }, signParams: { name: 'Ed25519' }, generateParams: { name: 'Ed25519' } },
    node: { hash: null },
  },
  // RFC 9421 §3.3.4
  'ecdsa-p256-sha256': {
    name: 'ecdsa-p256-sha256',
    jose: 'ES256',
    kty: 'EC',
    crv: 'P-256',
    keyBytes: 32,
    signatureBytes: 64,
    nobleFallback: false,
    webCrypto: {
      importParams: { name: 'ECDSA', namedCurve: 'P-256' },
      signParams: { name: 'ECDSA', hash: 'SHA-256' },
      generateParams: { name: 'ECDSA', namedCurve: 'P-256' },
    },
    node: { hash: 'sha256', dsaEncoding: 'ieee-p1363' },
  },
  // RFC 9421 §3.3.5
  'ecdsa-p384-sha384': {
    name: 'ecdsa-p384-sha384',
    jose: 'ES384',
    kty: 'EC',
    crv: 'P-384',
    keyBytes: 48,
    signatureBytes: 96,
    nobleFallback: false,
    webCrypto: {
      importParams: { name: 'ECDSA', namedCurve: 'P-384' },
      signParams: { name: 'ECDSA', hash: 'SHA-384' },
      generateParams: { name: 'ECDSA', namedCurve: 'P-384' },
    },
    node: { hash: 'sha384', dsaEncoding: 'ieee-p1363' },
  },
  // RFC 9421 §3.3.1: MGF1 with SHA-512, salt length 64 bytes.
  'rsa-pss-sha512': {
    name: 'rsa-pss-sha512',
    jose: 'PS512',
    kty: 'RSA',
    nobleFallback: false,
    webCrypto: {
      importParams: { name: 'RSA-PSS', hash: 'SHA-512' },
      signParams: { name: 'RSA-PSS', saltLength: 64 },
      generateParams: { name: 'RSA-PSS', hash: 'SHA-512', modulusLength: 2048, publicExponent: F4 },
    },
    node: { hash: 'sha512', padding: 'pss', saltLength: 64 },
  },
  // RFC 9421 §3.3.2
  'rsa-v1_5-sha256': {
    name: 'rsa-v1_5-sha256',
    jose: 'RS256',
    kty: 'RSA',
    nobleFallback: false,
    webCrypto: {
      importParams: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      signParams: { name: 'RSASSA-PKCS1-v1_5' },
      generateParams: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', modulusLength: 2048, publicExponent: F4 },
    },
    node: { hash: 'sha256', padding: 'pkcs1' },
  },
};

export { ALGORITHMS, isAlgorithmName } from './algorithm-names';

// JOSE names seen in JWK `alg` members. `Ed25519` is the fully specified name (RFC 9864).
const JOSE_TO_HTTPSIG: ReadonlyMap<string, AlgorithmName> = new Map<string, AlgorithmName>([
  ['EdDSA', 'ed25519'],
  ['Ed25519', 'ed25519'],
  ['ES256', 'ecdsa-p256-sha256'],
  ['ES384', 'ecdsa-p384-sha384'],
  ['PS512', 'rsa-pss-sha512'],
  ['RS256', 'rsa-v1_5-sha256'],
]);

// Shared-secret algorithms: recognised so they can be refused by name (RFC 9421 §3.3.3, SPEC 5.2 rule 7).
const SHARED_SECRET = new Set(['hmac-sha256', 'HS256', 'HS384', 'HS512']);

function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/**
 * The parameter table entry for an algorithm.
 *
 * @throws TypeError when `alg` is not an {@link AlgorithmName} (a programming error).
 */
export function algorithmSpec(alg: AlgorithmName): AlgorithmSpec {
  if (!isAlgorithmName(alg)) throw new TypeError('not a supported algorithm name');
  return SPECS[alg];
}

/**
 * Checks an `alg` signature parameter (RFC 9421 §2.3) against the registry.
 *
 * @throws BotsigError `ERR_ALG_NOT_ALLOWED` for `hmac-sha256` and the JOSE HMAC names
 *   (shared secrets are forbidden by the Web Bot Auth profile, RFC 9421 §3.3.3),
 *   `ERR_ALG_UNKNOWN` for anything else that is not in {@link ALGORITHMS}.
 * @throws TypeError when `name` is not a string.
 * @example
 * toAlgorithmName('ed25519'); // 'ed25519'
 */
export function toAlgorithmName(name: string): AlgorithmName {
  if (typeof name !== 'string') throw new TypeError('algorithm name must be a string');
  return checkedAlgorithm(name);
}

/**
 * The algorithm of a key object, which may have been made by hand rather than by
 * `importVerifyingKey`/`importSigningKey`: its `alg` must be one of the asymmetric
 * algorithms of {@link ALGORITHMS}, whatever the object's own `sign`/`verify` does.
 *
 * @throws BotsigError `ERR_ALG_NOT_ALLOWED` for `hmac-sha256` and the JOSE HMAC names,
 *   `ERR_ALG_UNKNOWN` for any other value (a non-string included).
 * @example
 * keyAlgorithm({ alg: 'hmac-sha256', verify }.alg); // throws ERR_ALG_NOT_ALLOWED
 */
export function keyAlgorithm(alg: unknown): AlgorithmName {
  if (typeof alg !== 'string') throw new BotsigError('ERR_ALG_UNKNOWN', 'the key has no algorithm name');
  return checkedAlgorithm(alg);
}

function checkedAlgorithm(name: string): AlgorithmName {
  if (hasOwn(SPECS, name)) return name as AlgorithmName;
  // One of four fixed names, so it may appear in the message.
  if (SHARED_SECRET.has(name)) {
    throw new BotsigError('ERR_ALG_NOT_ALLOWED', `${name} is refused: shared-secret signatures are not allowed`);
  }
  throw new BotsigError('ERR_ALG_UNKNOWN', 'the algorithm is not in the HTTP Signature Algorithms registry subset botsig supports');
}

/**
 * Maps a JOSE `alg` (RFC 7518 §3.1, RFC 8037 §3.1) to the RFC 9421 name for the
 * same operation: EdDSA/Ed25519, ES256, ES384, PS512, RS256. Other names (and
 * RFC 9421 names) give `undefined`.
 */
export function joseAlgToHttpSig(alg: string): AlgorithmName | undefined {
  return typeof alg === 'string' ? JOSE_TO_HTTPSIG.get(alg) : undefined;
}

/**
 * Reads a JWK `alg` member written either as an RFC 9421 name or as a JOSE name.
 * Returns `undefined` when the member is absent or names nothing botsig supports.
 */
export function jwkAlgToAlgorithmName(alg: unknown): AlgorithmName | undefined {
  if (typeof alg !== 'string') return undefined;
  return isAlgorithmName(alg) ? alg : JOSE_TO_HTTPSIG.get(alg);
}

/**
 * The algorithm a JWK is for: its `alg` member (RFC 9421 or JOSE name) when
 * present, else the only algorithm its key type allows (OKP/Ed25519, EC P-256,
 * EC P-384). RSA keys without `alg` give `undefined`: PSS and v1.5 both fit.
 */
export function inferAlgorithm(jwk: Jwk): AlgorithmName | undefined {
  if (typeof jwk !== 'object' || jwk === null) return undefined;
  if (jwk.alg !== undefined) return jwkAlgToAlgorithmName(jwk.alg);
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'ed25519';
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ecdsa-p256-sha256';
  if (jwk.kty === 'EC' && jwk.crv === 'P-384') return 'ecdsa-p384-sha384';
  return undefined;
}

/** True when the JWK's key type (and curve) is the one `alg` requires (RFC 9421 §3.3). */
export function jwkFitsAlgorithm(jwk: Jwk, alg: AlgorithmName): boolean {
  if (typeof jwk !== 'object' || jwk === null || !isAlgorithmName(alg)) return false;
  const spec = SPECS[alg];
  if (jwk.kty !== spec.kty) return false;
  return spec.crv === undefined || jwk.crv === spec.crv;
}

/**
 * Decides the algorithm for a JWK, given an optional algorithm the caller asks for.
 *
 * @throws BotsigError `ERR_ALG_NOT_ALLOWED` for symmetric keys (`kty: oct`) or an
 *   HMAC `alg`; `ERR_ALG_UNKNOWN` when the JWK's `alg` is unsupported or an RSA
 *   key has neither `alg` nor a requested algorithm; `ERR_ALG_MISMATCH` when the
 *   key type, its `alg` and the requested algorithm disagree.
 */
export function algorithmForJwk(jwk: Jwk, requested?: AlgorithmName): AlgorithmName {
  if (jwk.kty === 'oct' || (typeof jwk.alg === 'string' && SHARED_SECRET.has(jwk.alg))) {
    throw new BotsigError('ERR_ALG_NOT_ALLOWED', 'symmetric (shared-secret) keys are not allowed');
  }
  if (requested !== undefined && !isAlgorithmName(requested)) {
    throw new TypeError('options.alg must be one of the supported algorithm names');
  }
  let declared: AlgorithmName | undefined;
  if (jwk.alg !== undefined) {
    declared = jwkAlgToAlgorithmName(jwk.alg);
    if (declared === undefined) throw new BotsigError('ERR_ALG_UNKNOWN', 'the JWK alg member names an unsupported algorithm');
  }
  if (requested !== undefined && declared !== undefined && declared !== requested) {
    throw new BotsigError('ERR_ALG_MISMATCH', `the JWK is declared for ${declared}, not ${requested}`);
  }
  const alg = requested ?? declared ?? inferAlgorithm(jwk);
  if (alg === undefined) {
    if (jwk.kty === 'RSA') {
      throw new BotsigError('ERR_ALG_UNKNOWN', 'an RSA key needs an alg (rsa-pss-sha512 or rsa-v1_5-sha256)');
    }
    throw new BotsigError('ERR_KEY_INVALID', 'unsupported key type or curve');
  }
  if (!jwkFitsAlgorithm(jwk, alg)) {
    throw new BotsigError('ERR_ALG_MISMATCH', `the key type does not fit ${alg}`);
  }
  return alg;
}

/**
 * The algorithm of a WebCrypto key (its `algorithm` member), or `undefined` when
 * botsig has no RFC 9421 name for it (e.g. RSA-PSS with SHA-256).
 */
export function algorithmFromWebCryptoKey(algorithm: KeyAlgorithm): AlgorithmName | undefined {
  const a = algorithm as KeyAlgorithm & { namedCurve?: unknown; hash?: { name?: unknown } };
  switch (a.name) {
    case 'Ed25519':
      return 'ed25519';
    case 'ECDSA':
      return a.namedCurve === 'P-256' ? 'ecdsa-p256-sha256' : a.namedCurve === 'P-384' ? 'ecdsa-p384-sha384' : undefined;
    case 'RSA-PSS':
      return a.hash?.name === 'SHA-512' ? 'rsa-pss-sha512' : undefined;
    case 'RSASSA-PKCS1-v1_5':
      return a.hash?.name === 'SHA-256' ? 'rsa-v1_5-sha256' : undefined;
    default:
      return undefined;
  }
}
