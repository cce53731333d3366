/**
 * Turns key material (JWK, CryptoKey, CryptoKeyPair) into {@link SigningKey} and
 * {@link VerifyingKey} objects, once: imports are cached per provider, by
 * algorithm and thumbprint, so a long-running verifier never re-imports a key.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { base64UrlDecode, base64UrlEncode, utf8 } from '../core/base64';
import { BotsigError, isBotsigError } from '../core/errors';
import { ed25519JwkBytes, nobleEd25519Signer } from './noble';
import { getCryptoProvider } from './provider';
import {
  ALGORITHMS,
  algorithmForJwk,
  algorithmFromWebCryptoKey,
  algorithmSpec,
  inferAlgorithm,
  isAlgorithmName,
  jwkFitsAlgorithm,
  RSA_MAX_MODULUS_BITS,
  RSA_MIN_MODULUS_BITS,
} from './registry';
import { jwkThumbprintSync } from './thumbprint';
import type { AlgorithmName, BoundVerifyingKey, CryptoProvider, Jwk, SigningKey, VerifyingKey } from './types';
import { getSubtle, webCryptoSigner, webCryptoVerifier } from './webcrypto';

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

/** Imported keys kept per provider (least recently used beyond this are dropped). */
export const KEY_CACHE_MAX_ENTRIES = 1000;

// An 8192-bit modulus is 1366 base64url characters; anything far longer is hostile.
const MAX_MEMBER_CHARS = 4096;
// Members that must never leave a private JWK (RFC 7518 §6.2.2, §6.3.2, §6.4.1), plus
// WebCrypto's usage markers, which describe the private key rather than the public one.
const NOT_PUBLIC = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'key_ops', 'ext']);
const SELF_TEST_MESSAGE = utf8('botsig: private and public key agree');

type VerifyFn = (data: Uint8Array, signature: Uint8Array) => boolean | Promise<boolean>;
type SignFn = (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** A small LRU over Map's insertion order. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next();
      if (oldest.done !== true) this.map.delete(oldest.value);
    }
  }
  deleteIf(key: string, value: V): void {
    if (this.map.get(key) === value) this.map.delete(key);
  }
  get size(): number {
    return this.map.size;
  }
  clear(): void {
    this.map.clear();
  }
}

interface ImportedVerify {
  readonly verify: VerifyFn;
  readonly thumbprint: string;
  readonly signatureBytes: number;
}
interface ImportedSign {
  readonly sign: SignFn;
  readonly thumbprint: string;
}

/** The members a cached wrapper was built from; a changed member means a new import. */
interface Snapshot {
  readonly requested: AlgorithmName | undefined;
  readonly values: readonly unknown[];
}
const SNAPSHOT_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'd', 'alg'] as const;

function snapshot(jwk: Jwk, requested: AlgorithmName | undefined): Snapshot {
  return { requested, values: SNAPSHOT_MEMBERS.map((m) => jwk[m]) };
}
function sameSnapshot(s: Snapshot, jwk: Jwk, requested: AlgorithmName | undefined): boolean {
  if (s.requested !== requested) return false;
  for (let i = 0; i < SNAPSHOT_MEMBERS.length; i++) if (s.values[i] !== jwk[SNAPSHOT_MEMBERS[i]!]) return false;
  return true;
}

interface ProviderCache {
  readonly verify: Lru<Promise<ImportedVerify>>;
  readonly sign: Lru<Promise<ImportedSign>>;
  readonly verifyByJwk: WeakMap<object, { snap: Snapshot; key: Promise<VerifyingKey> }>;
  readonly signByJwk: WeakMap<object, { snap: Snapshot; key: Promise<SigningKey> }>;
}
let caches = new WeakMap<CryptoProvider, ProviderCache>();
let syncSign = new Lru<ImportedSign>(KEY_CACHE_MAX_ENTRIES);
let syncByJwk = new WeakMap<object, { snap: Snapshot; key: SigningKey }>();
let verifyByCryptoKey = new WeakMap<CryptoKey, Promise<VerifyingKey>>();
let signByCryptoKey = new WeakMap<CryptoKey, Promise<SigningKey>>();

function cacheFor(provider: CryptoProvider): ProviderCache {
  let cache = caches.get(provider);
  if (cache === undefined) {
    cache = {
      verify: new Lru(KEY_CACHE_MAX_ENTRIES),
      sign: new Lru(KEY_CACHE_MAX_ENTRIES),
      verifyByJwk: new WeakMap(),
      signByJwk: new WeakMap(),
    };
    caches.set(provider, cache);
  }
  return cache;
}

