/**
 * Sign and verify a signature base given as text (RFC 9421 §3.1 step 6, §3.2
 * step 8), calling a botsig-made key's synchronous provider directly: the hot path
 * of `signRequest` and `verifyRequest`.
 */
import { utf8 } from '../../core/base64';
import { BotsigError, isBotsigError } from '../../core/errors';
import type { SigningKey, VerifyingKey } from '../types';
import { signInternals, toPlainBytes, verifyInternals, type SignInternals } from './objects';

// Bases longer than this are encoded into a fresh array instead of growing the buffer.
const SCRATCH_MAX_BYTES = 1 << 16;

/**
 * The signature base as UTF-8 for a synchronous provider, in one buffer reused by
 * every call. One per process on purpose: JavaScript runs one call at a time, a
 * synchronous provider is done with the bytes before it returns, and a provider
 * caught answering later never gets the buffer again (see the helpers below); a
 * buffer per key would only multiply the memory.
 */
class ScratchEncoder {
  private buffer = new Uint8Array(1024);
  /** The last view handed out (reused while the length and the buffer stay the same). */
  private view = new Uint8Array(0);
  private readonly encoder = new TextEncoder();

  /** `base` as UTF-8 in the shared buffer (valid until the next call), or `undefined` when too long for it. */
  encode(base: string): Uint8Array | undefined {
    // Worst case three UTF-8 bytes per UTF-16 code unit.
    const bound = base.length * 3;
    if (bound > SCRATCH_MAX_BYTES) return undefined;
    if (this.buffer.length < bound) this.buffer = new Uint8Array(Math.max(bound, this.buffer.length * 2));
    const written = this.encoder.encodeInto(base, this.buffer).written;
    // An agent's bases are all of one length: the view of the last length is reused.
    let view = this.view;
    if (view.buffer !== this.buffer.buffer || view.length !== written) this.view = view = this.buffer.subarray(0, written);
    return view;
  }
}
const scratch = new ScratchEncoder();

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
  const data = internals?.synchronous === true ? scratch.encode(base) : undefined;
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
  return signBaseWith(key, signInternals.get(key), base);
}

/**
 * The provider internals of a botsig-made signing key, `undefined` for a key made
 * elsewhere. They are set when the key is made, so a signer may look them up once
 * per key and sign with {@link signBaseWith}.
 * @internal
 */
export function signingInternals(key: SigningKey): SignInternals | undefined {
  return signInternals.get(key);
}

/**
 * {@link signBase} with the key's internals already looked up ({@link signingInternals}).
 * @internal
 */
export function signBaseWith(key: SigningKey, internals: SignInternals | undefined, base: string): Uint8Array | Promise<Uint8Array> {
  if (typeof base !== 'string') throw new TypeError('base must be a string');
  const data = internals?.synchronous === true ? scratch.encode(base) : undefined;
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
