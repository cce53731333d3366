/**
 * `botsig/playwright`: signs the requests of a Playwright `BrowserContext` or
 * `Page` (request routing), each with a fresh Web Bot Auth signature for its
 * own authority. Peer dependency: `playwright` or `playwright-core`. Re-exports only.
 */
export { signBrowserContext, createSigningRouteHandler } from './adapters/playwright';
export type {
  OriginFilter,
  PlaywrightRequestLike,
  PlaywrightRoutable,
  PlaywrightRouteHandler,
  PlaywrightRouteLike,
  PlaywrightSigningOptions,
} from './adapters/playwright';
