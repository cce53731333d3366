/**
 * `botsig/playwright`: signs the requests of a Playwright `BrowserContext` or
 * `Page` through request routing. Playwright is a peer dependency; only its
 * shape is used here (no import), so `playwright` and `playwright-core` both fit.
 */
import type { Clock } from '../core/time';
import type { DigestAlgorithm } from '../crypto/digest';
import { importSigningKey } from '../crypto/keys/signing';
import { isSigningKey } from '../crypto/keys/objects';
import type { AlgorithmName, Jwk, SigningKey, WebCryptoKey, WebCryptoKeyPair } from '../crypto/types';
import { parseComponentIdentifier } from '../httpsig/components';
import { signRequest } from '../profile/sign-request';
import { fullSigning } from '../profile/sign/full';
import { checkSignatureAgent } from '../profile/sign/agent-member';
import type { SignatureAgentInput, SignRequestOptions } from '../profile/types';
import { AskedOrigins, asksForSignature, checkSignWhen, originOf, type AskedOriginsOptions, type SignWhen } from './sign-when-asked';

/** The part of a Playwright `Request` that signing reads. */
export interface PlaywrightRequestLike {
  url(): string;
  method(): string;
  /** Lowercase names; Playwright leaves out cookies and other forbidden headers, which it keeps as they are. */
  headers(): { [name: string]: string };
  /** The request body, for `contentDigest` (Playwright's `request.postDataBuffer()`). */
  postDataBuffer?(): Uint8Array | null;
}

/** The part of a Playwright `Route` that signing uses. */
export interface PlaywrightRouteLike {
  fallback(options?: { headers?: { [name: string]: string } }): Promise<void>;
}

/** A route handler as Playwright calls it. */
export type PlaywrightRouteHandler = (route: PlaywrightRouteLike, request: PlaywrightRequestLike) => Promise<void>;

/** A Playwright `BrowserContext` or `Page`: anything with `route` and `unroute`. */
export interface PlaywrightRoutable {
  route(url: string, handler: PlaywrightRouteHandler): Promise<unknown>;
  unroute(url: string, handler?: PlaywrightRouteHandler): Promise<unknown>;
}

/**
 * Which requests to sign: a list of origins (`https://example.com`,
 * `http://127.0.0.1:8080`), or a predicate on the request URL.
 */
export type OriginFilter = readonly string[] | ((url: URL) => boolean);

/** Options of {@link signBrowserContext}. */
export interface PlaywrightSigningOptions {
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
  /**
   * Sign only requests to these origins (or those the predicate accepts). Default:
   * every `http:`/`https:` request, third-party subresources included.
   */
  readonly origins?: OriginFilter;
  /**
   * Components covered beyond `@authority` and `Signature-Agent` (e.g. `content-type`).
   * In the browser (`signBrowserContext`, and `botsig/crawlee` on Playwright pages),
   * `@method` and `@target-uri` are always covered too: the browser resends a signature
   * on every redirect it follows, and it must verify for its own request only.
   */
  readonly components?: readonly string[];
  /** Lifetime of each signature (`expires - created`). Default 300. */
  readonly validitySeconds?: number;
  /**
   * `false` signs without a nonce: a signature can then be replayed, to the request it
   * was made for, until it expires. (A browser-followed redirect resends the first
   * request's signature, see {@link signBrowserContext}; it does not verify for the hop.)
   */
  readonly nonce?: false;
  /** Clock for `created`/`expires`. Default `Date.now`. */
  readonly now?: Clock;
  /** Called when a request cannot be signed (e.g. a covered header is absent); the request then goes out unsigned. */
  readonly onError?: (error: unknown, url: string) => void;
  /**
   * Send and cover `Content-Digest` (RFC 9530) with this algorithm on every request that has
   * a body or a method other than GET and HEAD. The body is the one the browser sends
   * (`request.postDataBuffer()`; for Crawlee's HTTP crawlers, the request `payload`).
   */
  readonly contentDigest?: DigestAlgorithm;
  /** With `contentDigest`: most bytes of body read. Default 16 MiB; larger bodies go out unsigned through `onError` (`ERR_BODY_TOO_LARGE`). */
  readonly maxBodyBytes?: number;
  /**
   * `'always'` (default): every matching request is signed. `'asked'`: only requests to
   * origins that answered a response with `Accept-Signature` on a 401, 403 or 429, for
   * `askedOrigins.rememberSeconds`. The browser does not resend the challenged request:
   * navigate again (Crawlee retries it by itself; see `botsig/crawlee`).
   */
  readonly signWhen?: SignWhen;
  /** With `signWhen: 'asked'`: how many origins are remembered and for how long. Default 1,000 origins, 3,600 s each. */
  readonly askedOrigins?: AskedOriginsOptions;
}

