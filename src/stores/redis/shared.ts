/**
 * What the Redis stores share: option checks, key hashing, and bounded waits
 * (both clients queue commands while disconnected, so every wait is bounded here).
 */
import { sha256 } from '../../crypto/sha256';
import { base64UrlEncode, utf8 } from '../../core/base64';
import { BotsigError } from '../../core/errors';
import { toRedisLike, type RedisClientInput, type RedisLike } from './client';

const MAX_PREFIX_CHARS = 256;
export const MAX_TTL_MS = 10 * 365 * 86_400_000;
export const DEFAULT_TIMEOUT_MS = 1000;

export function hash(text: string): string {
  return base64UrlEncode(sha256(utf8(text)));
}

export function checkPrefix(prefix: unknown, fallback: string): string {
  if (prefix === undefined) return fallback;
  if (typeof prefix !== 'string' || prefix.length > MAX_PREFIX_CHARS) throw new TypeError(`prefix must be a string of at most ${MAX_PREFIX_CHARS} characters`);
  return prefix;
}

export function checkMs(value: unknown, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new TypeError(`${name} must be an integer number of milliseconds from 0 to ${max}`);
  }
  return value;
}

export function clientFrom(options: { readonly client?: unknown }): RedisLike {
  if (options.client === undefined || options.client === null) throw new TypeError('client is required');
  return toRedisLike(options.client as RedisClientInput);
}

/**
 * Settles like `promise`, or rejects with `ERR_NONCE_STORE_UNAVAILABLE` after
 * `ms`: both clients queue commands while disconnected by default, and a
 * partitioned server never answers, so the wait must be bounded here.
 */
export function bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (ms === 0) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', `Redis did not answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Runs `op`, turning a synchronous throw into a rejection. */
export function attempt<T>(op: () => Promise<T>): Promise<T> {
  try {
    return op();
  } catch (error) {
    return Promise.reject(error);
  }
}
