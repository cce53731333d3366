/**
 * `botsig/fetch`: a `fetch` that signs every request it sends with the Web Bot
 * Auth profile, one fresh signature per request and per redirect hop, and answers
 * an origin's `Accept-Signature` challenge once.
 *
 * Isomorphic: web-standard `fetch`, `Request`, `Headers` and streams only.
 */
import { BotsigError, isBotsigError } from '../core/errors';
import type { Clock } from '../core/time';
import type { DigestAlgorithm } from '../crypto/digest';
import { importSigningKey } from '../crypto/keys/signing';
import { isSigningKey } from '../crypto/keys/objects';
import type { AlgorithmName, Jwk, SigningKey, WebCryptoKey, WebCryptoKeyPair } from '../crypto/types';
import { parseComponentIdentifier } from '../httpsig/components';
import { signOptionsFromChallenge } from '../profile/challenge';
import { applySignatureHeaders, signRequest } from '../profile/sign-request';
import { fullSigning } from '../profile/sign/full';
import { checkSignatureAgent } from '../profile/sign/agent-member';
import type { SignatureAgentInput, SignRequestOptions } from '../profile/types';
import { AskedOrigins, asksForSignature, checkSignWhen, originOf, type AskedOriginsOptions, type SignWhen } from './sign-when-asked';

/** The shape of `fetch` that botsig calls and returns. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Options of {@link createSignedFetch}. */
export interface SignedFetchOptions {
  /** The agent's private key: a private JWK, a CryptoKey (pair), or a key from `importSigningKey()`. Imported once. */
  readonly key: Jwk | WebCryptoKey | WebCryptoKeyPair | SigningKey;
  /** Needed only for RSA JWKs without `alg`. */
  readonly alg?: AlgorithmName;
  /**
   * Required: the https URL of the agent's JWK Set, sent as its `Signature-Agent` member
   * and covered (draft-ietf-webbotauth-httpsig-protocol-01). A bare origin is sent as its
   * well-known directory URL; `{ url, type: 'directory' }` sends the bare origin as the
   * earlier drafts did (see `signRequest`).
   */
  readonly signatureAgent: string | SignatureAgentInput;
  /** Components covered beyond `@authority` and `Signature-Agent` (e.g. `@method`, `@path`). */
  readonly components?: readonly string[];
  /** Lifetime of each signature (`expires - created`). Default 300. */
  readonly validitySeconds?: number;
  /** The fetch to wrap. Default: the global `fetch`, looked up at call time. */
  readonly fetch?: FetchFunction;
  /** Redirects followed per call before failing like fetch does. Default 20 (the Fetch standard's limit). */
  readonly maxRedirects?: number;
  /**
   * Sign again and retry once on a 403/429 that carries `Accept-Signature` (with
   * `signWhen: 'asked'`, also the first signed answer to a 401/403/429 asking for a
   * signature). `false`: a request is never sent twice; the challenge is returned.
   * Default true.
   */
  readonly retryOnChallenge?: boolean;
  /**
   * `'always'` (default): every request is signed. `'asked'`: a request goes out unsigned
   * until its origin asks; a 401, 403 or 429 (without a real `Retry-After`) carrying
   * `Accept-Signature` is answered once, signed as the origin asked, and the origin is
   * remembered (`askedOrigins`) so that its next requests are signed from the start. A
   * body too large to buffer cannot be sent again: the challenge is then returned.
   */
  readonly signWhen?: SignWhen;
  /** With `signWhen: 'asked'`: how many origins are remembered and for how long. Default 1,000 origins, 3,600 s each. */
  readonly askedOrigins?: AskedOriginsOptions;
  /**
   * Request bodies up to this size are buffered so that a challenge retry or a
   * 307/308 redirect can send them again. A larger body is streamed once: no
   * retry, and a redirect that must resend it fails (Fetch standard §4.4). Default 1 MiB.
   */
  readonly maxReplayBodyBytes?: number;
  /** Clock for `created`/`expires`. Default `Date.now`. */
  readonly now?: Clock;
  /**
   * Send and cover `Content-Digest` (RFC 9530) with this algorithm on every request that
   * has a body or a method other than GET and HEAD (a bodiless POST gets the digest of
   * empty content), recomputed for each hop. The body is then read in full before
   * sending (so it is always replayable), at most `maxBodyBytes`.
   */
  readonly contentDigest?: DigestAlgorithm;
  /** With `contentDigest`: most bytes of body read. Default 16 MiB; a larger body rejects with `ERR_BODY_TOO_LARGE`, unsent. */
  readonly maxBodyBytes?: number;
}

