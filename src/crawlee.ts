/**
 * `botsig/crawlee`: a `preNavigationHooks` entry that signs every request of a
 * Crawlee crawler (HTTP crawlers per redirect hop; browser crawlers through
 * Playwright routing). Peer dependency: `crawlee` (or `@crawlee/*`). Re-exports only.
 */
export { createSigningHook } from './adapters/crawlee';
export type {
  CrawleeContextLike,
  CrawleeRequestLike,
  CrawleeResponseLike,
  CrawleeSigningHook,
  CrawleeSigningOptions,
  GotHeaders,
  GotOptionsLike,
  GotRedirectOptionsLike,
} from './adapters/crawlee';
export type { OriginFilter } from './adapters/playwright';
