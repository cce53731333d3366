/**
 * Key material as given: the import options, JWK member checks against the
 * algorithm's shape (RFC 7518 §6, RFC 8037 §2), the public view of a JWK, and the
 * identities the key cache files imports under. No state.
 */
import { sha256 } from '../sha256';
import { base64UrlDecode, base64UrlEncode, utf8 } from '../../core/base64';
import { BotsigError, isBotsigError } from '../../core/errors';
import { algorithmSpec, isAlgorithmName, RSA_MAX_MODULUS_BITS, RSA_MIN_MODULUS_BITS } from '../registry';
import type { AlgorithmName, CryptoProvider, Jwk } from '../types';

/** Options of {@link importSigningKey} and {@link importVerifyingKey}. */
export interface ImportKeyOptions {
  /**
   * The algorithm the key must be used with (known by configuration, RFC 9421 §3.2
   * step 6); checked against the key type and the JWK's `alg`. Without it, a verifying
   * RSA JWK that has no `alg` gives a key that serves the algorithm each signature names
   * (see {@link keyForAlgorithm}); a signing one is refused.
   */
  alg?: AlgorithmName;
  /** Backend for JWK imports (default: {@link getCryptoProvider}). CryptoKeys always use WebCrypto. */
  provider?: CryptoProvider;
}

// An 8192-bit modulus is 1366 base64url characters; anything far longer is hostile.
const MAX_MEMBER_CHARS = 4096;
// Members that must never leave a private JWK (RFC 7518 §6.2.2, §6.3.2, §6.4.1), plus
// WebCrypto's usage markers, which describe the private key rather than the public one.
const NOT_PUBLIC = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'key_ops', 'ext']);
/** What an imported signing key signs and verifies once, so that halves that do not belong together are refused. */
export const SELF_TEST_MESSAGE = /* @__PURE__ */ utf8('botsig: private and public key agree');

export function invalid(message: string, cause?: unknown): BotsigError {
  return new BotsigError('ERR_KEY_INVALID', message, cause === undefined ? undefined : { cause });
}

function decodeMember(jwk: Jwk, name: string): Uint8Array | undefined {
  const value = jwk[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_MEMBER_CHARS || value.charCodeAt(value.length - 1) === 61 /* = */) {
    throw invalid(`JWK member "${name}" is not a base64url string`);
  }
  const bytes = base64UrlDecode(value);
  if (bytes === undefined) throw invalid(`JWK member "${name}" is not a base64url string`);
  return bytes;
}

function requireMember(jwk: Jwk, name: string, length?: number): Uint8Array {
  const bytes = decodeMember(jwk, name);
  if (bytes === undefined) throw invalid(`JWK member "${name}" is missing`);
  if (length !== undefined && bytes.length !== length) throw invalid(`JWK member "${name}" must be ${length} bytes`);
  return bytes;
}

export interface CheckedMaterial {
  /** `kty`, `crv`, `x`, `y`, `n`, `e` only. */
  readonly publicMaterial: Jwk;
  /** Public material plus the private members, when asked for. */
  readonly privateMaterial?: Jwk;
  readonly signatureBytes: number;
}

/**
 * Checks a JWK's members against the algorithm's shape (RFC 7518 §6, RFC 8037 §2)
 * and returns clean copies for the provider.
 */
