/**
 * The HTTP Signature Algorithms that botsig knows (RFC 9421 §3.3, §6.2.2).
 *
 * This module is the only place that branches on an algorithm name: every other
 * module looks the algorithm up here and reads the parameters it needs (WebCrypto
 * import and sign parameters, node:crypto options, the JWK shape, the JOSE name).
 *
 * The table is split by who reads it: {@link keyShape} (JWK shape and WebCrypto import
 * and sign parameters) is what every key import needs; the node:crypto options, the
 * generate parameters and the rest of {@link AlgorithmSpec} are read only by the
 * node:crypto provider and key generation, so a bundle that only imports keys does
 * not carry them.
 */
import { BotsigError } from '../core/errors';
import { ALGORITHMS, isAlgorithmName } from './algorithm-names';
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

/** What a key import needs to know about an algorithm: the JWK shape and the WebCrypto parameters. */
export interface KeyShape {
  /** The JOSE `alg` name for the same operation (RFC 7518 §3.1, RFC 8037 §3.1). */
  readonly jose: string;
  /** Required JWK `kty` (RFC 7518 §6, RFC 8037 §2). */
  readonly kty: 'OKP' | 'EC' | 'RSA';
  /** Required JWK `crv` for OKP and EC keys. */
  readonly crv?: string;
  /**
   * Byte length of each public coordinate (`x`, `y`) and of `d`, for OKP and EC keys.
   * Their signatures are two such values (R‖S, r‖s), so twice as long.
   */
  readonly keyBytes?: number;
  readonly importParams: { readonly name: string; readonly namedCurve?: string; readonly hash?: string };
  readonly signParams: AlgorithmIdentifier | RsaPssParams | EcdsaParams;
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

const SHAPES: Readonly<Record<AlgorithmName, KeyShape>> = {
  // RFC 9421 §3.3.6
  ed25519: { jose: 'EdDSA', kty: 'OKP', crv: 'Ed25519', keyBytes: 32, importParams: { name: 'Ed25519' }, signParams: { name: 'Ed25519' } },
  // RFC 9421 §3.3.4
  'ecdsa-p256-sha256': {
    jose: 'ES256',
    kty: 'EC',
    crv: 'P-256',
    keyBytes: 32,
    importParams: { name: 'ECDSA', namedCurve: 'P-256' },
    signParams: { name: 'ECDSA', hash: 'SHA-256' },
  },
  // RFC 9421 §3.3.5
  'ecdsa-p384-sha384': {
    jose: 'ES384',
    kty: 'EC',
    crv: 'P-384',
    keyBytes: 48,
    importParams: { name: 'ECDSA', namedCurve: 'P-384' },
    signParams: { name: 'ECDSA', hash: 'SHA-384' },
  },
  // RFC 9421 §3.3.1: MGF1 with SHA-512, salt length 64 bytes.
  'rsa-pss-sha512': { jose: 'PS512', kty: 'RSA', importParams: { name: 'RSA-PSS', hash: 'SHA-512' }, signParams: { name: 'RSA-PSS', saltLength: 64 } },
  // RFC 9421 §3.3.2
  'rsa-v1_5-sha256': { jose: 'RS256', kty: 'RSA', importParams: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, signParams: { name: 'RSASSA-PKCS1-v1_5' } },
};

// node:crypto options (RFC 9421 §3.3): read by the node:crypto provider only.
const NODE: Readonly<Record<AlgorithmName, NodeSignatureOptions>> = {
  ed25519: { hash: null },
  'ecdsa-p256-sha256': { hash: 'sha256', dsaEncoding: 'ieee-p1363' },
  'ecdsa-p384-sha384': { hash: 'sha384', dsaEncoding: 'ieee-p1363' },
  'rsa-pss-sha512': { hash: 'sha512', padding: 'pss', saltLength: 64 },
  'rsa-v1_5-sha256': { hash: 'sha256', padding: 'pkcs1' },
};

/** The whole table entry: the key shape, the node:crypto options and the generate parameters. */
function fullSpec(name: AlgorithmName): AlgorithmSpec {
  const { jose, kty, crv, keyBytes, importParams, signParams } = SHAPES[name];
  // crypto.subtle.generateKey: RSA keys get a 2048-bit modulus and exponent 65537.
  const generateParams =
    kty === 'RSA' ? { ...(importParams as RsaHashedImportParams), modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) } : importParams;
  return {
    name,
    jose,
    kty,
    ...(crv === undefined ? {} : { crv, keyBytes, signatureBytes: 2 * keyBytes! }),
    nobleFallback: name === 'ed25519',
    webCrypto: { importParams, signParams, generateParams },
    node: NODE[name],
  };
}

// Read only by the node:crypto provider and key generation: where nothing reads it, a bundler drops it.
const SPECS: ReadonlyMap<AlgorithmName, AlgorithmSpec> = /* @__PURE__ */ new Map(/* @__PURE__ */ ALGORITHMS.map((name) => [name, fullSpec(name)]));