const DEFAULT_MAX_REDIRECTS = 20;
/** With contentDigest, the body is read whole before sending: signRequest's default cap. */
const DEFAULT_MAX_DIGEST_BODY_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_REPLAY_BODY_BYTES = 1 << 20;
const SIGNATURE_FIELDS = ['signature', 'signature-input', 'signature-agent'] as const;
// Request-body-header names (Fetch standard §3.2.6), dropped when a redirect turns the request into a GET.
const BODY_FIELDS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'] as const;
// Dropped on a redirect to another origin, as browsers and undici do.
const CREDENTIAL_FIELDS = ['authorization', 'proxy-authorization', 'cookie', 'host'] as const;

/** A request body as it can be sent: bytes that can be sent again, or a stream that can be sent once. */
type Body = Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null;

/**
 * Wraps `fetch` so that every request carries a fresh Web Bot Auth signature
 * (SPEC 5.1: `@authority`, the `Signature-Agent` member, `created`, `expires`,
 * a 64-byte nonce, tag `web-bot-auth`).
 *
 * - Redirects are followed here, not by the wrapped fetch (`redirect: 'manual'`),
 *   so that each hop is signed for its own authority: the previous hop's
 *   `Signature`, `Signature-Input` and `Signature-Agent` are removed and a new
 *   signature is made. Method and body follow the Fetch standard (§4.4: 301/302
 *   turn a POST into a GET, 303 turns anything but GET/HEAD into a GET, 307/308
 *   keep both); `Authorization` and `Cookie` are dropped when the origin
 *   changes. The caller's `redirect: 'manual'` returns the 3xx response and
 *   `redirect: 'error'` rejects on it. A response of type `opaqueredirect`
 *   (browsers, where manual redirects are opaque) is returned as it is.
 * - A 403 or 429 that carries `Accept-Signature` (RFC 9421 §5.1, SPEC 4.3) is
 *   answered once per hop: the request is signed again with the components and
 *   the nonce the origin asked for, and sent again. No retry when the origin asks
 *   for another key, when the request cannot be signed as asked, when the body
 *   was too large to buffer, or for a 429 with a non-zero `Retry-After`.
 *
 * The key is imported once, when the wrapper is created; an unusable key makes
 * every call reject with that `BotsigError`.
 *
 * @returns a function with the signature of `fetch`. When redirects were
 *   followed, the response's `redirected` is `true` and its `url` is the last hop's.
 * @throws TypeError (synchronously) for wrong option types; RangeError for
 *   negative limits; BotsigError `ERR_COMPONENT_INVALID` for a malformed entry in
 *   `components`. The returned function rejects with a TypeError where fetch
 *   would (too many redirects, a redirect to a non-HTTP URL, `redirect: 'error'`),
 *   and with BotsigError `ERR_KEY_INVALID`, `ERR_COMPONENT_MISSING`, … when a
 *   request cannot be signed.
 * @example
 * import { createSignedFetch } from 'botsig/fetch';
 * const signedFetch = createSignedFetch({ key: privateJwk, signatureAgent: 'https://crawler.example' });
 * const response = await signedFetch('https://example.com/');
 */