const ROUTE_PATTERN = '**/*';

/**
 * Adds a fresh Web Bot Auth signature (SPEC 5.1) to each HTTP request of a
 * Playwright `BrowserContext` or `Page`, for that request's own authority:
 * `route('**\/*')` with `route.fallback({ headers })`, so routes the caller
 * registered earlier still run and see the signature headers. The key is
 * imported once, here.
 *
 * Redirects: Playwright calls route handlers only for the first request of a
 * redirect chain, and sends the headers given to `fallback`/`continue` again on
 * every redirect hop the browser follows (see `route.continue` in Playwright's
 * types). Those hops therefore carry the first request's signature, which is why
 * every browser signature also covers `@method` and `@target-uri`: a hop, same-origin
 * or not, carries a signature that verifies for the first request only, so the
 * target of a redirect to another site learns no credential it could use at the
 * first. Navigate to final URLs, or use `botsig/fetch` (which signs every hop),
 * where redirects must be signed.
 * Requests answered by a Service Worker are not routed, hence not signed.
 *
 * @returns a function that removes the route (idempotent).
 * @throws TypeError for wrong option types or an `origins` entry that is not an
 *   http(s) origin; BotsigError `ERR_COMPONENT_INVALID` for a malformed entry in
 *   `components`, `ERR_KEY_INVALID` / `ERR_ALG_MISMATCH` for an unusable key.
 * @example
 * import { signBrowserContext } from 'botsig/playwright';
 * const context = await browser.newContext();
 * const stop = await signBrowserContext(context, {
 *   key: privateJwk,
 *   signatureAgent: 'https://crawler.example',
 *   origins: ['https://example.com'],
 * });
 * const page = await context.newPage();
 * await page.goto('https://example.com/');
 * await stop();
 */
export async function signBrowserContext(target: PlaywrightRoutable, options: PlaywrightSigningOptions): Promise<() => Promise<void>> {
  if (typeof target !== 'object' || target === null || typeof target.route !== 'function' || typeof target.unroute !== 'function') {
    throw new TypeError('signBrowserContext needs a Playwright BrowserContext or Page');
  }
  const prepared = await prepareBrowserSigning(options);
  const handler = createSigningRouteHandlerFrom(prepared, options.onError);
  await target.route(ROUTE_PATTERN, handler);
  const stopLearning = learnFromResponses(target, prepared.asked);
  let removed = false;
  return async () => {
    if (removed) return;
    removed = true;
    stopLearning();
    await target.unroute(ROUTE_PATTERN, handler);
  };
}

/** The part of a Playwright `Response` that `signWhen: 'asked'` reads. */
export interface PlaywrightResponseLike {
  url(): string;
  status(): number;
  headers(): { [name: string]: string };
}

type ResponseListener = (response: PlaywrightResponseLike) => void;

/**
 * With `signWhen: 'asked'`: listens to the target's `response` events and remembers the
 * origins that ask for a signature. Returns the function that stops listening.
 * @internal Shared with `botsig/crawlee`.
 */
