import type { BotsigErrorCode } from '../core/errors';
import type { Diagnostic } from '../core/diagnostics';
import type { Clock } from '../core/time';
import type { AlgorithmName, Jwk, SigningKey, VerifyingKey } from '../crypto/types';
import type { NonceStore } from './nonce-store';
import type { ParsedSignatureAgent, SignatureAgentMember, SignatureAgentType } from './signature-agent';

/** The Web Bot Auth request tag (SPEC 5.1). */
export const WEB_BOT_AUTH_TAG = 'web-bot-auth';

/**
 * What a verifier concluded (NOTES "What every verifier decision produces"):
 * - `verified`: the signature, the key material and every profile check pass;
 * - `invalid`: a signature, covered component, key or freshness check failed;
 * - `unverified`: not enough information to decide (no signature, unknown key, discovery failed).
 */
export type Outcome = 'verified' | 'invalid' | 'unverified';

export interface ErrorInfo {
  readonly code: BotsigErrorCode;
  readonly message: string;
}

/** Typed view of the parameters of one signature (RFC 9421 §2.3). */
export interface SignatureParamsView {
  readonly created?: number;
  readonly expires?: number;
  readonly nonce?: string;
  readonly alg?: string;
  readonly keyid?: string;
  readonly tag?: string;
}

/** Where the key that verified (or failed) a signature came from. */
export type KeySource = 'static' | 'resolver' | 'directory';

/** The verdict on one signature of a request. */
export interface SignatureResult {
  readonly label: string;
  readonly outcome: Outcome;
  /** True when the signature was not judged because its `tag` is not `web-bot-auth`. */
  readonly skipped: boolean;
  readonly keyid?: string;
  readonly alg?: string;
  readonly tag?: string;
  readonly params: SignatureParamsView;
  /** Covered component identifiers, serialised (`"@authority"`, `"signature-agent";key="sig1"`). */
  readonly covered: readonly string[];
  /**
   * The agent identifier: the URL the verifier resolved (the well-known URL for a
   * `directory` member, the normalised value for `jwks_uri`/`cimd`), or the key's
   * thumbprint when the key came from elsewhere (static keys, a resolver).
   */
  readonly agent?: string;
  /**
   * The Signature-Agent member this signature covers (for a legacy field covered
   * whole, the member whose directory held the key). Frozen: shared between results.
   */
  readonly signatureAgent?: SignatureAgentMember;
  readonly keySource?: KeySource;
  /** Set when the key was accepted through a certificate chain (SPEC 5.5): the chain, anchor, form and certified subject. */
  readonly delegation?: KeyDelegation;
  readonly error?: ErrorInfo;
}

/** The verdict on a request. */
export interface VerificationResult {
  /** `verified` if any web-bot-auth signature verified; else `invalid` if any failed; else `unverified`. */
  readonly outcome: Outcome;
  /** The first verified signature's agent identifier. */
  readonly agent?: string;
  readonly signatures: readonly SignatureResult[];
  /** True when `Signature`, `Signature-Input` or `Signature-Agent` could not be parsed (SPEC 7: the origin MAY answer 400). */
  readonly malformed: boolean;
  /** Why the request is not verified, when no single signature says it (no signature, bad headers, insecure transport). */
  readonly error?: ErrorInfo;
  readonly diagnostics: readonly Diagnostic[];
}

/** A key a resolver hands back: a public JWK or an imported key, and optionally who it belongs to. */
export interface ResolvedKey {
  readonly key: VerifyingKey | Jwk;
  /** Agent identifier to report; defaults to the key's thumbprint. */
  readonly agent?: string;
}

/** What a {@link KeyResolver} is asked. */
export interface KeyLookup {
  readonly keyid: string;
  /** The signature's `alg` parameter as sent, when present. */
  readonly alg?: string;
  readonly label: string;
  /** The covered Signature-Agent member (the first, for a legacy field covered whole), when there is one. */
  readonly signatureAgent?: SignatureAgentMember;
}

/**
 * Looks up a key by keyid (and Signature-Agent member) when static keys do not have
 * it. A key whose thumbprint is not the keyid is ignored. Throwing (or rejecting)
 * makes the signature `unverified` with the error's code.
 */
export type KeyResolver = (lookup: KeyLookup) => Promise<ResolvedKey | VerifyingKey | Jwk | undefined> | ResolvedKey | VerifyingKey | Jwk | undefined;

/**
 * How a certificate chain reached the verifier (SPEC 5.5 rules 1–3): in `x5c`,
 * through an Authority Information Access CA Issuers URI, or from the `x5u` URL.
 */
