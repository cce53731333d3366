/**
 * `signRequest` (SPEC 5.1, 5.2): signs a request with the Web Bot Auth profile. The
 * signer itself is `sign/plan.ts` (one code path for every request); its general RFC 9421
 * steps (other component lists, signatures already on the request, other message shapes;
 * `sign/full.ts`) come as the value the caller passes (`extend: fullSigning`), so that a
 * bundle of `signRequest` alone carries none of them. A key that is not imported yet is
 * imported on first use (`crypto/keys/signing.ts`), and a JWK object imported before is
 * taken from the key cache without awaiting. Beside it: `sign/apply-headers.ts` (putting
 * the headers on a request); `sign-sync.ts`: `signRequestSync` (`botsig/sync`);
 * `sign/content-digest.ts`: `contentDigestFor`.
 */
import { BotsigError } from '../core/errors';
import { importedSigningKey } from '../crypto/keys/cache';
import { isSigningKey } from '../crypto/keys/objects';
import { importSigningJwk } from '../crypto/keys/signing';
import type { Jwk, SigningKey } from '../crypto/types';
import type { MessageInput } from '../httpsig/message';
import { checkSignOptions } from './sign/check-options';
import { contentDigestValue, signWithKey } from './sign/plan';
import type { SignatureHeaders, SignRequestOptions } from './types';

export { applySignatureHeaders } from './sign/apply-headers';

/**
 * Signs a request with the Web Bot Auth profile (draft-ietf-webbotauth-httpsig-protocol-01):
 * covers `@authority` and the request's own `Signature-Agent` member
 * (`"signature-agent";key="<label>"`), tag `web-bot-auth`, keyid = the key's JWK
 * thumbprint, `created` = now, `expires` = created + 300 s and a 64-byte nonce.
 *
 * `signatureAgent` is required for a `web-bot-auth` signature: the URL of the agent's JWK
 * Set, sent as given, never with parameters. A bare origin is sent as its well-known
 * directory URL (`https://agent.example` → `https://agent.example/.well-known/http-message-signatures-directory`);
 * `{ url, type: 'directory' }` sends the bare origin as the earlier drafts did, `{ url, type: 'jwks_uri' }`
 * the URL as given (docs/drafts.md, "Signer").
 *
 * What the profile signs needs nothing else: a fresh `Request` or `{ url, method?, headers? }`,
 * and a `contentDigest` from `contentDigestFor()`. Other `components`, a request that
 * already carries signature fields, another message shape or `contentDigest` as an
 * algorithm take the general RFC 9421 steps: pass `extend: fullSigning`. A covered
 * signature (`"signature";key="sig1"` in `components`) then brings its
 * `"signature-input";key="sig1"` and every component it covers into the list (draft -01,
 * "Multiple Signatures").
 *
 * The request is not modified: the returned values are the complete header values
 * to set (existing signatures kept, the new one appended under a fresh label).
 * Use {@link applySignatureHeaders} to put them on a `Request`, `Headers` or a
 * plain header record.
 *
 * Parameters come in the order of the draft's vectors: `created`, `keyid`, `alg`,
 * `expires`, `nonce`, `tag`. With `replaceComponents`, the given list replaces
 * `@authority`; the Signature-Agent member stays covered (SPEC 5.2 rule 1).
 *
 * @throws BotsigError `ERR_FULL_SIGNING_REQUIRED` for a request or options that need
 *   `extend: fullSigning` (above) without it; `ERR_VALIDITY_TOO_LONG` for a validity above 24 h without
 *   `allowLongValidity`; `ERR_LABEL_EXISTS` for a label already in use;
 *   `ERR_REQUIRED_COMPONENT` for a `web-bot-auth` signature covering neither
 *   `@authority` nor `@target-uri`; `ERR_COMPONENT_MISSING` / `ERR_COMPONENT_INVALID`
 *   when a covered component is absent or unusable (a covered signature without a
 *   Signature-Input member, the whole `Signature` field); `ERR_KEY_INVALID`,
 *   `ERR_ALG_MISMATCH` for unusable keys; `ERR_SIGNATURE_AGENT_INVALID` when the
 *   existing Signature-Agent is not a Dictionary or is covered whole by an existing
 *   signature (appending would break it), or `signatureAgent` is not an absolute
 *   http(s) URL (relative, another scheme, userinfo, a fragment); `ERR_SIGNATURE_INPUT_PARSE` /
 *   `ERR_SIGNATURE_PARSE` when existing signature fields do not parse; with
 *   `contentDigest` as an algorithm (deprecated; `contentDigestFor` throws the same):
 *   `ERR_BODY_TOO_LARGE` above `maxBodyBytes`, `ERR_BODY_UNAVAILABLE` when the content
 *   cannot be read (no `body`, a used or locked stream), and `ERR_DIGEST_MISMATCH` /
 *   `ERR_DIGEST_INVALID` for a `Content-Digest` already on the request that does not
 *   match its content.
 * @throws TypeError / RangeError for misuse (missing key, missing `signatureAgent` for a
 *   `web-bot-auth` signature, `type: 'cimd'`, bad label, `expires` not after `created`,
 *   wrong option types).
 * @example
 * const headers = await signRequest(new Request('https://example.com/'), {
 *   key: privateJwk,
 *   signatureAgent: 'https://crawler.example',
 * });
 * for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
 */
export async function signRequest(request: MessageInput, options: SignRequestOptions): Promise<SignatureHeaders> {
  checkSignOptions(options);
  // A JWK imported before (the same object, unchanged) is taken from the key cache without awaiting.
  const key = isSigningKey(options.key) ? options.key : (importedSigningKey(options.key, options.alg) ?? (await importKey(options)));
  const full = options.extend;
  const digest = options.contentDigest;
  let value: string | undefined;
  if (typeof digest === 'string') {
    if (full === undefined) throw new BotsigError('ERR_FULL_SIGNING_REQUIRED', FULL_FOR_DIGEST);
    value = await full.digest(request, digest, options.maxBodyBytes);
  } else if (digest !== undefined) value = contentDigestValue(digest);
  return signWithKey(request, options, key, value, full);
}

const FULL_FOR_DIGEST = 'contentDigest as an algorithm takes the full signer: pass contentDigest: await contentDigestFor(request), or extend: fullSigning';

/**
 * `options.key`, a private JWK, imported (`crypto/keys/signing.ts`).
 *
 * @throws TypeError for a `CryptoKey` or `CryptoKeyPair`, which `importSigningKey` imports.
 */
function importKey(options: SignRequestOptions): Promise<SigningKey> {
  const key = options.key as { privateKey?: unknown; usages?: unknown } | null;
  if (typeof key === 'object' && key !== null && (key.privateKey !== undefined || key.usages !== undefined)) {
    throw new TypeError('signRequest takes a private JWK or an imported key: import a CryptoKey or CryptoKeyPair once with importSigningKey()');
  }
  return importSigningJwk(options.key as Jwk, options.alg === undefined ? {} : { alg: options.alg });
}
