/**
 * `botsig/fetch`: a `fetch` that signs every request (and every redirect hop)
 * with the Web Bot Auth profile and answers `Accept-Signature` challenges once.
 * Isomorphic (Node, browsers, Workers). Re-exports only.
 */
export { createSignedFetch } from './adapters/fetch';
export type { FetchFunction, SignedFetchOptions } from './adapters/fetch';
export type { AskedOriginsOptions, SignWhen } from './adapters/sign-when-asked';