export type DelegationForm = 'x5c' | 'aia' | 'x5u';

/**
 * What a successful delegation says about a key (reported with the key and in the
 * verification result). Defined here, with the results that carry it; the directory
 * layer (`directory/delegation.ts`) produces it.
 */
export interface KeyDelegation {
  /** Subjects of the chain (RFC 4514 strings), leaf first, trust anchor last. */
  readonly chain: readonly string[];
  /** Subject of the trust anchor the chain ends at. */
  readonly anchor: string;
  /** `aia` when an issuer was fetched from an AIA URI; else `x5u` or `x5c`, where the chain came from. */
  readonly via: DelegationForm;
  /**
   * The identity the anchor vouches for, from the leaf: its first `http(s)`
   * SAN URI (normalised), else its first SAN DNS name (lowercase), else its
   * subject (RFC 4514). Inline keys are identified by it.
   */
  readonly subject: string;
  /** Which of the three {@link subject} is. */
  readonly subjectSource: 'san-uri' | 'san-dns' | 'subject-dn';
  /** Start of the chain's validity (the latest `notBefore`), seconds since the epoch. */
  readonly notBefore: number;
  /** End of the chain's validity (the earliest `notAfter`), seconds since the epoch. */
  readonly notAfter: number;
}

/** A directory key after resolution: imported and ready. */
export interface DirectoryResolvedKey {
  readonly thumbprint: string;
  readonly key: VerifyingKey;
  /** How the key was accepted: proven by a directory response signature, unproven, or through a certificate chain. */
  readonly proof?: 'signed' | 'unsigned' | 'delegated';
  /** When accepted through delegation: the chain's subjects, leaf first. */
  readonly chain?: readonly string[];
  /** When accepted through delegation: the chain, its anchor, its form and the subject it vouches for (reported in the result). */
  readonly delegation?: KeyDelegation;
  /**
   * The identifier to report for this key when it is not the resolution's `url`
   * (inline `data:` keys are identified by their thumbprint).
   */
  readonly agent?: string;
}

