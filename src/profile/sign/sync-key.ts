/**
 * Signing without awaiting, with a key that signs synchronously: the engine of
 * `signRequestSync` (`botsig/sync`, which also imports JWKs through @noble) and of the
 * Crawlee hook. The signer of `plan.ts` with its general steps (`full.ts`) at hand;
 * here so that neither the async API nor the Crawlee entry load @noble.
 */
import { utf8 } from '../../core/base64';
import { BotsigError } from '../../core/errors';
import type { SigningKey } from '../../crypto/types';
import type { MessageInput } from '../../httpsig/message';
import type { SignatureHeaders, SignRequestOptions } from '../types';
import { checkSignOptions } from './check-options';
import { fullSigning } from './full';
import { contentDigestValue, prepare } from './plan';

/**
 * Signs with a key that can sign synchronously (`key.signSync`: keys from
 * `importSigningKeySync`, or from a synchronous provider such as `node:crypto`).
 * `contentDigest` takes only a value here (reading content needs awaiting):
 * `contentDigestFor()`'s result.
 *
 * @throws as `signRequest`; `ERR_CRYPTO_UNSUPPORTED` when the key cannot sign synchronously.
 */
export function signRequestWithSyncKey(request: MessageInput, options: SignRequestOptions, key: SigningKey): SignatureHeaders {
  checkSignOptions(options);
  if (key.signSync === undefined) {
    throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', 'this key cannot sign synchronously; use an Ed25519 JWK or signRequest()');
  }
  const digest = options.contentDigest;
  if (digest !== undefined && (typeof digest !== 'object' || digest === null)) {
    throw new TypeError('contentDigest reads the content: use the asynchronous signRequest(), or pass await contentDigestFor(request)');
  }
  const plan = prepare(request, options, key, undefined, digest === undefined ? undefined : contentDigestValue(digest), fullSigning);
  return plan.finish(key.signSync(utf8(plan.base)));
}
