/**
 * `botsig/crawlee`: a `preNavigationHooks` entry that signs what a Crawlee
 * crawler sends. HTTP crawlers (CheerioCrawler, JSDOMCrawler, HttpCrawler) get
 * signed got options and a `beforeRedirect` hook that re-signs each redirect hop;
 * browser crawlers (PlaywrightCrawler) get the page's requests signed through
 * routing, as `botsig/playwright` does. Crawlee is a peer dependency; only its
 * shapes are used here.
 */
import { applySignatureHeaders, signRequest } from '../profile/sign-request';
import { signRequestWithSyncKey } from '../profile/sign/sync-key';
import type { SignatureHeaders } from '../profile/types';
import {
  createSigningRouteHandlerFrom,
  learnFromResponses,
  prepareBrowserSigning,
  withContentDigest,
  type PlaywrightRoutable,
  type PlaywrightSigningOptions,
} from './playwright';
import { asksForSignature, originOf } from './sign-when-asked';

/** Options of {@link createSigningHook}: those of `botsig/playwright` (`origins` applies to every hop). */
export type CrawleeSigningOptions = PlaywrightSigningOptions;

/** The part of a Crawlee `Request` that signing reads. */
export interface CrawleeRequestLike {
  readonly url: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The body Crawlee's HTTP crawlers send for POST, PUT and PATCH (`''` when absent), for `contentDigest`. */
  readonly payload?: string | Uint8Array;
}

/** The part of a Crawlee crawling context that signing reads: `page` is present in browser crawlers. */
export interface CrawleeContextLike {
  readonly request: CrawleeRequestLike;
  readonly page?: PlaywrightRoutable | object;
}

/** Header records as got holds them. */
export type GotHeaders = Record<string, string | string[] | undefined>;

/** The part of got's options that signing writes (HTTP crawlers' second hook argument). */
export interface GotOptionsLike {
  url?: string | URL;
  method?: string;
  headers?: GotHeaders;
  /** The body for methods other than POST, PUT and PATCH (for those Crawlee sends the request `payload`). */
  body?: unknown;
  hooks?: { beforeRedirect?: unknown[] };
}

/** The options got passes to a `beforeRedirect` hook: already pointing at the next hop. */
export interface GotRedirectOptionsLike {
  url?: string | URL;
  method?: string;
  headers: GotHeaders;
  /** The body got sends again (307/308), if any. */
  body?: unknown;
}

/**
 * A `preNavigationHooks` entry. The second argument is got's options in HTTP
 * crawlers and `page.goto` options in browser crawlers (unused there).
 */
export type CrawleeSigningHook = ((crawlingContext: CrawleeContextLike, navigationOptions?: object) => Promise<void>) & {
  /**
   * A `postNavigationHooks` entry for `signWhen: 'asked'` in HTTP crawlers: remembers the
   * origins whose responses ask for a signature (Crawlee then retries the 401/403/429, and
   * the retry is signed). Does nothing in the default mode.
   */
  readonly afterNavigation: (crawlingContext: CrawleeContextLike & { readonly response?: CrawleeResponseLike }) => Promise<void>;
};

/** The part of the response Crawlee's HTTP crawlers put on the context that `afterNavigation` reads. */
export interface CrawleeResponseLike {
  readonly statusCode?: number | undefined;
  readonly url?: string | undefined;
  readonly headers?: Readonly<Record<string, string | string[] | undefined>> | undefined;
}

const SIGNATURE_FIELDS = new Set(['signature', 'signature-input', 'signature-agent']);

/**
 * Creates a Crawlee `preNavigationHooks` entry that signs every request with a
 * fresh Web Bot Auth signature for its own authority (SPEC 5.1). The key is
 * imported once, on the first navigation.
 *
 * - HTTP crawlers: signs into got's `headers` (a plain object, as Crawlee merges
 *   it over `request.headers`) and adds a got `beforeRedirect` hook that removes
 *   the previous hop's `Signature`, `Signature-Input` and `Signature-Agent` and
 *   signs again for the redirect target (got runs the hook after it has set the
 *   new URL and method). The hook signs synchronously when the key can (Ed25519
 *   with a synchronous provider), else returns a promise, which got 12+ awaits.
 *   got-scraping may change header order and name case; the values are kept.
 * - Browser crawlers (`crawlingContext.page` with Playwright's `route`): routes
 *   the page once, as `signBrowserContext` does, with the same redirect caveat
 *   (browser-followed hops resend the first signature).
 *
 * @throws TypeError for wrong option types (at creation); the hook rejects with
 *   BotsigError `ERR_KEY_INVALID` for an unusable key, `ERR_COMPONENT_MISSING`
 *   when a covered header is absent, or TypeError for a page without `route`
 *   (Puppeteer is not supported).
 * @example
 * import { CheerioCrawler } from 'crawlee';
 * import { createSigningHook } from 'botsig/crawlee';
 * const crawler = new CheerioCrawler({
 *   preNavigationHooks: [createSigningHook({ key: privateJwk, signatureAgent: 'https://crawler.example' })],
 *   async requestHandler({ enqueueLinks }) { await enqueueLinks(); },
 * });
 */