export function createSignedFetch(options: SignedFetchOptions): FetchFunction {
  if (typeof options !== 'object' || options === null) throw new TypeError('createSignedFetch options must be an object');
  if (options.key === undefined || options.key === null || typeof options.key !== 'object') throw new TypeError('options.key is required');
  checkSignatureAgent(options.signatureAgent);
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new TypeError('options.fetch must be a function');
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('options.now must be a function');
  const maxRedirects = nonNegativeInteger(options.maxRedirects, DEFAULT_MAX_REDIRECTS, 'maxRedirects');
  const maxBodyBytes = nonNegativeInteger(options.maxReplayBodyBytes, DEFAULT_MAX_REPLAY_BODY_BYTES, 'maxReplayBodyBytes');
  const components = checkComponents(options.components);
  if (options.validitySeconds !== undefined && (!Number.isSafeInteger(options.validitySeconds) || options.validitySeconds <= 0)) {
    throw new RangeError('validitySeconds must be a positive integer');
  }
  const retryOnChallenge = options.retryOnChallenge !== false;
  const asked = checkSignWhen(options.signWhen) === 'asked' ? new AskedOrigins(options.askedOrigins, options.now) : undefined;
  const contentDigest = options.contentDigest;
  if (contentDigest !== undefined && contentDigest !== 'sha-256' && contentDigest !== 'sha-512')
    throw new TypeError("contentDigest must be 'sha-256' or 'sha-512'");
  const maxDigestBodyBytes = nonNegativeInteger(options.maxBodyBytes, DEFAULT_MAX_DIGEST_BODY_BYTES, 'maxBodyBytes');
  const underlying: FetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  const keyPromise: Promise<SigningKey> = isSigningKey(options.key)
    ? Promise.resolve(options.key)
    : importSigningKey(options.key as Jwk | WebCryptoKey | WebCryptoKeyPair, options.alg === undefined ? {} : { alg: options.alg });
  // Reported to each caller; never an unhandled rejection when nobody calls.
  keyPromise.catch(() => undefined);

  const base: Omit<SignRequestOptions, 'key'> = {
    signatureAgent: options.signatureAgent,
    ...(components === undefined ? {} : { components }),
    ...(options.validitySeconds === undefined ? {} : { validitySeconds: options.validitySeconds }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(contentDigest === undefined ? {} : { contentDigest }),
  };

  return async function signedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const key = await keyPromise;
    // The Request constructor gives fetch's own normalisation and errors (bad URL, GET with body, …).
    const request = new Request(input, init);
    const signal = request.signal;
    const redirectMode = request.redirect;
    const callerHeaders = new Headers(request.headers);
    // With contentDigest the whole body is needed before the headers: read it all (bounded), once.
    let body: Body =
      request.body === null
        ? null
        : contentDigest === undefined
          ? await bufferBody(request.body, maxBodyBytes)
          : await readWhole(request.body, maxDigestBodyBytes);

    let url = request.url;
    let method = request.method;
    let hopHeaders = callerHeaders;
    let redirects = 0;
    // Once a chain has reached an https URL, its http hops go out unsigned: `@authority` names
    // no scheme, so a signature sent in clear text would also verify at the https origin.
    let secureChain = false;
    const send = async (hopUrl: string, hopMethod: string, headers: Headers, hopBody: Body, signOptions: SignRequestOptions): Promise<Response> =>
      underlying(hopUrl, hopInit(init, hopMethod, await signedHeaders(hopUrl, hopMethod, headers, signOptions, hopBody), hopBody, signal));
    for (;;) {
      signal.throwIfAborted();
      const replayable = !(body instanceof ReadableStream);
      // signWhen 'asked': unsigned until this origin has asked (then remembered for a while).
      const origin = asked === undefined ? undefined : originOf(url);
      const clear = url.startsWith('http:');
      secureChain ||= !clear;
      const downgraded = clear && secureChain;
      const signNow = !downgraded && (asked === undefined || (origin !== undefined && asked.has(origin)));
      let response = signNow
        ? await send(url, method, hopHeaders, body, { ...base, key })
        : await underlying(url, hopInit(init, method, hopHeaders, body, signal));
      const unsignedAsked = !signNow && !downgraded && asksForSignature(response.status, (name) => response.headers.get(name));
      if (unsignedAsked && origin !== undefined) asked!.remember(origin);

      if (retryOnChallenge && ((signNow && isChallenge(response)) || unsignedAsked) && replayable) {
        const retryOptions = challengeOptions(response, key, base);
        if (retryOptions !== undefined) {
          let retryHeaders: Headers | undefined;
          try {
            retryHeaders = await signedHeaders(url, method, hopHeaders, retryOptions, body);
          } catch {
            // The origin asked for something this request cannot give (a missing header, a
            // parameter the signer refuses): whatever it asked, the caller sees the challenge.
          }
          if (retryHeaders !== undefined) {
            await discard(response);
            response = await underlying(url, hopInit(init, method, retryHeaders, body, signal));
          }
        }
      }

      const location = redirectTarget(response);
      if (location === undefined || redirectMode === 'manual') return finish(response, redirects);
      if (redirectMode === 'error') {
        await discard(response);
        throw new TypeError('fetch failed: the response is a redirect and redirect mode is "error"');
      }
      if (redirects >= maxRedirects) {
        await discard(response);
        throw new TypeError(`fetch failed: more than ${maxRedirects} redirects`);
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        await discard(response);
        throw new TypeError('fetch failed: the redirect Location is not a URL');
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        await discard(response);
        throw new TypeError('fetch failed: redirect to a non-HTTP(S) URL');
      }
      const status = response.status;
      await discard(response);
      // Fetch standard §4.4 step 11: a body that cannot be sent again ends the chain, unless a 303 drops it.
      if (status !== 303 && body instanceof ReadableStream) {
        throw new TypeError('fetch failed: the redirect needs the request body again, and it was too large to buffer');
      }
      const headers = new Headers(hopHeaders);
      for (const name of SIGNATURE_FIELDS) headers.delete(name);
      if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && method !== 'GET' && method !== 'HEAD')) {
        method = 'GET';
        body = null;
        for (const name of BODY_FIELDS) headers.delete(name);
      }
      if (next.origin !== new URL(url).origin) for (const name of CREDENTIAL_FIELDS) headers.delete(name);
      hopHeaders = headers;
      url = next.href;
      redirects++;
    }
  };
}