/** Drops every cached import (all providers). Mostly for tests and key rotation drills. */
export function clearKeyCache(): void {
  caches = new WeakMap();
  syncSign = new Lru(KEY_CACHE_MAX_ENTRIES);
  syncByJwk = new WeakMap();
  verifyByCryptoKey = new WeakMap();
  signByCryptoKey = new WeakMap();
}

/** Entries in the cache of imported keys for `provider` (verify and sign). */
export function keyCacheSize(provider: CryptoProvider = getCryptoProvider()): number {
  const cache = caches.get(provider);
  return cache === undefined ? 0 : cache.verify.size + cache.sign.size;
}

// ---------------------------------------------------------------------------
// Type guards

/** True for objects made by {@link importSigningKey} (or shaped like them). */
export function isSigningKey(value: unknown): value is SigningKey {
  const v = value as Partial<SigningKey> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.sign === 'function' && typeof v.thumbprint === 'string' && isAlgorithmName(v.alg) && typeof v.publicJwk === 'object'
  );
}

/**
 * True for objects made by {@link importVerifyingKey} (or shaped like them): bound to
 * an algorithm (`alg`), or unbound with a non-empty `algorithms` list.
 */
export function isVerifyingKey(value: unknown): value is VerifyingKey {
  const v = value as Partial<VerifyingKey> | null;
  if (typeof v !== 'object' || v === null || typeof v.verify !== 'function' || typeof v.thumbprint !== 'string' || typeof v.jwk !== 'object') return false;
  if (isAlgorithmName(v.alg)) return true;
  const list = v.algorithms;
  return v.alg === undefined && Array.isArray(list) && list.length > 0 && list.every(isAlgorithmName);
}

function isCryptoKey(value: object): value is CryptoKey {
  if (typeof CryptoKey === 'function' && value instanceof CryptoKey) return true;
  const v = value as Partial<CryptoKey>;
  return typeof v.type === 'string' && typeof v.algorithm === 'object' && Array.isArray(v.usages) && typeof v.extractable === 'boolean';
}

function isCryptoKeyPair(value: object): value is CryptoKeyPair {
  const v = value as Partial<CryptoKeyPair>;
  return typeof v.privateKey === 'object' && v.privateKey !== null && isCryptoKey(v.privateKey) && typeof v.publicKey === 'object' && v.publicKey !== null && isCryptoKey(v.publicKey);
}

// ---------------------------------------------------------------------------
// Key material checks