export interface DirectoryResolution {
  /** The agent identifier (the URL resolved, normalised). */
  readonly url: string;
  readonly keys: readonly DirectoryResolvedKey[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * What `verifyRequest` needs from a directory client (the `DirectoryClient` class
 * implements it; tests and custom discovery can supply their own).
 * `resolve` throws a `BotsigError` (ERR_DIRECTORY_FETCH, ERR_URL_BLOCKED, …) when
 * discovery fails; the verifier reports `unverified`.
 */
export interface KeyDirectory {
  resolve(member: SignatureAgentMember): Promise<DirectoryResolution>;
}

export type NoncePolicy = 'none' | 'optional' | 'required';

export interface NonceOptions {
  /** `none`: nonces ignored. `optional` (default): checked when present. `required`: a signature without one is invalid. */
  readonly policy?: NoncePolicy;
  /**
   * Where accepted nonces are remembered. Default: a bounded `MemoryNonceStore`
   * owned by this options object (`createVerifier` owns one per verifier), so keep
   * one options object per verifier: options built per request remember nothing.
   * Share one store (Redis) across processes.
   */
  readonly store?: NonceStore;
  /**
   * Longest nonce accepted, in characters. Default 256 (botsig's own nonces are 86).
   * A longer nonce makes the signature `invalid` (`ERR_NONCE_TOO_LONG`) before
   * anything is stored.
   */
  readonly maxLength?: number;
}

/** Bounds on the key discovery one request can cause (issue: one request must not make the origin fetch without bound). */
export interface DiscoveryOptions {
  /**
   * Distinct Signature-Agent members (directories) looked up for one request,
   * however many signatures it carries. Default 4. Signatures beyond it are
   * `unverified` with `ERR_DISCOVERY_BUDGET`. A member named by several
   * signatures is looked up once.
   */
  readonly maxDirectories?: number;
  /**
   * One deadline over all the discovery of a request, in milliseconds. Default
   * 5,000. Signatures still waiting then are `unverified` (`ERR_DISCOVERY_BUDGET`);
   * a fetch shared with other requests goes on under the directory's own limits.
   */
  readonly timeoutMs?: number;
}

/**
 * Options of `verifyRequest`. Validated and prepared on first use and cached per
 * object: keep one object per verifier and do not mutate it afterwards.
 */
export interface VerifyRequestOptions {
  /**
   * Static public keys (JWKs or imported keys), matched by thumbprint = keyid, imported
   * once per array. RSA JWKs need an `alg`. A key that cannot be imported is a
   * configuration error: `verifyRequest` rejects with a TypeError.
   */
  readonly keys?: ReadonlyArray<Jwk | VerifyingKey>;
  /** Called for a keyid that static keys do not know. */
  readonly resolveKey?: KeyResolver;
  /** Discovery through the Signature-Agent member a signature covers. */
  readonly directory?: KeyDirectory;
  readonly nonce?: NonceOptions;
  readonly now?: Clock;
  /**
   * Tolerance for `created` in the future and `expires` in the past, in seconds.
   * Default 60. Compared in whole seconds: `created = now + skew` passes, one more fails.
   */
  readonly clockSkewSeconds?: number;
  /** Largest `expires - created` accepted. Default 86,400 (SPEC 8). */
  readonly maxValiditySeconds?: number;
  /**
   * Components every signature must cover, in addition to the profile rule.
   * Default: none beyond `@authority` or `@target-uri` (NOTES, docs/notes.md).
   */
  readonly requiredComponents?: readonly string[];
  /** Require `@authority` itself (SPEC 5.1) rather than accepting `@target-uri` in its place. */
  readonly strictAuthority?: boolean;
  /** Algorithms accepted. Default: all of `ed25519`, `ecdsa-p256-sha256`, `ecdsa-p384-sha384`, `rsa-pss-sha512`, `rsa-v1_5-sha256`. */
  readonly algorithms?: readonly AlgorithmName[];
  /** Accept signatures received over plain HTTP (SPEC 5.3 rule 6). Default false: such requests are `unverified`. */
  readonly allowInsecure?: boolean;
  /** Accept the public RFC 9421 example keys. Default false. */
  readonly allowTestKeys?: boolean;
  /** Accept `http:` Signature-Agent values. Default false. */
  readonly allowHttpSignatureAgent?: boolean;
  /** Verify only this label. */
  readonly label?: string;
  /**
   * The origin's own names, `host` or `host:port` (as `Host` carries them; the
   * scheme's default port may be omitted). A signature whose `@authority` (or the
   * host of `@target-uri`) is not listed is `invalid` (`ERR_AUTHORITY_NOT_ALLOWED`),
   * so a signature harvested on another site does not verify here. Default: any
   * authority (set it: the adapters warn once when it is missing).
   */
  readonly authorities?: readonly string[];
  /** Bounds on the key discovery one request can cause. */
  readonly discovery?: DiscoveryOptions;
  /**
   * Signatures judged per request, in field order. Default 16. Each costs a
   * signature base and possibly a verification, so a request with thousands of
   * signatures would cost the origin thousands of verifications; the rest are
   * `unverified` (`ERR_TOO_MANY_SIGNATURES`) without any work.
   */
  readonly maxSignatures?: number;
}

export interface SignatureAgentInput {
  readonly url: string;
  readonly type?: SignatureAgentType;
}

export interface SignRequestOptions {
  /** A private JWK, a CryptoKey (pair), or a key from `importSigningKey()`. */
  readonly key: Jwk | CryptoKey | CryptoKeyPair | SigningKey;
  /** Needed only for RSA JWKs without `alg`. */
  readonly alg?: AlgorithmName;
  /** Where verifiers find the key directory (SPEC 2.3). */
  readonly signatureAgent?: string | SignatureAgentInput;
  /** Signature label; default the first free `sig<n>`. */
  readonly label?: string;
  /** Extra covered components beyond the profile defaults (e.g. `@method`, `@path`, `content-digest`). */
  readonly components?: readonly string[];
  /**
   * Let `components` replace `@authority` instead of extending the defaults (e.g.
   * to cover `@target-uri`). The Signature-Agent member stays covered (SPEC 5.2 rule 1).
   */
  readonly replaceComponents?: boolean;
  readonly created?: Date | number;
  readonly expires?: Date | number;
  /** `expires - created` when `expires` is not given. Default 300. */
  readonly validitySeconds?: number;
  /** Allow a validity above 24 hours (SPEC 8 recommends against it). */
  readonly allowLongValidity?: boolean;
  /** A nonce to use, or `false` for none. Default: 64 random bytes, base64url. */
  readonly nonce?: string | false;
  /** Default `web-bot-auth`. */
  readonly tag?: string;
  /** Include `alg` in the parameters. Default true. */
  readonly includeAlg?: boolean;
  readonly now?: Clock;
}

/** Header values to put on the request: complete values (existing members plus the new one). */
export interface SignatureHeaders {
  readonly signature: string;
  readonly 'signature-input': string;
  readonly 'signature-agent'?: string;
}

export type { NonceStore, ParsedSignatureAgent, SignatureAgentMember, SignatureAgentType };