export function learnFromResponses(target: object, asked: AskedOrigins | undefined): () => void {
  const events = target as {
    on?: (event: 'response', listener: ResponseListener) => unknown;
    off?: (event: 'response', listener: ResponseListener) => unknown;
  };
  if (asked === undefined || typeof events.on !== 'function') return () => undefined;
  const listener: ResponseListener = (response) => {
    try {
      if (!asksForSignature(response.status(), (name) => response.headers()[name])) return;
      const origin = originOf(response.url());
      if (origin !== undefined) asked.remember(origin);
    } catch {
      // A response of a closed page: nothing to learn.
    }
  };
  events.on.call(target, 'response', listener);
  return () => void events.off?.call(target, 'response', listener);
}

/**
 * The route handler behind {@link signBrowserContext}, for callers that register
 * it themselves (other URL patterns, `times`). Imports the key once.
 *
 * @throws as {@link signBrowserContext}.
 */
export async function createSigningRouteHandler(options: PlaywrightSigningOptions): Promise<PlaywrightRouteHandler> {
  return createSigningRouteHandlerFrom(await prepareBrowserSigning(options), options.onError);
}

/** @internal The route handler for options already checked and a key already imported. */
export function createSigningRouteHandlerFrom(prepared: PreparedBrowserSigning, onError: PlaywrightSigningOptions['onError']): PlaywrightRouteHandler {
  const { matches } = prepared;
  const signOptions = boundToRequest(prepared.signOptions);
  return async (route, request) => {
    const url = request.url();
    if (!isHttp(url) || !matches(url)) return route.fallback();
    const headers = request.headers();
    const method = request.method();
    let signature;
    try {
      const body = signOptions.contentDigest === undefined ? undefined : typeof request.postDataBuffer === 'function' ? request.postDataBuffer() : undefined;
      const [message, options] = withContentDigest({ method, url, headers }, signOptions, body);
      signature = await signRequest(message, options);
    } catch (error) {
      onError?.(error, url);
      return route.fallback();
    }
    return route.fallback({ headers: { ...headers, ...signature } });
  };
}

/**
 * The browser's signing options, the signature bound to its request: `@method` and
 * `@target-uri` covered besides what the options name. Playwright resends a routed
 * request's headers on every redirect the browser follows, and the route never sees
 * those hops; a signature covering only `@authority` would then reach a redirect's
 * target (another site, say) as a credential for any request to the first authority
 * until it expires. Bound to its request, it verifies for that request alone.
 */
function boundToRequest(options: SignRequestOptions): SignRequestOptions {
  const own = options.components ?? [];
  const bound = BINDING.filter((id) => !own.includes(id) && !own.includes(`"${id}"`));
  return { ...options, components: [...bound, ...own] };
}
const BINDING = ['@method', '@target-uri'];

/** What both browser helpers need, checked and imported once. @internal */
export interface PreparedBrowserSigning {
  readonly key: SigningKey;
  readonly matches: (url: string) => boolean;
  readonly signOptions: SignRequestOptions;
  /** With `signWhen: 'asked'`: the origins that asked (`matches` consults it). */
  readonly asked?: AskedOrigins | undefined;
}

/**
 * Checks the options (synchronously, throwing) and imports the key (the promise).
 * @internal Shared with `botsig/crawlee`.
 */
