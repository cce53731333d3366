/**
 * Key material as given: the import options, JWK member checks against the
 * algorithm's shape (RFC 7518 §6, RFC 8037 §2), the public view of a JWK, and the
 * identities the key cache files imports under. No state.
 */
import { sha256 } from '../sha256';
import { base64UrlDecode, base64UrlEncode, utf8 } from '../../core/base64';
import { BotsigError, isBotsigError } from '../../core/errors';
import { isAlgorithmName, keyShape, RSA_MAX_MODULUS_BITS, RSA_MIN_MODULUS_BITS } from '../registry';
import { subtleSha256 } from '../thumbprint';
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
// The public key members of each key type (RFC 7518 §6.2.1, §6.3.1; RFC 8037 §2), in JWK order.
const KEY_MEMBERS = { OKP: ['x'], EC: ['x', 'y'], RSA: ['n', 'e'] } as const;
// Members that must never leave a private JWK (RFC 7518 §6.2.2, §6.3.2, §6.4.1), plus
// WebCrypto's usage markers, which describe the private key rather than the public one.
const NOT_PUBLIC = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'key_ops', 'ext']);
/** What an imported signing key signs and verifies once, so that halves that do not belong together are refused. */
export const SELF_TEST_MESSAGE = /* @__PURE__ */ utf8('botsig: private and public key agree');

export function invalid(message: string, cause?: unknown): BotsigError {
  return new BotsigError('ERR_KEY_INVALID', message, { cause });
}

function memberInvalid(name: string, problem: string): BotsigError {
  return invalid(`JWK member "${name}" ${problem}`);
}

function decodeMember(jwk: Jwk, name: string): Uint8Array | undefined {
  const value = jwk[name];
  if (value === undefined) return undefined;
  // Unpadded (RFC 7515 §2): a trailing "=" (61) is refused here, as the decoder would take it.
  const ok = typeof value === 'string' && value.length > 0 && value.length <= MAX_MEMBER_CHARS && value.charCodeAt(value.length - 1) !== 61;
  const bytes = ok ? base64UrlDecode(value) : undefined;
  if (bytes === undefined) throw memberInvalid(name, 'is not a base64url string');
  return bytes;
}

function requireMember(jwk: Jwk, name: string, length?: number): Uint8Array {
  const bytes = decodeMember(jwk, name);
  if (bytes === undefined) throw memberInvalid(name, 'is missing');
  if (length !== undefined && bytes.length !== length) throw memberInvalid(name, `must be ${length} bytes`);
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
  const { kty, crv, keyBytes } = keyShape(alg);
  const pub: Jwk = { kty };
  if (crv !== undefined) pub.crv = crv;
  // Two values of the key size: R‖S (RFC 8032 §5.1.6), r‖s (RFC 9421 §3.3.4, §3.3.5). RSA: the modulus size.
  let signatureBytes = 2 * keyBytes!;
  for (const name of KEY_MEMBERS[kty]) {
    const bytes = requireMember(jwk, name, keyBytes);
    if (name === 'n') signatureBytes = modulusBytes(bytes);
    else if (name === 'e' && (bytes.length > 8 || (bytes[bytes.length - 1]! & 1) === 0)) throw invalid('RSA public exponent is not valid');
    pub[name] = jwk[name] as string;
  }
  if (!needPrivate) return { publicMaterial: pub, signatureBytes };

  const priv: Jwk = { ...pub };
  if (jwk.d === undefined) throw invalid('a signing key needs the private member "d"');
  requireMember(jwk, 'd', keyBytes);
  priv.d = jwk.d as string;
  if (kty === 'RSA') {
    // The CRT members (RFC 7518 §6.3.2) are optional; passed on when well formed.
    for (const name of ['p', 'q', 'dp', 'dq', 'qi']) {
      if (decodeMember(jwk, name) !== undefined) priv[name] = jwk[name];
    }
  }
  return { publicMaterial: pub, privateMaterial: priv, signatureBytes };
}

/** The size in bytes of an RSA modulus (its signatures' length), checked against the bounds. */
function modulusBytes(n: Uint8Array): number {
  let start = 0;
  while (n[start] === 0) start++;
  const bits = start === n.length ? 0 : (n.length - start) * 8 + 24 - Math.clz32(n[start]!);
  if (bits < RSA_MIN_MODULUS_BITS || bits > RSA_MAX_MODULUS_BITS) {
    throw invalid(`RSA modulus must have ${RSA_MIN_MODULUS_BITS} to ${RSA_MAX_MODULUS_BITS} bits`);
  }
  return n.length - start;
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

/**
 * The cache identity of a private scalar: its SHA-256, base64url, by `crypto.subtle`.
 * Hashing lets two JWKs with one public key but different `d` stay apart in the cache
 * without keeping the secret itself in a cache key.
 *
 * @throws BotsigError `ERR_CRYPTO_UNSUPPORTED` when the runtime has no `crypto.subtle`.
 */
export function privateFingerprint(d: string): Promise<string> {
  return subtleSha256(d);
}

/** {@link privateFingerprint}, synchronously, with botsig's own SHA-256 (for `importSigningKeySync`). */
export function privateFingerprintSync(d: string): string {
  return base64UrlEncode(sha256(utf8(d)));
}

/**
 * Cache identity of a key: the algorithm (which fixes `kty` and `crv`) and the public
 * members it uses. `undefined` when a member is not a string: such a JWK never gets
 * past {@link checkMaterial}, and must not alias a valid one (`['x']` stringifies as `x`).
 */
export function materialId(jwk: Jwk, alg: AlgorithmName): string | undefined {
  let id: string = alg;
  for (const name of KEY_MEMBERS[keyShape(alg).kty]) {
    const value = jwk[name];
    if (typeof value !== 'string') return undefined;
    id += '\n' + value;
  }
  return id;
}

export function checkUse(jwk: Jwk): void {
  if (jwk.use !== undefined && jwk.use !== 'sig') throw invalid('the JWK "use" is not "sig"');
}

export function asJwk(key: object): Jwk {
  if (Array.isArray(key)) throw invalid('a JWK must be a JSON object, not an array');
  if (typeof (key as Jwk).kty !== 'string') throw memberInvalid('kty', 'is missing');
  return key as Jwk;
}

export function checkOptions(options: ImportKeyOptions | undefined): ImportKeyOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  if (options.alg !== undefined && !isAlgorithmName(options.alg)) throw new TypeError('options.alg must be one of the supported algorithm names');
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