/**
 * A copy of `headers` with a fresh signature for this URL and method; with `contentDigest`,
 * over `body` (always bytes then), except for a GET or HEAD without one.
 */
async function signedHeaders(url: string, method: string, headers: Headers, options: SignRequestOptions, body: Body): Promise<Headers> {
  // Other components, a Content-Digest over the body, headers that carry signatures already: the general steps.
  let signOptions: SignRequestOptions = options.extend === undefined ? { ...options, extend: fullSigning } : options;
  let message: { method: string; url: string; headers: Headers; body?: Uint8Array | null } = { method, url, headers };
  if (options.contentDigest !== undefined) {
    if (body === null && (method === 'GET' || method === 'HEAD')) {
      const { contentDigest: _none, ...rest } = signOptions;
      signOptions = rest;
    } else {
      message = { method, url, headers, body: body instanceof ReadableStream ? null : body };
    }
  }
  const signature = await signRequest(message, signOptions);
  const out = new Headers(headers);
  applySignatureHeaders(out, signature);
  return out;
}

/** The init of one hop: the caller's extras (credentials, dispatcher, …) with what this wrapper decides. */
function hopInit(init: RequestInit | undefined, method: string, headers: Headers, body: Body, signal: AbortSignal): RequestInit {
  const out: RequestInit & { duplex?: 'half' } = { ...init, method, headers, body, redirect: 'manual', signal };
  // Streams need half duplex in Node's fetch; other runtimes ignore the member.
  if (body instanceof ReadableStream) out.duplex = 'half';
  return out;
}

function isChallenge(response: Response): boolean {
  if (response.status !== 403 && response.status !== 429) return false;
  if (!response.headers.has('accept-signature')) return false;
  if (response.status === 429) {
    // A real rate limit: retrying at once would be impolite and useless.
    const retryAfter = response.headers.get('retry-after');
    if (retryAfter !== null && retryAfter.trim() !== '0') return false;
  }
  return true;
}

/** Sign options that answer the challenge, or `undefined` when this agent cannot answer it. */
function challengeOptions(response: Response, key: SigningKey, base: Omit<SignRequestOptions, 'key'>): SignRequestOptions | undefined {
  let asked;
  try {
    asked = signOptionsFromChallenge(response.headers.get('accept-signature') ?? '');
  } catch (error) {
    if (isBotsigError(error)) return undefined;
    throw error;
  }
  if (asked.keyid !== undefined && asked.keyid !== key.thumbprint) return undefined;
  const components = [...(base.components ?? []), ...(asked.components ?? [])];
  // An origin that asks for content-digest (requireContentDigest) gets it computed, not just named.
  const digest = base.contentDigest === undefined && components.some((c) => parseComponentIdentifier(c).name === 'content-digest') ? 'sha-256' : undefined;
  return {
    ...base,
    ...(digest === undefined ? {} : { contentDigest: digest }),
    key,
    ...(components.length === 0 ? {} : { components }),
    ...(asked.nonce === undefined ? {} : { nonce: asked.nonce }),
  };
}

function redirectTarget(response: Response): string | undefined {
  const s = response.status;
  if (s !== 301 && s !== 302 && s !== 303 && s !== 307 && s !== 308) return undefined;
  return response.headers.get('location') ?? undefined;
}

function finish(response: Response, redirects: number): Response {
  // `redirected` is a getter on Response.prototype; an own property on this response reports the chain we followed.
  if (redirects > 0 && !response.redirected) Object.defineProperty(response, 'redirected', { value: true });
  return response;
}

async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to release.
  }
}

/**
 * Reads a body into memory when it fits in `limit` bytes; otherwise returns a
 * stream that replays what was read and then the rest, to be sent once.
 */
async function bufferBody(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
    if (total > limit) return resumed(chunks, reader);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The whole body, for a digest: at most `limit` bytes, else `ERR_BODY_TOO_LARGE` (the stream is cancelled, nothing is sent). */
async function readWhole(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const read = await bufferBody(stream, limit);
  if (read instanceof Uint8Array) return read;
  await read.cancel().catch(() => undefined);
  throw new BotsigError('ERR_BODY_TOO_LARGE', `the request body is larger than the ${limit}-byte limit (maxBodyBytes) for contentDigest`);
}

function resumed(chunks: Uint8Array[], reader: ReadableStreamDefaultReader<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function nonNegativeInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number`);
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return value;
}

function checkComponents(components: readonly string[] | undefined): readonly string[] | undefined {
  if (components === undefined) return undefined;
  if (!Array.isArray(components)) throw new TypeError('components must be an array of strings');
  // Parsed once here so that a typo fails at creation, not on the first request.
  for (const component of components) parseComponentIdentifier(component);
  return [...components];
}