export function prepareBrowserSigning(options: PlaywrightSigningOptions): Promise<PreparedBrowserSigning> {
  if (typeof options !== 'object' || options === null) throw new TypeError('signing options must be an object');
  if (options.key === undefined || options.key === null || typeof options.key !== 'object') throw new TypeError('options.key is required');
  checkSignatureAgent(options.signatureAgent);
  if (options.onError !== undefined && typeof options.onError !== 'function') throw new TypeError('options.onError must be a function');
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('options.now must be a function');
  if (options.nonce !== undefined && options.nonce !== false) throw new TypeError('options.nonce can only be false');
  if (options.validitySeconds !== undefined && (!Number.isSafeInteger(options.validitySeconds) || options.validitySeconds <= 0)) {
    throw new RangeError('validitySeconds must be a positive integer');
  }
  if (options.components !== undefined) {
    if (!Array.isArray(options.components)) throw new TypeError('components must be an array of strings');
    for (const component of options.components) parseComponentIdentifier(component);
  }
  const filter = originMatcher(options.origins);
  const asked = checkSignWhen(options.signWhen) === 'asked' ? new AskedOrigins(options.askedOrigins, options.now) : undefined;
  const matches = asked === undefined ? filter : (url: string) => filter(url) && asked.has(originOf(url) ?? '');
  const base: Omit<SignRequestOptions, 'key'> = {
    signatureAgent: options.signatureAgent,
    // A browser's requests come in every shape, some already signed: the general steps too.
    extend: fullSigning,
    ...(options.components === undefined ? {} : { components: [...options.components] }),
    ...(options.validitySeconds === undefined ? {} : { validitySeconds: options.validitySeconds }),
    ...(options.nonce === false ? { nonce: false as const } : {}),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.contentDigest === undefined ? {} : { contentDigest: checkDigest(options.contentDigest) }),
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
  };
  const imported = isSigningKey(options.key)
    ? Promise.resolve(options.key)
    : importSigningKey(options.key as Jwk | WebCryptoKey | WebCryptoKeyPair, options.alg === undefined ? {} : { alg: options.alg });
  return imported.then((key) => ({ key, matches, signOptions: { ...base, key }, asked }));
}

/**
 * Turns an {@link OriginFilter} into a test on absolute URLs. Origins are
 * compared after URL normalisation (case, default port).
 *
 * @throws TypeError for an entry that is not an http(s) origin (no path, query or credentials).
 * @internal
 */
export function originMatcher(origins: OriginFilter | undefined): (url: string) => boolean {
  if (origins === undefined) return () => true;
  if (typeof origins === 'function') {
    return (url) => {
      try {
        return origins(new URL(url)) === true;
      } catch {
        // A predicate that fails cannot vouch for the request: leave it unsigned.
        return false;
      }
    };
  }
  if (!Array.isArray(origins)) throw new TypeError('origins must be an array of origins or a function');
  const allowed = new Set<string>();
  for (const entry of origins) {
    if (typeof entry !== 'string') throw new TypeError('origins must contain strings');
    let parsed: URL;
    try {
      parsed = new URL(entry);
    } catch {
      throw new TypeError('an origins entry is not a URL');
    }
    const bare = parsed.pathname === '/' && parsed.search === '' && parsed.hash === '' && parsed.username === '' && parsed.password === '';
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !bare) {
      throw new TypeError('origins entries must be http(s) origins such as https://example.com');
    }
    allowed.add(parsed.origin);
  }
  return (url) => {
    try {
      return allowed.has(new URL(url).origin);
    } catch {
      return false;
    }
  };
}

function checkDigest(value: unknown): DigestAlgorithm {
  if (value !== 'sha-256' && value !== 'sha-512') throw new TypeError("contentDigest must be 'sha-256' or 'sha-512'");
  return value;
}

/**
 * The message and options to sign with `contentDigest`: the body attached, or, for a GET or
 * HEAD without one, no digest at all. `body` `undefined` means the caller could not get it
 * (`signRequest` then reports `ERR_BODY_UNAVAILABLE`).
 * @internal Shared with `botsig/crawlee`.
 */
export function withContentDigest<M extends { method: string; url: string; headers: Record<string, string | string[] | undefined> }>(
  message: M,
  options: SignRequestOptions,
  body: string | Uint8Array | null | undefined,
): [M & { body?: string | Uint8Array | null }, SignRequestOptions] {
  if (options.contentDigest === undefined) return [message, options];
  const empty = body === null || body === undefined || body.length === 0;
  if (empty && (message.method === 'GET' || message.method === 'HEAD')) {
    const { contentDigest: _none, ...rest } = options;
    return [message, rest];
  }
  return [body === undefined ? message : { ...message, body }, options];
}

function isHttp(url: string): boolean {
  return url.startsWith('https:') || url.startsWith('http:');
}
