/**
 * `botsig/noble`: Ed25519 in pure JavaScript (@noble/ed25519), opt-in, for runtimes
 * whose WebCrypto lacks Ed25519 (browsers older than Chrome 137, Firefox 129, Safari 17).
 * Every runtime botsig supports has Ed25519 in WebCrypto, so the main entry does not
 * carry this; without it such a runtime gets `ERR_CRYPTO_UNSUPPORTED` naming this entry.
 *
 * @example
 * import { setCryptoProvider } from 'botsig';
 * import { withNobleFallback } from 'botsig/noble';
 * setCryptoProvider(withNobleFallback());
 */
export { withNobleFallback, generateNobleKeyPair, nobleEd25519Provider as nobleProvider, nobleEd25519Provider } from './crypto/noble';
