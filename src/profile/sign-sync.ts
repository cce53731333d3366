/**
 * `signRequestSync`: {@link signRequest} for hooks that cannot await. Its own
 * module, exported from `botsig/sync`, because importing JWKs synchronously takes
 * pure-JS Ed25519 (@noble/ed25519 with SHA-512), which the asynchronous API does
 * not need and browser bundles should not carry.
 */
import { importSigningKeySync } from '../crypto/keys/signing-sync';
import { isSigningKey } from '../crypto/keys/objects';
import type { Jwk, SigningKey } from '../crypto/types';
import { signRequestWithSyncKey } from './sign/sync-key';
import type { SignatureHeaders, SignRequestOptions } from './types';
import type { MessageInput } from '../httpsig/message';

/**
 * The synchronous variant of `signRequest`, for hooks that cannot await (e.g. some
 * crawler frameworks' request interceptors). Takes an Ed25519 private JWK (signed
 * with pure-JS `@noble/ed25519`, slower than `signRequest`) or a key that signs
 * synchronously (`key.signSync`: from {@link importSigningKeySync}, or imported
 * through the `node:crypto` provider).
 *
 * @throws as `signRequest`; `ERR_CRYPTO_UNSUPPORTED` for a key that cannot sign synchronously.
 * @example
 * import { signRequestSync } from 'botsig/sync';
 * const headers = signRequestSync({ method: 'GET', url, headers: {} }, { key: ed25519PrivateJwk });
 */
export function signRequestSync(request: MessageInput, options: SignRequestOptions & { key: Jwk | SigningKey }): SignatureHeaders {
  if (typeof options !== 'object' || options === null) throw new TypeError('signRequest options must be an object');
  if (options.key === undefined || options.key === null) throw new TypeError('options.key is required');
  const key = isSigningKey(options.key) ? options.key : importSigningKeySync(options.key);
  return signRequestWithSyncKey(request, options, key);
}
