/**
 * `botsig/sync`: signing without awaiting, for hooks that cannot (some crawler
 * frameworks' request interceptors). Ed25519 JWKs are imported and signed in pure
 * JavaScript (@noble/ed25519): portable, slower than `signRequest`, and kept out of
 * the main entry so that the asynchronous API (and its browser bundles) never load it.
 */
export { signRequestSync } from './profile/sign-sync';
export { importSigningKeySync } from './crypto/keys/signing-sync';
export { nobleEd25519Provider } from './crypto/noble';