function invalid(message: string, cause?: unknown): BotsigError {
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

interface CheckedMaterial {
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
function checkMaterial(jwk: Jwk, alg: AlgorithmName, needPrivate: boolean): CheckedMaterial {
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
function publicJwkOf(jwk: Jwk): Jwk {
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
function privateFingerprint(d: string): string {
  return base64UrlEncode(sha256(utf8(d)));
}

/**
 * Cache identity of a key: the algorithm (which fixes `kty` and `crv`) and the public
 * members it uses. `undefined` when a member is not a string: such a JWK never gets
 * past {@link checkMaterial}, and must not alias a valid one (`['x']` stringifies as `x`).
 */
function materialId(jwk: Jwk, alg: AlgorithmName): string | undefined {
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

function checkUse(jwk: Jwk): void {
  if (jwk.use !== undefined && jwk.use !== 'sig') throw invalid('the JWK "use" is not "sig"');
}

function asJwk(key: object): Jwk {
  if (Array.isArray(key)) throw invalid('a JWK must be a JSON object, not an array');
  if (typeof (key as Jwk).kty !== 'string') throw invalid('JWK member "kty" is missing');
  return key as Jwk;
}

function checkOptions(options: ImportKeyOptions | undefined): ImportKeyOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  if (options.alg !== undefined && !isAlgorithmName(options.alg)) throw new TypeError('options.alg must be a supported algorithm name');
  return options;
}

function toPlainBytes(bytes: Uint8Array): Uint8Array {
  // Node's Buffer is a Uint8Array subclass; hand out plain Uint8Arrays everywhere.
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

async function providerCall<T>(alg: AlgorithmName, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw invalid(`the key material was rejected for ${alg}`, error);
  }
}

// ---------------------------------------------------------------------------
// Wrappers

/** What {@link verifyBase} needs to call a botsig-made key's provider directly. */
interface VerifyInternals {
  readonly fn: VerifyFn;
  readonly signatureBytes: number;
  /** The provider answers before returning (node:crypto, @noble), so it is done with `data` by then. */
  synchronous: boolean;
}
const verifyInternals = new WeakMap<VerifyingKey, VerifyInternals>();

/** What {@link signBase} needs to call a botsig-made key's synchronous provider directly. */
interface SignInternals {
  readonly fn: SignFn;
  synchronous: boolean;
}
const signInternals = new WeakMap<SigningKey, SignInternals>();

// One frozen `algorithms` list per algorithm, shared by every key bound to it.
const ONLY: ReadonlyMap<AlgorithmName, readonly AlgorithmName[]> = new Map(ALGORITHMS.map((a) => [a, Object.freeze([a])]));

function makeVerifyingKey(alg: AlgorithmName, thumbprint: string, jwk: Jwk, fn: VerifyFn, signatureBytes: number, synchronous: boolean): BoundVerifyingKey {
  const verify = async (data: Uint8Array, signature: Uint8Array): Promise<boolean> => {
    if (!(data instanceof Uint8Array) || !(signature instanceof Uint8Array)) throw new TypeError('data and signature must be Uint8Arrays');
    // A wrong length can never verify; refusing it here keeps providers from disagreeing on odd inputs.
    if (signature.length !== signatureBytes) return false;
    try {
      return (await fn(data, signature)) === true;
    } catch {
      return false;
    }
  };
  const key: BoundVerifyingKey = Object.freeze({ alg, algorithms: ONLY.get(alg)!, thumbprint, jwk, verify });
  verifyInternals.set(key, { fn, signatureBytes, synchronous });
  return key;
}

/** The bound keys an unbound key stands for, by algorithm (each imported once, with the unbound key). */
const boundVariants = new WeakMap<VerifyingKey, ReadonlyMap<AlgorithmName, BoundVerifyingKey>>();

function algorithmUndetermined(algorithms: readonly AlgorithmName[] | undefined): BotsigError {
  return new BotsigError(
    'ERR_ALG_UNKNOWN',
    `neither the signature (alg parameter) nor the key names the algorithm, and the key allows ${algorithms?.join(' or ') ?? 'several'} (RFC 9421 §3.2 step 6)`,
  );
}

function makeUnboundKey(thumbprint: string, jwk: Jwk, variants: ReadonlyMap<AlgorithmName, BoundVerifyingKey>): VerifyingKey {
  const algorithms: readonly AlgorithmName[] = Object.freeze([...variants.keys()]);
  // Never guess: the algorithm comes from the signature, through keyForAlgorithm().
  const verify = (): Promise<boolean> => Promise.reject(algorithmUndetermined(algorithms));
  const key: VerifyingKey = Object.freeze({ alg: undefined, algorithms, thumbprint, jwk, verify });
  boundVariants.set(key, variants);
  return key;
}

/**
 * The key to verify a signature with, bound to the algorithm that signature uses
 * (RFC 9421 §3.2 step 6). `alg` is the signature's `alg` parameter, already checked
 * with `toAlgorithmName()`, or `undefined` when the signature has none.
 *
 * - A bound key (`key.alg` set: by its key type, its JWK `alg`, or the importer) is
 *   returned as is when `alg` is absent or equal; another `alg` is `ERR_ALG_MISMATCH`.
 * - An unbound key (an RSA JWK without `alg`) gives the key bound to `alg`, imported
 *   once with the unbound key (no import, no allocation here); an `alg` its key type
 *   cannot serve (e.g. `ed25519` for an RSA key) is `ERR_ALG_MISMATCH`. Without `alg`
 *   neither side names the algorithm: `ERR_ALG_UNKNOWN` (botsig does not try each
 *   algorithm the key allows). Name the algorithm by configuration instead with
 *   `importVerifyingKey(jwk, { alg })`.
 *
 * The error is returned, not thrown, so a verifier can report it without a `try`.
 *
 * @throws TypeError when `key` is not an object.
 * @example
 * const bound = keyForAlgorithm(key, params.alg === undefined ? undefined : toAlgorithmName(params.alg));
 * if (bound instanceof BotsigError) reject(bound.code);
 * else if (await verifyBase(bound, base, signature)) accept();
 */
export function keyForAlgorithm(key: VerifyingKey, alg: AlgorithmName | undefined): BoundVerifyingKey | BotsigError {
  if (typeof key !== 'object' || key === null) throw new TypeError('key must be a VerifyingKey');
  const own = key.alg;
  if (own !== undefined) {
    if (alg === undefined || alg === own) return key as BoundVerifyingKey;
    return new BotsigError('ERR_ALG_MISMATCH', `alg ${alg} does not match the key (${own})`);
  }
  if (alg === undefined) return algorithmUndetermined(key.algorithms);
  const variants = boundVariants.get(key);
  const bound = variants?.get(alg);
  if (bound !== undefined) return bound;
  if (variants === undefined && key.algorithms?.includes(alg) === true) {
    return new BotsigError('ERR_ALG_UNKNOWN', `the key names no algorithm and was not imported by botsig, so it cannot be bound to ${alg}`);
  }
  return new BotsigError('ERR_ALG_MISMATCH', `alg ${alg} does not fit the key (it serves ${key.algorithms?.join(', ') ?? 'other algorithms'})`);
}

// The signature base, encoded for a synchronous provider without allocating per call.
// Bases longer than this are encoded into a fresh array instead of growing the buffer.
const SCRATCH_MAX_BYTES = 1 << 16;
let scratch = new Uint8Array(1024);
const baseEncoder = new TextEncoder();

/** `base` as UTF-8 in the shared buffer (valid until the next call), or `undefined` when too long for it. */
function encodeToScratch(base: string): Uint8Array | undefined {
  // Worst case three UTF-8 bytes per UTF-16 code unit.
  const bound = base.length * 3;
  if (bound > SCRATCH_MAX_BYTES) return undefined;
  if (scratch.length < bound) scratch = new Uint8Array(Math.max(bound, scratch.length * 2));
  return scratch.subarray(0, baseEncoder.encodeInto(base, scratch).written);
}

/**
 * Verifies `signature` over a signature base given as text (RFC 9421 §3.2 step 8),
 * with the same result as `key.verify(utf8(base), signature)`. For a key imported
 * by botsig through a synchronous provider (node:crypto, @noble) the base is encoded
 * into a reused buffer and the provider called directly, which saves an allocation
 * and a promise per verification on the hot path; any other key goes through
 * `key.verify`. Never throws for a bad signature: the answer is then `false`.
 * An unbound key (`key.alg` undefined) rejects with `ERR_ALG_UNKNOWN`: bind it to the
 * signature's algorithm first with {@link keyForAlgorithm}.
 *
 * @throws TypeError when `key` is not a verifying key or `base` not a string.
 * @example
 * if (!(await verifyBase(key, createSignatureBase(message, input), signatureBytes))) reject();
 */
export function verifyBase(key: VerifyingKey, base: string, signature: Uint8Array): boolean | Promise<boolean> {
  if (typeof base !== 'string') throw new TypeError('base must be a string');
  const internals = verifyInternals.get(key);
  const data = internals?.synchronous === true ? encodeToScratch(base) : undefined;
  if (internals === undefined || data === undefined) {
    if (typeof key !== 'object' || key === null || typeof key.verify !== 'function') throw new TypeError('key must be a VerifyingKey');
    return key.verify(utf8(base), signature);
  }
  if (!(signature instanceof Uint8Array)) throw new TypeError('data and signature must be Uint8Arrays');
  if (signature.length !== internals.signatureBytes) return false;
  try {
    const ok = internals.fn(data, signature);
    if (ok instanceof Promise) {
      // A provider that claims to be synchronous and is not may read the buffer after
      // it is reused: drop this answer and never share the buffer with it again.
      internals.synchronous = false;
      ok.catch(() => undefined);
      return key.verify(utf8(base), signature);
    }
    return ok === true;
  } catch {
    return false;
  }
}

/**
 * Signs a signature base given as text (RFC 9421 §3.1 step 6). For a key imported by
 * botsig through a synchronous provider (node:crypto, @noble) the base is encoded into
 * a reused buffer and the signature returned directly (no promise). Other botsig keys
 * sign with `key.sign(utf8(base))`; a key made elsewhere with `key.signSync` when it
 * has one, else `key.sign`.
 *
 * @throws BotsigError `ERR_CRYPTO_UNSUPPORTED` when the provider fails, as `key.sign`.
 * @throws TypeError when `key` is not a signing key or `base` not a string.
 * @example
 * const signature = await signBase(key, createSignatureBase(message, input));
 */
export function signBase(key: SigningKey, base: string): Uint8Array | Promise<Uint8Array> {
  if (typeof base !== 'string') throw new TypeError('base must be a string');
  const internals = signInternals.get(key);
  const data = internals?.synchronous === true ? encodeToScratch(base) : undefined;
  if (internals !== undefined && data === undefined) return key.sign(utf8(base));
  if (internals === undefined || data === undefined) {
    if (typeof key !== 'object' || key === null || typeof key.sign !== 'function') throw new TypeError('key must be a SigningKey');
    return key.signSync !== undefined ? key.signSync(utf8(base)) : key.sign(utf8(base));
  }
  let out: Uint8Array | Promise<Uint8Array>;
  try {
    out = internals.fn(data);
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `signing with ${key.alg} failed`, { cause: error });
  }
  if (out instanceof Promise) {
    // A provider that claims to be synchronous and is not may read the buffer after
    // it is reused: drop this answer and never share the buffer with it again.
    internals.synchronous = false;
    out.catch(() => undefined);
    return key.sign(utf8(base));
  }
  return toPlainBytes(out);
}

function makeSigningKey(alg: AlgorithmName, thumbprint: string, publicJwk: Jwk, fn: SignFn, synchronous: boolean): SigningKey {
  const key = makeSigningKeyObject(alg, thumbprint, publicJwk, fn, synchronous);
  signInternals.set(key, { fn, synchronous });
  return key;
}

function makeSigningKeyObject(alg: AlgorithmName, thumbprint: string, publicJwk: Jwk, fn: SignFn, synchronous: boolean): SigningKey {
  const sign = async (data: Uint8Array): Promise<Uint8Array> => {
    if (!(data instanceof Uint8Array)) throw new TypeError('data must be a Uint8Array');
    try {
      return toPlainBytes(await fn(data));
    } catch (error) {
      if (isBotsigError(error)) throw error;
      throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `signing with ${alg} failed`, { cause: error });
    }
  };
  if (!synchronous) return Object.freeze({ alg, thumbprint, publicJwk, sign });
  const signSync = (data: Uint8Array): Uint8Array => {
    if (!(data instanceof Uint8Array)) throw new TypeError('data must be a Uint8Array');
    const out = fn(data);
    if (out instanceof Promise) throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', 'this provider cannot sign synchronously');
    return toPlainBytes(out);
  };
  return Object.freeze({ alg, thumbprint, publicJwk, sign, signSync });
}

// ---------------------------------------------------------------------------
// Verifying keys

/**
 * Imports a public key for verifying (RFC 9421 §3.2). Accepts a JWK (public or
 * private: only public members are kept), a public `CryptoKey` (extractable, so
 * its thumbprint can be computed), or an already imported {@link VerifyingKey}
 * (returned as is, or bound to `options.alg`). The same JWK object gives the same
 * VerifyingKey object; any JWK with the same material reuses the provider's
 * imported key. Treat JWK objects as immutable once imported.
 *
 * The algorithm comes from `options.alg`, the JWK's `alg` (an RFC 9421 name or a
 * JOSE name: EdDSA, Ed25519, ES256, ES384, PS512, RS256) or the key type (Ed25519,
 * P-256, P-384). An RSA JWK with none of these (as RFC 9421 Appendix B.1.2 prints
 * its keys) gives an unbound key (`alg` undefined, `algorithms` rsa-pss-sha512 and
 * rsa-v1_5-sha256, both imported now): it serves the algorithm a signature names,
 * through {@link keyForAlgorithm}.
 *
 * @throws BotsigError `ERR_KEY_INVALID` (bad or missing members, RSA modulus
 *   outside 2048–8192 bits, `use` other than `sig`, material the provider
 *   rejects), `ERR_ALG_MISMATCH` (key type, JWK `alg` and `options.alg`
 *   disagree), `ERR_ALG_UNKNOWN` (unsupported JWK `alg`), `ERR_ALG_NOT_ALLOWED`
 *   (symmetric keys), `ERR_CRYPTO_UNSUPPORTED`.
 * @throws TypeError when `key` is not an object.
 * @example
 * const key = await importVerifyingKey({ kty: 'OKP', crv: 'Ed25519', x: '…' });
 * const ok = await key.verify(base, signature);
 */
export async function importVerifyingKey(key: Jwk | CryptoKey | VerifyingKey, options?: ImportKeyOptions): Promise<VerifyingKey> {
  if (typeof key !== 'object' || key === null) throw new TypeError('key must be a JWK, a CryptoKey or a VerifyingKey');
  const opts = checkOptions(options);
  if (isVerifyingKey(key)) {
    if (opts.alg === undefined) return key;
    const bound = keyForAlgorithm(key, opts.alg);
    if (bound instanceof BotsigError) throw bound;
    return bound;
  }
  if (isCryptoKey(key)) return importVerifyingCryptoKey(key, opts.alg);
  const jwk = asJwk(key);
  const provider = opts.provider ?? getCryptoProvider();
  const cache = cacheFor(provider);
  const prior = cache.verifyByJwk.get(jwk);
  if (prior !== undefined && sameSnapshot(prior.snap, jwk, opts.alg)) return prior.key;

  // Nothing names the algorithm and the key type allows several (RSA): keep the choice open.
  const open = opts.alg === undefined && jwk.alg === undefined ? keyTypeAlgorithms(jwk) : NO_ALGORITHMS;
  const result = open.length > 1 ? importUnbound(jwk, open, provider, cache) : importBound(jwk, algorithmForJwk(jwk, opts.alg), provider, cache);
  cache.verifyByJwk.set(jwk, { snap: snapshot(jwk, opts.alg), key: result });
  result.catch(() => {
    if (cache.verifyByJwk.get(jwk)?.key === result) cache.verifyByJwk.delete(jwk);
  });
  return result;
}

const NO_ALGORITHMS: readonly AlgorithmName[] = Object.freeze([]);

/** Every algorithm the JWK's key type (and curve) fits: one for OKP and EC keys, two for RSA. */
function keyTypeAlgorithms(jwk: Jwk): readonly AlgorithmName[] {
  return ALGORITHMS.filter((alg) => jwkFitsAlgorithm(jwk, alg));
}

/** The provider's verify function for (material, alg), imported once per provider. */
function importedVerify(jwk: Jwk, alg: AlgorithmName, provider: CryptoProvider, cache: ProviderCache): Promise<ImportedVerify> {
  // Keyed by the public members themselves, so a cache hit costs no hashing or decoding.
  const id = materialId(jwk, alg);
  const hit = id === undefined ? undefined : cache.verify.get(id);
  if (hit !== undefined) return hit;
  const checked = checkMaterial(jwk, alg, false);
  const thumbprint = jwkThumbprintSync(jwk);
  const key = id!; // defined once checkMaterial has passed
  const pending = providerCall(alg, async () => ({
    verify: await provider.importVerify(checked.publicMaterial, alg),
    thumbprint,
    signatureBytes: checked.signatureBytes,
  }));
  cache.verify.set(key, pending);
  pending.catch(() => cache.verify.deleteIf(key, pending));
  return pending;
}

function importBound(jwk: Jwk, alg: AlgorithmName, provider: CryptoProvider, cache: ProviderCache): Promise<VerifyingKey> {
  checkUse(jwk);
  const imported = importedVerify(jwk, alg, provider, cache);
  const publicJwk = publicJwkOf(jwk);
  const synchronous = provider.synchronous === true;
  return imported.then((i) => makeVerifyingKey(alg, i.thumbprint, publicJwk, i.verify, i.signatureBytes, synchronous));
}

/**
 * An unbound key: one bound key per algorithm the key type allows, all imported now so
 * that binding costs nothing per request. An algorithm the provider refuses is left
 * out; when it refuses them all, the first refusal is the error.
 */
function importUnbound(jwk: Jwk, algorithms: readonly AlgorithmName[], provider: CryptoProvider, cache: ProviderCache): Promise<VerifyingKey> {
  checkUse(jwk);
  const pending = algorithms.map((alg) => importedVerify(jwk, alg, provider, cache));
  const publicJwk = publicJwkOf(jwk);
  const synchronous = provider.synchronous === true;
  return Promise.allSettled(pending).then((settled) => {
    const variants = new Map<AlgorithmName, BoundVerifyingKey>();
    let thumbprint: string | undefined;
    let failure: unknown;
    settled.forEach((outcome, index) => {
      if (outcome.status === 'rejected') {
        failure ??= outcome.reason;
        return;
      }
      const alg = algorithms[index]!;
      const imported = outcome.value;
      thumbprint = imported.thumbprint;
      variants.set(alg, makeVerifyingKey(alg, imported.thumbprint, publicJwk, imported.verify, imported.signatureBytes, synchronous));
    });
    if (thumbprint === undefined) throw failure;
    return makeUnboundKey(thumbprint, publicJwk, variants);
  });
}

async function exportJwk(key: CryptoKey): Promise<Jwk> {
  try {
    return (await getSubtle().exportKey('jwk', key)) as Jwk;
  } catch (cause) {
    throw invalid('the CryptoKey is not extractable, so its thumbprint cannot be computed', cause);
  }
}

function cryptoKeyAlgorithm(key: CryptoKey, requested: AlgorithmName | undefined): AlgorithmName {
  const alg = algorithmFromWebCryptoKey(key.algorithm);
  if (alg === undefined) throw new BotsigError('ERR_ALG_UNKNOWN', 'the CryptoKey algorithm has no RFC 9421 equivalent');
  if (requested !== undefined && requested !== alg) throw new BotsigError('ERR_ALG_MISMATCH', `the CryptoKey is for ${alg}, not ${requested}`);
  return alg;
}

function publicFromExported(exported: Jwk, alg: AlgorithmName): { jwk: Jwk; thumbprint: string; signatureBytes: number } {
  // WebCrypto's export carries no `use`, and a JOSE `alg`. Where the key type fixes the
  // algorithm, `alg` is left out (jose and WebCrypto import the JWK unchanged); an RSA
  // key's algorithm is not in its type, so it gets the RFC 9421 name (SPEC 2.1 rule 2).
  const { publicMaterial, signatureBytes } = checkMaterial(exported, alg, false);
  const jwk = Object.freeze(inferAlgorithm(publicMaterial) === alg ? publicMaterial : { ...publicMaterial, alg }) as Jwk;
  return { jwk, thumbprint: jwkThumbprintSync(jwk), signatureBytes };
}

async function importVerifyingCryptoKey(key: CryptoKey, requested: AlgorithmName | undefined): Promise<VerifyingKey> {
  let pending = verifyByCryptoKey.get(key);
  if (pending === undefined) {
    pending = (async () => {
      if (key.type === 'secret') throw new BotsigError('ERR_ALG_NOT_ALLOWED', 'symmetric (shared-secret) keys are not allowed');
      if (key.type !== 'public') throw invalid('verifying needs a public CryptoKey');
      const alg = cryptoKeyAlgorithm(key, undefined);
      if (!key.usages.includes('verify')) throw invalid('the CryptoKey is not usable for "verify"');
      const { jwk, thumbprint, signatureBytes } = publicFromExported(await exportJwk(key), alg);
      return makeVerifyingKey(alg, thumbprint, jwk, webCryptoVerifier(key, alg), signatureBytes, false);
    })();
    verifyByCryptoKey.set(key, pending);
    const failed = pending;
    failed.catch(() => {
      if (verifyByCryptoKey.get(key) === failed) verifyByCryptoKey.delete(key);
    });
  }
  const result = await pending;
  if (requested !== undefined && result.alg !== requested) throw new BotsigError('ERR_ALG_MISMATCH', `the CryptoKey is for ${result.alg}, not ${requested}`);
  return result;
}

// ---------------------------------------------------------------------------
// Signing keys

/**
 * Imports a private key for signing (RFC 9421 §3.1). Accepts a private JWK, a
 * `CryptoKeyPair`, a private `CryptoKey` (extractable, so the public half can be
 * derived), or an already imported {@link SigningKey} (returned as is). On import
 * the key signs and verifies a probe message, so a JWK whose public members do
 * not belong to its private key is refused instead of publishing a wrong `kid`.
 * With a synchronous provider (node:crypto, noble) the key also has `signSync`.
 *
 * A signer must know its algorithm: an RSA JWK needs an `alg` member (RFC 9421 or
 * JOSE name) or `options.alg`.
 *
 * @throws BotsigError `ERR_KEY_INVALID` (missing `d`, bad members, mismatched
 *   halves), `ERR_ALG_MISMATCH`, `ERR_ALG_UNKNOWN` (also: an RSA key with neither
 *   `alg` nor `options.alg`), `ERR_ALG_NOT_ALLOWED`, `ERR_CRYPTO_UNSUPPORTED` (see
 *   {@link importVerifyingKey}).
 * @throws TypeError when `key` is not an object.
 * @example
 * const key = await importSigningKey(privateJwk);
 * const signature = await key.sign(new TextEncoder().encode(base));
 */
export async function importSigningKey(key: Jwk | CryptoKey | CryptoKeyPair | SigningKey, options?: ImportKeyOptions): Promise<SigningKey> {
  if (typeof key !== 'object' || key === null) throw new TypeError('key must be a JWK, a CryptoKey, a CryptoKeyPair or a SigningKey');
  const opts = checkOptions(options);
  if (isSigningKey(key)) {
    if (opts.alg !== undefined && key.alg !== opts.alg) throw new BotsigError('ERR_ALG_MISMATCH', `the key is for ${key.alg}, not ${opts.alg}`);
    return key;
  }
  if (isCryptoKeyPair(key)) return importSigningCryptoKey(key.privateKey, key.publicKey, opts.alg);
  if (isCryptoKey(key)) return importSigningCryptoKey(key, undefined, opts.alg);
  const jwk = asJwk(key);
  const provider = opts.provider ?? getCryptoProvider();
  const cache = cacheFor(provider);
  const prior = cache.signByJwk.get(jwk);
  if (prior !== undefined && sameSnapshot(prior.snap, jwk, opts.alg)) return prior.key;

  const alg = algorithmForJwk(jwk, opts.alg);
  checkUse(jwk);
  const publicId = materialId(jwk, alg);
  const id = publicId === undefined || typeof jwk.d !== 'string' ? undefined : publicId + '\n' + privateFingerprint(jwk.d);
  let imported = id === undefined ? undefined : cache.sign.get(id);
  if (imported === undefined) {
    const checked = checkMaterial(jwk, alg, true);
    const thumbprint = jwkThumbprintSync(jwk);
    const key = id!;
    const pending = providerCall(alg, async () => {
      const sign = await provider.importSign(checked.privateMaterial!, alg);
      const verify = await provider.importVerify(checked.publicMaterial, alg);
      let agrees = false;
      try {
        agrees = (await verify(SELF_TEST_MESSAGE, toPlainBytes(await sign(SELF_TEST_MESSAGE)))) === true;
      } catch (cause) {
        throw invalid('the private key could not sign', cause);
      }
      if (!agrees) throw invalid('the private key does not match the public members of the JWK');
      return { sign, thumbprint };
    });
    imported = pending;
    cache.sign.set(key, pending);
    pending.catch(() => cache.sign.deleteIf(key, pending));
  }
  const publicJwk = publicJwkOf(jwk);
  const synchronous = provider.synchronous === true;
  const result = imported.then((i) => makeSigningKey(alg, i.thumbprint, publicJwk, i.sign, synchronous));
  cache.signByJwk.set(jwk, { snap: snapshot(jwk, opts.alg), key: result });
  result.catch(() => {
    if (cache.signByJwk.get(jwk)?.key === result) cache.signByJwk.delete(jwk);
  });
  return result;
}

async function importSigningCryptoKey(privateKey: CryptoKey, publicKey: CryptoKey | undefined, requested: AlgorithmName | undefined): Promise<SigningKey> {
  let pending = signByCryptoKey.get(privateKey);
  if (pending === undefined) {
    pending = (async () => {
      if (privateKey.type === 'secret') throw new BotsigError('ERR_ALG_NOT_ALLOWED', 'symmetric (shared-secret) keys are not allowed');
      if (privateKey.type !== 'private') throw invalid('signing needs a private CryptoKey');
      const alg = cryptoKeyAlgorithm(privateKey, undefined);
      if (!privateKey.usages.includes('sign')) throw invalid('the CryptoKey is not usable for "sign"');
      if (publicKey !== undefined) {
        if (publicKey.type !== 'public') throw invalid('CryptoKeyPair.publicKey is not a public key');
        if (algorithmFromWebCryptoKey(publicKey.algorithm) !== alg) throw new BotsigError('ERR_ALG_MISMATCH', 'the CryptoKeyPair halves use different algorithms');
      }
      const exported = await exportJwk(publicKey ?? privateKey);
      const { jwk, thumbprint } = publicFromExported(exported, alg);
      const sign = webCryptoSigner(privateKey, alg);
      if (publicKey !== undefined && publicKey.usages.includes('verify')) {
        // Same probe as for JWKs: a pair whose halves differ would publish the wrong keyid.
        const agrees = await webCryptoVerifier(publicKey, alg)(SELF_TEST_MESSAGE, await sign(SELF_TEST_MESSAGE));
        if (!agrees) throw invalid('the CryptoKeyPair halves do not belong together');
      }
      return makeSigningKey(alg, thumbprint, jwk, sign, false);
    })();
    signByCryptoKey.set(privateKey, pending);
    const failed = pending;
    failed.catch(() => {
      if (signByCryptoKey.get(privateKey) === failed) signByCryptoKey.delete(privateKey);
    });
  }
  const result = await pending;
  if (requested !== undefined && result.alg !== requested) throw new BotsigError('ERR_ALG_MISMATCH', `the CryptoKey is for ${result.alg}, not ${requested}`);
  return result;
}

/**
 * Imports an Ed25519 private JWK for synchronous signing with @noble/ed25519 and
 * @noble/hashes (pure JavaScript: portable, slower than WebCrypto). For hooks
 * that cannot await. The key has both `sign` and `signSync`. RFC 8032 §5.1.6.
 *
 * @throws BotsigError `ERR_CRYPTO_UNSUPPORTED` for anything but Ed25519 keys,
 *   `ERR_KEY_INVALID` for bad or mismatched `x`/`d`, `ERR_ALG_MISMATCH`,
 *   `ERR_ALG_NOT_ALLOWED`, `ERR_ALG_UNKNOWN` (see {@link importVerifyingKey}).
 * @throws TypeError when `jwk` is not an object.
 * @example
 * const key = importSigningKeySync(ed25519PrivateJwk);
 * const signature = key.signSync!(bytes);
 */
export function importSigningKeySync(jwk: Jwk): SigningKey {
  if (typeof jwk !== 'object' || jwk === null) throw new TypeError('jwk must be a JWK object');
  if (isSigningKey(jwk)) return jwk;
  asJwk(jwk);
  const prior = syncByJwk.get(jwk);
  if (prior !== undefined && sameSnapshot(prior.snap, jwk, undefined)) return prior.key;
  const alg = algorithmForJwk(jwk);
  if (alg !== 'ed25519') throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `synchronous signing supports ed25519 keys only, not ${alg}`);
  checkMaterial(jwk, alg, true);
  const id = materialId(jwk, alg)! + '\n' + privateFingerprint(jwk.d as string);
  let imported = syncSign.get(id);
  if (imported === undefined) {
    imported = { sign: nobleEd25519Signer(ed25519JwkBytes(jwk, 'd'), ed25519JwkBytes(jwk, 'x')), thumbprint: jwkThumbprintSync(jwk) };
    syncSign.set(id, imported);
  }
  const key = makeSigningKey(alg, imported.thumbprint, publicJwkOf(jwk), imported.sign, true);
  syncByJwk.set(jwk, { snap: snapshot(jwk, undefined), key });
  return key;
}
