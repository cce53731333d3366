/**
 * Signed responses (RFC 9421 §2.4, §3.1): an origin signs its answer to a request,
 * covering response components, the response `Content-Digest` (RFC 9530) and, with
 * `;req`, components of the request it answers, so that the agent can prove the
 * answer is the origin's own and is the answer to its request. The key directory
 * server signs its responses through the same {@link signResponseMessage}.
 */
import { DEFAULT_RESPONSE_COMPONENTS } from './response/components';
import { systemClock, toEpochSeconds } from '../core/time';
import type { Clock } from '../core/time';
import type { DigestAlgorithm } from '../crypto/digest';
import { importSigningKey } from '../crypto/keys/signing';
import { isSigningKey } from '../crypto/keys/objects';
import type { AlgorithmName, Jwk, SigningKey, WebCryptoKey, WebCryptoKeyPair } from '../crypto/types';
import type { ComponentIdentifier } from '../httpsig/components';
import { isHttpMessage, toHttpMessage } from '../httpsig/message';
import type { HttpMessage, MessageInput } from '../httpsig/message';
import { signMessage } from '../httpsig/sign';
import type { SignedMessage } from '../httpsig/sign';
import { contentDigestToSign } from './body/sign';

export { DEFAULT_RESPONSE_COMPONENTS } from './response/components';

const DEFAULT_VALIDITY_SECONDS = 300;

/** Options of {@link signResponse}. */
export interface SignResponseOptions {
  /** The origin's private key: a private JWK, a CryptoKey (pair), or a key from `importSigningKey()`. */
  readonly key: Jwk | WebCryptoKey | WebCryptoKeyPair | SigningKey;
  /** Needed only for RSA JWKs without `alg`. */
  readonly alg?: AlgorithmName;
  /** The request this response answers: its components are covered with `;req` (RFC 9421 §2.4). */
  readonly request: MessageInput | HttpMessage;
  /**
   * The covered components, in order, replacing {@link DEFAULT_RESPONSE_COMPONENTS}.
   * `content-digest` is added when `contentDigest` is on.
   */
  readonly components?: readonly string[];
  /**
   * Compute `Content-Digest` over the response content with this algorithm (default
   * `sha-256`), return it and cover it; `false` for none. A response that already carries a
   * matching `Content-Digest` keeps it.
   */
  readonly contentDigest?: DigestAlgorithm | false;
  /** Most bytes of content read for `contentDigest`. Default 16 MiB (`ERR_BODY_TOO_LARGE` above). */
  readonly maxBodyBytes?: number;
  /** The `tag` parameter (RFC 9421 §2.3), naming what the signature is for. Default: none. */
  readonly tag?: string;
  /** Signature label; default the first free `sig<n>`. */
  readonly label?: string;
  readonly created?: Date | number;
  readonly expires?: Date | number;
  /** `expires - created` when `expires` is not given. Default 300. */
  readonly validitySeconds?: number;
  /** Include `alg` in the parameters. Default true. */
  readonly includeAlg?: boolean;
  readonly now?: Clock;
}

/** Header values to put on the response: complete values (existing members plus the new one). */
export interface SignedResponseHeaders {
  readonly signature: string;
  readonly 'signature-input': string;
  /** With `contentDigest` (the default): the `Content-Digest` value the signature covers. */
  readonly 'content-digest'?: string;
}

/** What one response signature carries, for {@link signResponseMessage}. */
export interface ResponseSignatureSpec {
  readonly key: SigningKey;
  readonly label?: string;
  readonly components: ReadonlyArray<string | ComponentIdentifier>;
  /** Seconds since the epoch. */
  readonly created: number;
  readonly expires?: number;
  readonly includeAlg: boolean;
  readonly tag?: string;
}

/**
 * Signs a response message that already carries everything it covers (its
 * `Content-Digest` included), for `request` (RFC 9421 §2.4). Parameters in the order of
 * the directory draft's vector: `created`, `expires`, `keyid` (the key's JWK thumbprint),
 * `alg`, `tag`. Shared by {@link signResponse} and the directory handler.
 *
 * @throws BotsigError as `signMessage` (components missing or invalid, labels in use).
 */
export function signResponseMessage(response: HttpMessage, request: HttpMessage, spec: ResponseSignatureSpec): Promise<SignedMessage> {
  const params: Record<string, string | number> = { created: spec.created };
  if (spec.expires !== undefined) params['expires'] = spec.expires;
  params['keyid'] = spec.key.thumbprint;
  if (spec.includeAlg) params['alg'] = spec.key.alg;
  if (spec.tag !== undefined) params['tag'] = spec.tag;
  return signMessage(response, {
    key: spec.key,
    ...(spec.label === undefined ? {} : { label: spec.label }),
    components: [...spec.components],
    params,
    request,
  });
}