export { ALGORITHMS, isAlgorithmName } from './algorithm-names';

// JOSE names seen in JWK `alg` members. `Ed25519` is the fully specified name (RFC 9864).
const JOSE_TO_HTTPSIG: ReadonlyMap<string, AlgorithmName> = /* @__PURE__ */ new Map<string, AlgorithmName>([
  ...ALGORITHMS.map((alg): [string, AlgorithmName] => [SHAPES[alg].jose, alg]),
  ['Ed25519', 'ed25519'],
]);

// Shared-secret algorithms: recognised so they can be refused by name (RFC 9421 §3.3.3, SPEC 5.2 rule 7).
const SHARED_SECRET = /* @__PURE__ */ new Set(['hmac-sha256', 'HS256', 'HS384', 'HS512']);

/** The refusal of symmetric keys, whether given as a JWK (`kty: oct`) or a CryptoKey (`type: secret`). */
export function symmetricRefused(): BotsigError {
  return new BotsigError('ERR_ALG_NOT_ALLOWED', 'symmetric (shared-secret) keys are not allowed');
}

/** `ERR_ALG_MISMATCH`: `what` (the key, the JWK, the CryptoKey) is for `alg`, and `requested` was asked for. */
export function algorithmMismatch(what: string, alg: string, requested: string): BotsigError {
  return new BotsigError('ERR_ALG_MISMATCH', `${what} is for ${alg}, not ${requested}`);
}

/**
 * The parameter table entry for an algorithm.
 *
 * @throws TypeError when `alg` is not an {@link AlgorithmName} (a programming error).
 */
export function algorithmSpec(alg: AlgorithmName): AlgorithmSpec {
  if (!isAlgorithmName(alg)) throw new TypeError('not a supported algorithm name');
  return SPECS.get(alg)!;
}

/**
 * The JWK shape and WebCrypto parameters of an algorithm (the part of
 * {@link algorithmSpec} that key imports read).
 *
 * @throws TypeError when `alg` is not an {@link AlgorithmName} (a programming error).
 */
export function keyShape(alg: AlgorithmName): KeyShape {
  if (!isAlgorithmName(alg)) throw new TypeError('not a supported algorithm name');
  return SHAPES[alg];
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
  if (isAlgorithmName(name)) return name;
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
  // Only the algorithms with a curve are fixed by the key type.
  return ALGORITHMS.find((alg) => SHAPES[alg].crv !== undefined && jwkFitsAlgorithm(jwk, alg));
}

/** True when the JWK's key type (and curve) is the one `alg` requires (RFC 9421 §3.3). */
export function jwkFitsAlgorithm(jwk: Jwk, alg: AlgorithmName): boolean {
  if (typeof jwk !== 'object' || jwk === null || !isAlgorithmName(alg)) return false;
  const shape = SHAPES[alg];
  return jwk.kty === shape.kty && (shape.crv === undefined || jwk.crv === shape.crv);
}

/**
 * Decides the algorithm for a JWK, given an optional algorithm the caller asks for.
 *
 * @throws BotsigError `ERR_ALG_NOT_ALLOWED` for symmetric keys (`kty: oct`) or an
 *   HMAC `alg`; `ERR_ALG_UNKNOWN` when the JWK's `alg` is unsupported or an RSA
 *   key has neither `alg` nor a requested algorithm; `ERR_ALG_MISMATCH` when the
 *   key type, its `alg` and the requested algorithm disagree.
 * @throws TypeError when `requested` is not an {@link AlgorithmName}.
 */
export function algorithmForJwk(jwk: Jwk, requested?: AlgorithmName): AlgorithmName {
  if (jwk.kty === 'oct' || SHARED_SECRET.has(jwk.alg as string)) throw symmetricRefused();
  if (requested !== undefined && !isAlgorithmName(requested)) {
    throw new TypeError('options.alg must be one of the supported algorithm names');
  }
  let declared: AlgorithmName | undefined;
  if (jwk.alg !== undefined) {
    declared = jwkAlgToAlgorithmName(jwk.alg);
    if (declared === undefined) throw new BotsigError('ERR_ALG_UNKNOWN', 'the JWK alg member names an unsupported algorithm');
  }
  if (requested !== undefined && declared !== undefined && declared !== requested) throw algorithmMismatch('the JWK', declared, requested);
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
 * botsig has no RFC 9421 name for it (e.g. RSA-PSS with SHA-256): the one whose
 * import parameters it carries (name, and the curve or hash they fix).
 */
export function algorithmFromWebCryptoKey(algorithm: KeyAlgorithm): AlgorithmName | undefined {
  const a = algorithm as KeyAlgorithm & { namedCurve?: unknown; hash?: { name?: unknown } };
  return ALGORITHMS.find((alg) => {
    const p = SHAPES[alg].importParams;
    return p.name === a.name && (p.namedCurve === undefined || p.namedCurve === a.namedCurve) && (p.hash === undefined || p.hash === a.hash?.name);
  });
}