export function checkMaterial(jwk: Jwk, alg: AlgorithmName, needPrivate: boolean): CheckedMaterial {
  checkUse(jwk);
  const spec = algorithmSpec(alg);
  const pub: Jwk = { kty: spec.kty };
  let signatureBytes: number;
  if (spec.kty === 'RSA') {
    const n = requireMember(jwk, 'n');
    let start = 0;
    while (start < n.length && n[start] === 0) start++;
    const bits = start === n.length ? 0 : (n.length - start - 1) * 8 + (32 - Math.clz32(n[start]!));
    if (bits < RSA_MIN_MODULUS_BITS || bits > RSA_MAX_MODULUS_BITS) {
      throw invalid(`RSA modulus must have ${RSA_MIN_MODULUS_BITS} to ${RSA_MAX_MODULUS_BITS} bits`);
    }
    const e = requireMember(jwk, 'e');
    if (e.length === 0 || e.length > 8 || (e[e.length - 1]! & 1) === 0) throw invalid('RSA public exponent is not valid');
    pub.n = jwk.n as string;
    pub.e = jwk.e as string;
    signatureBytes = Math.ceil(bits / 8);
  } else {
    const size = spec.keyBytes!;
    pub.crv = spec.crv!;
    requireMember(jwk, 'x', size);
    pub.x = jwk.x as string;
    if (spec.kty === 'EC') {
      requireMember(jwk, 'y', size);
      pub.y = jwk.y as string;
    }
    signatureBytes = spec.signatureBytes!;
  }
  if (!needPrivate) return { publicMaterial: pub, signatureBytes };

  const priv: Jwk = { ...pub };
  if (jwk.d === undefined) throw invalid('a signing key needs the private member "d"');
  requireMember(jwk, 'd', spec.kty === 'RSA' ? undefined : spec.keyBytes);
  priv.d = jwk.d as string;
  if (spec.kty === 'RSA') {
    for (const name of ['p', 'q', 'dp', 'dq', 'qi']) {
      if (decodeMember(jwk, name) !== undefined) priv[name] = jwk[name];
    }
  }
  return { publicMaterial: pub, privateMaterial: priv, signatureBytes };
}

/** The JWK to expose: every member as given, minus private ones (and WebCrypto usage marks). */
export function publicJwkOf(jwk: Jwk): Jwk {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(jwk)) {
    if (NOT_PUBLIC.has(name)) continue;
    const value = jwk[name];
    out[name] = Array.isArray(value) ? Object.freeze(value.slice()) : value;
  }
  return Object.freeze(out) as Jwk;
}

// Hashing the private scalar lets two JWKs with one public key but different `d` stay apart
// in the cache without keeping the secret itself in a cache key.
export function privateFingerprint(d: string): string {
  return base64UrlEncode(sha256(utf8(d)));
}

/**
 * Cache identity of a key: the algorithm (which fixes `kty` and `crv`) and the public
 * members it uses. `undefined` when a member is not a string: such a JWK never gets
 * past {@link checkMaterial}, and must not alias a valid one (`['x']` stringifies as `x`).
 */
export function materialId(jwk: Jwk, alg: AlgorithmName): string | undefined {
  const members = MATERIAL_MEMBERS[algorithmSpec(alg).kty];
  let id: string = alg;
  for (const name of members) {
    const value = jwk[name];
    if (typeof value !== 'string') return undefined;
    id += '\n' + value;
  }
  return id;
}
const MATERIAL_MEMBERS = { OKP: ['x'], EC: ['x', 'y'], RSA: ['n', 'e'] } as const;

export function checkUse(jwk: Jwk): void {
  if (jwk.use !== undefined && jwk.use !== 'sig') throw invalid('the JWK "use" is not "sig"');
}

export function asJwk(key: object): Jwk {
  if (Array.isArray(key)) throw invalid('a JWK must be a JSON object, not an array');
  if (typeof (key as Jwk).kty !== 'string') throw invalid('JWK member "kty" is missing');
  return key as Jwk;
}

export function checkOptions(options: ImportKeyOptions | undefined): ImportKeyOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  if (options.alg !== undefined && !isAlgorithmName(options.alg)) throw new TypeError('options.alg must be a supported algorithm name');
  return options;
}

/** Runs a provider import; anything but a BotsigError it throws becomes `ERR_KEY_INVALID`. */
export async function providerCall<T>(alg: AlgorithmName, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw invalid(`the key material was rejected for ${alg}`, error);
  }
}