export function createSigningHook(options: CrawleeSigningOptions): CrawleeSigningHook {
  // Checked and imported once; a rejected import is reported by every navigation.
  const prepared = prepareBrowserSigning(options);
  prepared.catch(() => undefined);
  const routedPages = new WeakSet<object>();

  const hook = async function botsigSigningHook(crawlingContext: CrawleeContextLike, navigationOptions?: object): Promise<void> {
    const signing = await prepared;
    const page = crawlingContext.page;
    if (page !== undefined && page !== null) {
      if (!isRoutable(page)) throw new TypeError('botsig/crawlee signs browser crawlers through Playwright page.route(); this page has none');
      if (routedPages.has(page)) return;
      routedPages.add(page);
      await page.route('**/*', createSigningRouteHandlerFrom(signing, options.onError));
      learnFromResponses(page, signing.asked);
      return;
    }

    const got = (navigationOptions ?? {}) as GotOptionsLike;
    const url = got.url === undefined ? crawlingContext.request.url : String(got.url);
    const headers: GotHeaders = (got.headers ??= {});
    if (signing.matches(url)) {
      // The request as got will send it: Crawlee spreads request.headers, then got's headers,
      // and sends the request's payload as the body of POST, PUT and PATCH (got's body otherwise).
      const method = got.method ?? crawlingContext.request.method ?? 'GET';
      const sent = /PATCH|POST|PUT/.test(method) ? (crawlingContext.request.payload ?? '') : got.body;
      const [message, signOptions] = withContentDigest(
        { method, url, headers: { ...crawlingContext.request.headers, ...headers } },
        signing.signOptions,
        bodyOf(sent),
      );
      applySignatureHeaders(headers, await signRequest(message, signOptions));
    }
    const hooks = (got.hooks ??= {});
    (hooks.beforeRedirect ??= []).push((redirect: GotRedirectOptionsLike): void | Promise<void> => {
      const hopHeaders = redirect.headers;
      const digesting = signing.signOptions.contentDigest !== undefined;
      for (const name of Object.keys(hopHeaders)) {
        const lower = name.toLowerCase();
        // The previous hop's Content-Digest was ours: made again for this hop's body (or dropped with it).
        if (SIGNATURE_FIELDS.has(lower) || (digesting && lower === 'content-digest')) delete hopHeaders[name];
      }
      const hopUrl = String(redirect.url);
      if (!signing.matches(hopUrl)) return;
      const [message, signOptions] = withContentDigest(
        { method: redirect.method ?? 'GET', url: hopUrl, headers: hopHeaders },
        signing.signOptions,
        bodyOf(redirect.body),
      );
      const apply = (signature: SignatureHeaders): void => applySignatureHeaders(hopHeaders, signature);
      if (signing.key.signSync !== undefined && signOptions.contentDigest === undefined)
        return apply(signRequestWithSyncKey(message, signOptions, signing.key));
      return signRequest(message, signOptions).then(apply);
    });
  };
  const afterNavigation = async (crawlingContext: CrawleeContextLike & { readonly response?: CrawleeResponseLike }): Promise<void> => {
    const asked = (await prepared).asked;
    const response = crawlingContext.response;
    if (asked === undefined || response === undefined || typeof response.statusCode !== 'number') return;
    const header = (name: string): string | undefined => {
      const value = response.headers?.[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    if (!asksForSignature(response.statusCode, header)) return;
    const origin = originOf(response.url ?? crawlingContext.request.url);
    if (origin !== undefined) asked.remember(origin);
  };
  return Object.assign(hook, { afterNavigation });
}

/** A got body botsig can digest: text or bytes; `null` for none; `undefined` for a form it cannot read (a stream). */
function bodyOf(body: unknown): string | Uint8Array | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  return undefined;
}

function isRoutable(page: object): page is PlaywrightRoutable {
  return typeof (page as Partial<PlaywrightRoutable>).route === 'function' && typeof (page as Partial<PlaywrightRoutable>).unroute === 'function';
}