/**
 * Signs a response (RFC 9421 §2.4, §3.1): covers {@link DEFAULT_RESPONSE_COMPONENTS} (or
 * `components`), computes `Content-Digest` of the content (a `Response` is read through a
 * clone; a message object's `body`, as for `signRequest`), and returns the header values
 * to set. Parameters: `created` (now), `expires` (+300 s), `keyid` (the JWK thumbprint),
 * `alg`, and `tag` when given. The response is not modified.
 *
 * @throws BotsigError `ERR_BODY_TOO_LARGE` / `ERR_BODY_UNAVAILABLE` for content that cannot be
 *   digested, `ERR_DIGEST_MISMATCH` for a `Content-Digest` already on the response that does
 *   not match, `ERR_COMPONENT_MISSING` / `ERR_COMPONENT_INVALID` for a covered component
 *   that is absent, `ERR_LABEL_EXISTS`, `ERR_KEY_INVALID` and the other key errors.
 * @throws TypeError / RangeError for misuse (no request, a request that is a response,
 *   bad option types, `expires` not after `created`).
 * @example
 * const body = JSON.stringify({ order: 'A-1001', status: 'accepted' });
 * const headers = await signResponse({ status: 201, headers: { 'content-type': 'application/json' }, body }, { key: originJwk, request });
 * return new Response(body, { status: 201, headers: { 'content-type': 'application/json', ...headers } });
 */
export async function signResponse(response: MessageInput | HttpMessage, options: SignResponseOptions): Promise<SignedResponseHeaders> {
  if (typeof response !== 'object' || response === null) throw new TypeError('signResponse expects a Response or a { status, headers, body } object');
  if (typeof options !== 'object' || options === null) throw new TypeError('signResponse options must be an object');
  if (options.key === undefined || options.key === null) throw new TypeError('options.key is required');
  if (typeof options.request !== 'object' || options.request === null) throw new TypeError('options.request (the request this response answers) is required');
  if (options.components !== undefined && !Array.isArray(options.components))
    throw new TypeError('options.components must be an array of component identifiers');
  if (options.tag !== undefined && (typeof options.tag !== 'string' || options.tag === '')) throw new TypeError('options.tag must be a non-empty string');
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('options.now must be a function returning milliseconds');
  if (options.validitySeconds !== undefined && (!Number.isSafeInteger(options.validitySeconds) || options.validitySeconds <= 0)) {
    throw new RangeError('validitySeconds must be a positive integer');
  }
  const digestAlg = options.contentDigest ?? 'sha-256';
  const request = isHttpMessage(options.request) ? options.request : toHttpMessage(options.request);
  if (request.kind !== 'request') throw new TypeError('options.request must be a request');
  const message = isHttpMessage(response) ? response : toHttpMessage(response);
  if (message.kind !== 'response') throw new TypeError('signResponse signs responses (a status is required); use signRequest for requests');

  const key = isSigningKey(options.key) ? options.key : await importSigningKey(options.key, options.alg === undefined ? {} : { alg: options.alg });
  let digest: string | undefined;
  if (digestAlg !== false) {
    digest = await contentDigestToSign(response, digestAlg, options.maxBodyBytes);
  }

  const components: string[] = [...(options.components ?? DEFAULT_RESPONSE_COMPONENTS)];
  if (digest !== undefined && !components.some((c) => c === 'content-digest' || c === '"content-digest"')) components.push('"content-digest"');
  const signed: HttpMessage = { ...message, headers: new Map(message.headers) };
  if (digest !== undefined) signed.headers.set('content-digest', [digest]);

  const now = options.now ?? systemClock;
  const created = options.created === undefined ? Math.floor(now() / 1000) : toEpochSeconds(options.created, 'created');
  const expires = options.expires === undefined ? created + (options.validitySeconds ?? DEFAULT_VALIDITY_SECONDS) : toEpochSeconds(options.expires, 'expires');
  if (expires <= created) throw new RangeError('expires must be after created');

  const result = await signResponseMessage(signed, request, {
    key,
    ...(options.label === undefined ? {} : { label: options.label }),
    components,
    created,
    expires,
    includeAlg: options.includeAlg !== false,
    ...(options.tag === undefined ? {} : { tag: options.tag }),
  });
  return {
    'signature-input': result.headers['signature-input'],
    signature: result.headers.signature,
    ...(digest === undefined ? {} : { 'content-digest': digest }),
  };
}
