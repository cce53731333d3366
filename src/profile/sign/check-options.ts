/**
 * The checks `signRequest` makes on its options before anything else, shared by
 * the fast and the general path (so both refuse the same misuse the same way).
 */
import type { SignRequestOptions } from '../types';

/** @throws TypeError / RangeError for misuse (missing key or signatureAgent, wrong option types). */
export function checkSignOptions(options: SignRequestOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('signRequest options must be an object');
  if (options.key === undefined || options.key === null) throw new TypeError('options.key is required');
  if (options.validitySeconds !== undefined && (!Number.isSafeInteger(options.validitySeconds) || options.validitySeconds <= 0)) {
    throw new RangeError('validitySeconds must be a positive integer');
  }
  if (options.nonce !== undefined && options.nonce !== false && (typeof options.nonce !== 'string' || options.nonce === '')) {
    throw new TypeError('nonce must be a non-empty string or false');
  }
  if (options.tag !== undefined && (typeof options.tag !== 'string' || options.tag === '')) throw new TypeError('tag must be a non-empty string');
  // Draft -01: a Web Bot Auth request always carries Signature-Agent, its member covered.
  if (options.signatureAgent === undefined && (options.tag === undefined || options.tag === 'web-bot-auth')) {
    throw new TypeError(
      'options.signatureAgent is required for a web-bot-auth signature: the https URL of your JWK Set, or your origin (its well-known directory is sent)',
    );
  }
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('now must be a function returning milliseconds');
}
