/**
 * The nonces `signRequest` makes: 64 random bytes, base64url (SPEC 5.1).
 */
import { base64UrlEncode } from '../../core/base64';

const NONCE_BYTES = 64;
const RANDOM_POOL_BYTES = 4096;

/**
 * Random bytes drawn 4 KiB at a time (one `getRandomValues` call per 64 nonces),
 * each byte handed out once and zeroed as it is used. One pool per process on
 * purpose: random bytes carry no caller's state, and a pool per key or per options
 * object would only draw more often and hold more memory.
 */
class RandomPool {
  private readonly pool = new Uint8Array(RANDOM_POOL_BYTES);
  private offset = RANDOM_POOL_BYTES;

  /** `n` fresh random bytes, valid until the caller zeroes them (before the next call). */
  take(n: number): Uint8Array {
    if (this.offset + n > RANDOM_POOL_BYTES) {
      globalThis.crypto.getRandomValues(this.pool);
      this.offset = 0;
    }
    const bytes = this.pool.subarray(this.offset, this.offset + n);
    this.offset += n;
    return bytes;
  }
}
const randomPool = new RandomPool();

/** A fresh nonce: 64 random bytes, base64url (86 characters, nothing to escape). */
export function randomNonce(): string {
  const bytes = randomPool.take(NONCE_BYTES);
  const nonce = base64UrlEncode(bytes);
  bytes.fill(0);
  return nonce;
}
