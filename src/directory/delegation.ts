/**
 * Delegation by certificate (SPEC 5.5, 4.4; NOTES "Delegation"): a key is
 * accepted because an X.509 chain leads from a certificate for that key to a
 * trust anchor the verifier configured.
 *
 * Three ways to carry the chain are read: `x5c` on the key entry (leaf first,
 * each certificate certified by the next, RFC 7517 §4.7), a leaf whose issuers
 * are fetched from its Authority Information Access CA Issuers URI (RFC 5280
 * §4.2.2.1), and `x5u`, a URL of the PEM chain (RFC 7517 §4.6). The checks are
 * RFC 5280 §6.1 path validation, reduced to what a key delegation needs: names
 * chain, signatures verify, validity periods hold, issuers are CAs allowed to
 * sign certificates within their path length, the leaf may sign, and no
 * critical extension is left unprocessed. Revocation is not checked.
 *
 * The ASN.1 is read with `@peculiar/asn1-x509` and its siblings, loaded with a
 * dynamic `import()` the first time a chain is checked: verifiers that do not
 * configure delegation never load them (they are optional peer dependencies).
 * Signatures are checked with WebCrypto (Ed25519 through the crypto provider, so
 * the @noble fallback applies where WebCrypto has none).
 *
 * The public surface is re-exported here from `./delegation/`: `types` (the
 * vocabulary), `asn` (lazy loading of the optional packages), `der` (DER
 * framing and PEM), `anchors` (trust anchors), `options` (validated options),
 * `certificate` (X.509 parsing), `signatures` (key match and signature
 * checks), `failure` (internal refusals), `path` (path validation).
 */
export { DEFAULT_MAX_CHAIN_LENGTH, DELEGATION_FORMS } from './delegation/types';
export type {
  CertificateFetcher,
  DelegatedKeyInput,
  DelegationFailureReason,
  DelegationForm,
  DelegationOptions,
  DelegationOutcome,
  KeyDelegation,
} from './delegation/types';
export { decodeCertificates } from './delegation/der';
export { TrustAnchors } from './delegation/anchors';
export { hasCertificateChain, prepareDelegation } from './delegation/options';
export type { PreparedDelegation } from './delegation/options';
export { verifyDelegation } from './delegation/path';
export type { VerifyDelegationOptions } from './delegation/path';
