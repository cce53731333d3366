/**
 * The key objects botsig hands out ({@link SigningKey}, bound {@link VerifyingKey}),
 * their type guards, and what the base helpers need to call a key's provider
 * directly. The side tables are keyed by the key objects themselves: each entry is
 * part of its key (created with it, gone with it), not shared state.
 */
import { BotsigError, isBotsigError } from '../../core/errors';
import { ALGORITHMS, isAlgorithmName } from '../algorithm-names';
import type { AlgorithmName, BoundVerifyingKey, Jwk, SigningKey, VerifyingKey } from '../types';

export type VerifyFn = (data: Uint8Array, signature: Uint8Array) => boolean | Promise<boolean>;
export type SignFn = (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** True for objects made by {@link importSigningKey} (or shaped like them). */
export function isSigningKey(value: unknown): value is SigningKey {
  const v = value as Partial<SigningKey> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.sign === 'function' &&
    typeof v.thumbprint === 'string' &&
    isAlgorithmName(v.alg) &&
    typeof v.publicJwk === 'object'
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

export function toPlainBytes(bytes: Uint8Array): Uint8Array {
  // Node's Buffer is a Uint8Array subclass; hand out plain Uint8Arrays everywhere.
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** What {@link verifyBase} needs to call a botsig-made key's provider directly. */
export interface VerifyInternals {
  readonly fn: VerifyFn;
  readonly signatureBytes: number;
  /** The provider answers before returning (node:crypto, @noble), so it is done with `data` by then. */
  synchronous: boolean;
}
/** Per verifying key made here: its provider function (an entry lives as long as its key). */
export const verifyInternals = /* @__PURE__ */ new WeakMap<VerifyingKey, VerifyInternals>();

/** What {@link signBase} needs to call a botsig-made key's synchronous provider directly. */
export interface SignInternals {
  readonly fn: SignFn;
  synchronous: boolean;
}
/** Per signing key made here: its provider function (an entry lives as long as its key). */
export const signInternals = /* @__PURE__ */ new WeakMap<SigningKey, SignInternals>();

// One frozen `algorithms` list per algorithm, shared by every key bound to it.
const ONLY: ReadonlyMap<AlgorithmName, readonly AlgorithmName[]> = /* @__PURE__ */ new Map(/* @__PURE__ */ ALGORITHMS.map((a) => [a, Object.freeze([a])]));

export function makeVerifyingKey(
  alg: AlgorithmName,
  thumbprint: string,
  jwk: Jwk,
  fn: VerifyFn,
  signatureBytes: number,
  synchronous: boolean,
): BoundVerifyingKey {
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

export function makeSigningKey(alg: AlgorithmName, thumbprint: string, publicJwk: Jwk, fn: SignFn, synchronous: boolean): SigningKey {
  const sign = async (data: Uint8Array): Promise<Uint8Array> => {
    checkData(data);
    try {
      return toPlainBytes(await fn(data));
    } catch (error) {
      if (isBotsigError(error)) throw error;
      throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `signing with ${alg} failed`, { cause: error });
    }
  };
  const signSync = (data: Uint8Array): Uint8Array => {
    checkData(data);
    const out = fn(data);
    if (out instanceof Promise) throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', 'this provider cannot sign synchronously');
    return toPlainBytes(out);
  };
  const key: SigningKey = Object.freeze(synchronous ? { alg, thumbprint, publicJwk, sign, signSync } : { alg, thumbprint, publicJwk, sign });
  signInternals.set(key, { fn, synchronous });
  return key;
}

function checkData(data: Uint8Array): void {
  if (!(data instanceof Uint8Array)) throw new TypeError('data must be a Uint8Array');
}
