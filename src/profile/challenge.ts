import { base64UrlEncode } from '../core/base64';
import { BotsigError } from '../core/errors';
import { sfBoolean, sfString } from '../core/sf-items';
import type { Parameters } from '../core/sf-types';
import { parseAcceptSignature, serializeAcceptSignature } from '../httpsig/accept-signature';
import { parseComponentIdentifier, serializeComponentIdentifier } from '../httpsig/components';
import { fullSigning } from './sign/full';
import { WEB_BOT_AUTH_TAG, type SignRequestOptions, type VerificationResult } from './types';

export interface ChallengeOptions {
  /** Label of the requested signature. Default `sig1`. */
  readonly label?: string;
  /** Components to request. Default `@authority`. */
  readonly components?: readonly string[];
  /**
   * An origin-supplied nonce (SPEC 5.3 rule 8): a string, `true` for 64 random
   * bytes (base64url, the size SPEC 8 recommends), or omitted for none. The origin
   * must remember it (see {@link Challenge.nonce}) to check the retried request.
   */
  readonly nonce?: string | true;
  /** Ask for a specific key. */
  readonly keyid?: string;
}

/** A ready HTTP answer: status, headers (with `Accept-Signature` where the profile asks for it) and a short reason. */
export interface Challenge {
  readonly status: 400 | 403 | 429;
  readonly headers: Readonly<Record<string, string>>;
  readonly reason: string;
  /** The nonce put in `Accept-Signature`, when one was asked for. */
  readonly nonce?: string;
}

/**
 * Maps a verification result to the answer the profile recommends (SPEC 4.3, 7):
 * `undefined` when verified; 400 for unparseable signature headers; 429 with
 * `Accept-Signature` for a replayed nonce (or when nonces cannot be checked), and
 * for an agent over its nonce quota or a request over the discovery budget;
 * 403 with `Accept-Signature` for anything else (no or unsuitable signature).
 * With `nonce: true` the generated nonce is returned in `nonce` for the origin to keep.
 *
 * @throws TypeError when `result` is not a VerificationResult; as {@link acceptSignatureValue}.
 * @example
 * const challenge = createChallenge(result);
 * if (challenge) return new Response(challenge.reason, { status: challenge.status, headers: challenge.headers });
 */
export function createChallenge(result: VerificationResult, options: ChallengeOptions = {}): Challenge | undefined {
  if (typeof result !== 'object' || result === null || !Array.isArray(result.signatures)) throw new TypeError('createChallenge expects a VerificationResult');
  if (result.outcome === 'verified') return undefined;
  if (result.malformed) return { status: 400, headers: {}, reason: 'malformed signature headers' };
  let replay = false;
  let later = false;
  let digest = false;
  for (const s of result.signatures) {
    const code = s.error?.code;
    if (code === 'ERR_CONTENT_DIGEST_REQUIRED') digest = true;
    else if (code === 'ERR_NONCE_REPLAYED' || code === 'ERR_NONCE_STORE_UNAVAILABLE') replay = true;
    // The agent's nonce quota, or the origin's discovery budget: the same signature may pass later.
    else if (code === 'ERR_NONCE_QUOTA_EXCEEDED' || code === 'ERR_DISCOVERY_LIMITED' || code === 'ERR_DISCOVERY_BUDGET') later = true;
  }
  const nonce = options.nonce === true ? randomNonce() : options.nonce;
  let asked = nonce === undefined ? options : { ...options, nonce };
  // The origin requires Content-Digest here (requireContentDigest): ask for it.
  if (digest) {
    const components = options.components ?? ['@authority'];
    if (!components.some((c) => parseComponentIdentifier(c).name === 'content-digest')) asked = { ...asked, components: [...components, 'content-digest'] };
  }
  const headers = { 'accept-signature': acceptSignatureValue(asked) };
  const extra = nonce === undefined ? {} : { nonce };
  if (replay) return { status: 429, headers, reason: 'sign again with a fresh nonce', ...extra };
  if (later) return { status: 429, headers, reason: 'too many requests; try again later', ...extra };
  return { status: 403, headers, reason: result.signatures.length === 0 ? 'signature required' : 'signature not accepted', ...extra };
}

/**
 * The `Accept-Signature` value for a Web Bot Auth request (RFC 9421 §5.1; SPEC 4.3:
 * the parameters of SPEC 5.1): tag `web-bot-auth`, `created`, `expires`, and the
 * requested components, key and nonce.
 *
 * @throws BotsigError `ERR_COMPONENT_INVALID` for a component that is not an identifier.
 * @throws TypeError for an invalid label.
 * @example
 * acceptSignatureValue(); // 'sig1=("@authority");tag="web-bot-auth";created;expires'
 */
export function acceptSignatureValue(options: ChallengeOptions = {}): string {
  const params: Parameters = new Map();
  params.set('tag', sfString(WEB_BOT_AUTH_TAG));
  params.set('created', sfBoolean(true));
  params.set('expires', sfBoolean(true));
  if (options.keyid !== undefined) params.set('keyid', sfString(options.keyid));
  if (options.nonce !== undefined) params.set('nonce', sfString(options.nonce === true ? randomNonce() : options.nonce));
  const components = (options.components ?? ['@authority']).map((c) => parseComponentIdentifier(c));
  return serializeAcceptSignature([{ label: options.label ?? 'sig1', components, params }]);
}

function randomNonce(): string {
  const bytes = new Uint8Array(64);
  globalThis.crypto.getRandomValues(bytes);
  return base64UrlEncode(bytes);
}

/** What a challenged client should change when it signs again. */
export type ChallengeSignOptions = Pick<SignRequestOptions, 'components' | 'replaceComponents' | 'extend'> & {
  readonly nonce?: string;
  readonly tag?: string;
  readonly keyid?: string;
};

/**
 * Reads an `Accept-Signature` challenge (client side) into options for
 * `signRequest`: the requested components (with `extend: fullSigning`, which signing
 * them takes) and the origin's nonce. Only the first request for a `web-bot-auth` signature (or an untagged one) is used.
 *
 * @throws BotsigError `ERR_ACCEPT_SIGNATURE_PARSE` for a malformed header or one
 *   that asks for no `web-bot-auth` signature.
 * @throws TypeError when `acceptSignature` is not a string.
 * @example
 * const retry = signOptionsFromChallenge(response.headers.get('accept-signature')!);
 * const headers = await signRequest(request, { key, signatureAgent, ...retry });
 */
export function signOptionsFromChallenge(acceptSignature: string): ChallengeSignOptions {
  const requests = parseAcceptSignature(acceptSignature);
  for (const input of requests.values()) {
    const tag = input.params.get('tag');
    if (tag !== undefined && !(tag.type === 'string' && tag.value === WEB_BOT_AUTH_TAG)) continue;
    const nonce = input.params.get('nonce');
    const keyid = input.params.get('keyid');
    // Components that depend on the label (signature-agent;key=…) are re-derived by signRequest.
    const components = input.components.filter((c) => c.name !== 'signature-agent').map((c) => serializeComponentIdentifier(c));
    return {
      components,
      extend: fullSigning,
      ...(nonce?.type === 'string' ? { nonce: nonce.value } : {}),
      ...(keyid?.type === 'string' ? { keyid: keyid.value } : {}),
      tag: WEB_BOT_AUTH_TAG,
    };
  }
  throw new BotsigError('ERR_ACCEPT_SIGNATURE_PARSE', 'Accept-Signature asks for no web-bot-auth signature');
}
