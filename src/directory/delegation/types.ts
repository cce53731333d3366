/**
 * The vocabulary of delegation by certificate (SPEC 5.5): the forms a chain
 * can take, the options a verifier gives, what a successful delegation says
 * about a key, why a chain is refused, and the fetcher the client lends.
 */
import type { BotsigError } from '../../core/errors';
import type { Clock } from '../../core/time';
import type { Jwk } from '../../crypto/types';

// The result types live with the verification results that carry them (profile layer).
import type { DelegationForm, KeyDelegation } from '../../profile/types';
export type { DelegationForm, KeyDelegation };

/** Every form, the default when trust anchors are given. */
export const DELEGATION_FORMS: readonly DelegationForm[] = /* @__PURE__ */ Object.freeze(['x5c', 'aia', 'x5u']);

/** Default longest chain, trust anchor included: a leaf, three intermediates and a root. */
export const DEFAULT_MAX_CHAIN_LENGTH = 5;

/** Hard ceiling on `maxChainLength` (also the `x5c` ceiling of the directory parser). */
export const MAX_CHAIN_LENGTH_LIMIT = 16;

/** What {@link certificateDelegation} takes: the verifier's trust anchors and limits. */
export interface DelegationOptions {
  /**
   * The certificates the verifier trusts: PEM text (one or several
   * `CERTIFICATE` blocks), bare base64 DER, or DER bytes. A chain must end at
   * one of them (or at a certificate one of them signed). The CA may be
   * self-signed (SPEC 5.5 rule 5).
   */
  readonly trustAnchors: ReadonlyArray<string | Uint8Array>;
  /** Accepted forms. Default: all three. */
  readonly forms?: ReadonlyArray<DelegationForm>;
  /** Most certificates in a chain, leaf and trust anchor included. Default 5, at most 16. */
  readonly maxChainLength?: number;
}

/**
 * Why a chain was refused; the client reports it as the diagnostic code
 * `delegation-<reason>`.
 */
export type DelegationFailureReason =
  /** Not a certificate, bad base64, duplicated extension, inconsistent algorithms. */
  | 'malformed'
  /** The leaf certifies another key than the JWK's. */
  | 'wrong-key'
  | 'expired'
  | 'not-yet-valid'
  /** A certificate is not issued (name, signature) by the next one. */
  | 'broken-chain'
  /** The chain ends at a certificate no trust anchor issued. */
  | 'untrusted-root'
  /** The chain stops short of an anchor and the last certificate names no CA Issuers URI. */
  | 'missing-aia'
  /** The CA Issuers URI is refused by the client's URL rules (scheme, private address, allow-list). */
  | 'aia-blocked'
  /** The `x5u` URL is refused by the client's URL rules. */
  | 'x5u-blocked'
  /** A certificate could not be fetched (network, status, size, timeout). */
  | 'fetch-failed'
  /** An issuer is not a CA (basic constraints). */
  | 'not-a-ca'
  /** An issuer may not sign certificates, or the leaf may not sign (key usage). */
  | 'key-usage'
  /** An issuer's `pathLenConstraint` is exceeded. */
  | 'path-length'
  /** More certificates than `maxChainLength`. */
  | 'too-long'
  /** Unsupported or weak algorithm, or an unprocessed critical extension. */
  | 'unsupported'
  /** The key carries no chain in an enabled form. */
  | 'no-chain'
  /** The optional X.509 packages are not installed. */
  | 'unavailable';

/** The verdict of {@link verifyDelegation}. */
export type DelegationOutcome =
  { readonly ok: true; readonly delegation: KeyDelegation } | { readonly ok: false; readonly reason: DelegationFailureReason; readonly error: BotsigError };

/**
 * Fetches a certificate resource (an AIA CA Issuers URI or an `x5u` URL) and
 * returns its body. The `DirectoryClient` passes its guarded fetch path (same
 * URL rules, size and time limits). It throws a `BotsigError`:
 * `ERR_URL_BLOCKED`/`ERR_URL_INVALID` when the URL is refused, anything else
 * when the fetch fails.
 */
export type CertificateFetcher = (url: string, purpose: 'aia' | 'x5u') => Promise<Uint8Array>;

/** The key members delegation reads. */
export type DelegatedKeyInput = Pick<Jwk, 'kty' | 'crv' | 'x' | 'y' | 'n' | 'e' | 'x5c' | 'x5u'>;

/** What a {@link CertificateDelegation} is given for one key by the client that asks. */
export interface DelegationContext {
  /** The verification time. */
  readonly now: Clock;
  /** Tolerance on `notBefore`/`notAfter`, in seconds. */
  readonly clockSkewSeconds: number;
  /** Certificate resources (AIA, `x5u`), fetched through the client's guards. */
  readonly fetch: CertificateFetcher;
}

/**
 * The `delegation` option of a `DirectoryClient` (SPEC 5.5): checks the certificate
 * chain of a key entry. `certificateDelegation()` makes the X.509 one; the client
 * reaches X.509 code only through this object, so an application that does not
 * configure delegation does not ship it.
 */
export interface CertificateDelegation {
  /** Starts parsing the trust anchors (and loading the X.509 packages) ahead of the first chain. */
  preload(): Promise<void>;
  /**
   * The chain of `key` (`x5c` or `x5u`) checked against the trust anchors. Never rejects
   * for a bad chain: the reason comes back in the outcome.
   *
   * @throws TypeError (rejects) when a trust anchor cannot be parsed.
   */
  check(key: DelegatedKeyInput, context: DelegationContext): Promise<DelegationOutcome>;
}
