import type { BotsigErrorCode } from '../core/errors';
import type { Diagnostic } from '../core/diagnostics';
import type { Clock } from '../core/time';
import type { DigestAlgorithm } from '../crypto/digest';
import type { HeaderInput, MessageInput } from '../httpsig/message';
import type { AlgorithmName, Jwk, SigningKey, VerifyingKey } from '../crypto/types';
import type { SignatureAgentCard } from './card';
import type { NonceStore } from './nonce-store';
import type { ParsedSignatureAgent, SignatureAgentMember, SignatureAgentType } from './signature-agent/types';

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

/**
 * What became of the `Content-Digest` (RFC 9530) a signature covers, checked against the
 * message content once the signature itself verified:
 * - `matched`: the content was read and every sha-256 / sha-512 digest in the field matches;
 * - `failed`: a digest does not match (`ERR_DIGEST_MISMATCH`), or the field names no
 *   algorithm botsig checks or is malformed (`ERR_DIGEST_INVALID`): the signature is `invalid`;
 * - `unchecked`: the content could not be read (`ERR_BODY_UNAVAILABLE`: the signature is
 *   `unverified`, or with `headersOnly` stays `verified` unless `requireContentDigest`
 *   applies) or is larger than `maxBodyBytes`
 *   (`ERR_BODY_TOO_LARGE`: the signature is `unverified`). Never a match.
 */
export interface ContentDigestCheck {
  readonly status: 'matched' | 'failed' | 'unchecked';
  /** `matched`: the algorithms whose digests were compared. */
  readonly algorithms?: readonly DigestAlgorithm[];
  /** `failed` / `unchecked`: why. */
  readonly error?: ErrorInfo;
}

/** The request as `requireContentDigest` sees it. */
export interface ContentDigestRequest {
  readonly method: string;
  /** The path, without the query (`/` when the message names none). */
  readonly path: string;
  /** The absolute URL, when the message has one. */
  readonly url?: string;
}

/**
 * Whether signatures must cover `Content-Digest` and have it checked against the content:
 * `true` for every request, or a predicate per request (for example the methods that
 * carry a body, or one route).
 */
export type ContentDigestRequirement = boolean | ((request: ContentDigestRequest) => boolean);

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
   * The agent identifier (draft-ietf-webbotauth-httpsig-protocol-01, "Identifiers and Trust
   * Model"): the URL the verifier resolved, normalised (RFC 3986 §6.2.2–6.2.3) with any query
   * and fragment discarded (a bare origin: its well-known URL); or the key's thumbprint when no
   * URL can be attributed: static keys, and a resolver's key without a valid directory response
   * proof for the covered member's URL. An inline key accepted through a certificate chain is
   * identified by the subject the chain vouches for.
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
  /** Set when the signature covers `content-digest` and verified: whether the content matched. */
  readonly contentDigest?: ContentDigestCheck;
  /**
   * Set when the key came from a Signature Agent Card (`type=cimd`): the card as validated
   * (name, contacts, the `web_bot_auth` metadata), frozen and shared between results.
   */
  readonly card?: SignatureAgentCard;
  readonly error?: ErrorInfo;
}

/** The verdict on a request. */
export interface VerificationResult {
  /** `verified` if any web-bot-auth signature verified; else `invalid` if any failed; else `unverified`. */
  readonly outcome: Outcome;
  /** The first verified signature's agent identifier. */
  readonly agent?: string;
  /**
   * The first verified signature's {@link ContentDigestCheck}, when it covers
   * `content-digest`: a policy that needs body integrity asks for `status === 'matched'`.
   */
  readonly contentDigest?: ContentDigestCheck;
  /** The first verified signature's Signature Agent Card, when its key came from one (`type=cimd`). */
  readonly card?: SignatureAgentCard;
  readonly signatures: readonly SignatureResult[];
  /** True when `Signature`, `Signature-Input` or `Signature-Agent` could not be parsed (SPEC 7: the origin MAY answer 400). */
  readonly malformed: boolean;
  /** Why the request is not verified, when no single signature says it (no signature, bad headers, insecure transport). */
  readonly error?: ErrorInfo;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The directory response that published a key, as someone fetched it: the proof that lets
 * key material the verifier did not fetch itself be attributed to a URL
 * (draft-ietf-webbotauth-httpsig-protocol-01, "Redistributed Key Material").
 */
export interface DirectoryResponseProof {
  /** The URL that was fetched: its authority is the signature's `"@authority";req`, and its identifier the URL attributed. */
  readonly url: string;
  /** The response's fields, at least `signature`, `signature-input` and `content-digest`. */
  readonly headers: HeaderInput;
  /** The response body exactly as served (a string is encoded as UTF-8). */
  readonly body: Uint8Array | string;
}

/** A key a resolver hands back: a public JWK or an imported key, and optionally who it belongs to. */
export interface ResolvedKey {
  readonly key: VerifyingKey | Jwk;
  /**
   * The Signature-Agent URL the key belongs to. A resolver's key is material the verifier did
   * not fetch itself, so it is attributed to a URL only with a `proof` that verifies (draft -01
   * "Redistributed Key Material"): without one the result's `agent` is the key's thumbprint and
   * a diagnostic (`agent-unproven`) says why. With a proof, `agent` may be left out.
   */
  readonly agent?: string;
  /**
   * The directory response that published the key, with its directory response signatures.
   * The request is attributed to the URL of `proof` (normalised, query dropped) when: that URL is
   * the one the Signature-Agent member covered by the signature names; a signature tagged
   * `http-message-signatures-directory` over `"@authority";req` and `content-digest` proves this
   * key; its `created` is not in the future; and it carries an `expires` that has not passed.
   */
  readonly proof?: DirectoryResponseProof;
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
  /** The `kid` the key set gives the key when it is a label (not the thumbprint): `jwks_uri` and `cimd` sets. */
  readonly kid?: string;
}

export interface DirectoryResolution {
  /** The agent identifier: the URL resolved, normalised (RFC 3986 §6.2.2–6.2.3), its query and fragment dropped (draft -01). */
  readonly url: string;
  readonly keys: readonly DirectoryResolvedKey[];
  readonly diagnostics: readonly Diagnostic[];
  /** For a `cimd` member: the Signature Agent Card the keys came from (draft-meunier-webbotauth-registry). */
  readonly card?: SignatureAgentCard;
}

/**
 * What `verifyRequest` needs from a directory client (the `DirectoryClient` class
 * implements it; tests and custom discovery can supply their own).
 * `resolve` throws a `BotsigError` (ERR_DIRECTORY_FETCH, ERR_URL_BLOCKED, …) when
 * discovery fails; the verifier reports `unverified`.
 */
export interface KeyDirectory {
  resolve(member: SignatureAgentMember): Promise<DirectoryResolution>;
  /**
   * Optional: what `resolve` would answer at once from a fresh cache entry, or
   * `undefined` when it would have to fetch, revalidate or wait (no entry, a stale one,
   * an inline member, a refused URL). Never fetches, never throws for the member.
   * `verifyRequest` tries it first: a warm lookup then takes no promise and starts no
   * discovery deadline; on `undefined` it calls `resolve` within the request's budget.
   */
  resolveFresh?(member: SignatureAgentMember): DirectoryResolution | undefined;
}

export type NoncePolicy = 'none' | 'optional' | 'required';

/**
 * Where the keys of one tag's signatures come from:
 * - `'signature-agent'` (Web Bot Auth): static `keys`, then `resolveKey`, then the
 *   directory of the Signature-Agent member the signature covers;
 * - `{ jwksUri }`: a JWK Set at a URL the operator configures (a network's key
 *   directory), fetched through the verifier's `directory` (its guards, cache and
 *   budget); the Signature-Agent header plays no part. The agent identifier is that URL;
 * - `{ keys }`: public keys configured for this tag only (matched like static `keys`).
 * `matchKid`: also match a `keyid` against the key's `kid` (an operator's label), not only
 * its JWK thumbprint. Only for key sets the operator chose.
 */
export type TagKeySource =
  | 'signature-agent'
  | { readonly jwksUri: string; readonly matchKid?: boolean }
  | { readonly keys: ReadonlyArray<Jwk | VerifyingKey>; readonly matchKid?: boolean };

/** The rules for signatures under one tag. Unset members take the verifier's own options. */
export interface TagRules {
  /** Components every signature must cover, beyond `@authority` (or `@target-uri`). Default: `requiredComponents`. */
  readonly requiredComponents?: readonly string[];
  /** Require `@authority` itself rather than accepting `@target-uri`. Default: `strictAuthority`. */
  readonly strictAuthority?: boolean;
  /** Largest `expires - created`. Default: `maxValiditySeconds`. */
  readonly maxValiditySeconds?: number;
  /** Nonce policy. Default: `nonce.policy`. */
  readonly nonce?: NoncePolicy;
  /** Where keys come from. Default `'signature-agent'`. */
  readonly keys?: TagKeySource;
}

/**
 * A verification profile as a value: the signature tags a verifier judges and, per tag,
 * its rules. Signatures under other tags are skipped (`skipped: true`), as SPEC 5.3 rule 2
 * says of tags other than `web-bot-auth`. Without a profile the verifier applies
 * `web-bot-auth` (`WEB_BOT_AUTH_PROFILE`) with its own options.
 */
export interface VerifyProfile {
  /** For messages. */
  readonly name: string;
  /** Tag → rules (at least one tag). */
  readonly tags: Readonly<Record<string, TagRules>>;
}

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
  /**
   * The replay window, in seconds. A signature that carries a nonce is refused as
   * stale (`invalid`, `ERR_NONCE_STALE`) once it was created longer ago than this
   * (plus `clockSkewSeconds`), and its nonce is held until
   * min(`expires`, `created` + window) + skew: the window, not the signer's
   * `expires`, bounds what the store holds. Default 300 (see docs/replay.md).
   */
  readonly windowSeconds?: number;
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
  /**
   * The deployed dialect (docs/drafts.md): a Signature-Agent member whose value is a bare
   * origin (`https://host`, path empty or `/`, no query), in the legacy String or the
   * Dictionary form, resolves through `{origin}/.well-known/http-message-signatures-directory`
   * and is identified by that URL, the same agent as one that sends the well-known URL
   * itself. ChatGPT agent (`"https://chatgpt.com"`) and Google-Agent
   * (`g="https://agent.bot.goog"`) send such values. Default true. `false` reads the value
   * as draft-ietf-webbotauth-httpsig-protocol-01 does: a JWK Set served at the origin itself.
   */
  readonly bareOriginDirectory?: boolean;
  /**
   * Read the earlier drafts' typed Signature-Agent members: `;type=directory|jwks_uri|cimd`
   * and inline `data:` directories (docs/drafts.md). Default false: draft -01 removed the
   * types, and a member that carries any parameter is ignored (diagnostic `member-parameters`).
   */
  readonly typedSignatureAgent?: boolean;
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
   * The tags judged and their rules (see {@link VerifyProfile}). Default: `web-bot-auth`
   * with the options above. The options above are each tag's defaults.
   */
  readonly profile?: VerifyProfile;
  /**
   * Signatures judged per request, in field order. Default 16. Each costs a
   * signature base and possibly a verification, so a request with thousands of
   * signatures would cost the origin thousands of verifications; the rest are
   * `unverified` (`ERR_TOO_MANY_SIGNATURES`) without any work.
   */
  readonly maxSignatures?: number;
  /**
   * The verified-signature memo: an agent may send one signature (without a nonce) on
   * many requests while it is valid; a success is remembered, so the same key, the same
   * signature base and the same signature bytes cost no second crypto call. Every other
   * check (tag, freshness, coverage, authority, algorithm, key lookup, nonce) still runs
   * on every request. Owned by this options object (like the nonce store), bounded to
   * `maxEntries` (default 1,024, oldest forgotten first; bases over 4 KB are not
   * remembered), successes only. Signatures whose nonce the store records are never
   * remembered (a second use is a replay). `false` turns it off.
   */
  readonly verifiedSignatureMemo?:
    | {
        /** Most successful verifications remembered (1 to 1,000,000). Default 1,024. */
        readonly maxEntries?: number;
      }
    | false;
  /**
   * Require `content-digest` to be covered (and checked against the content) for every
   * request (`true`) or those the predicate picks. A signature that does not cover it is
   * `invalid` (`ERR_CONTENT_DIGEST_REQUIRED`); one whose content was not given is
   * `unverified` (`ERR_BODY_UNAVAILABLE`). Default false: a covered digest is still checked
   * whenever the content is given.
   */
  readonly requireContentDigest?: ContentDigestRequirement;
  /**
   * Most bytes of content read to check a covered `Content-Digest`. Default 1 MiB. Larger
   * content makes the signature `unverified` (`ERR_BODY_TOO_LARGE`).
   */
  readonly maxBodyBytes?: number;
  /**
   * Headers-only verification: when a signature covers `content-digest` but the content
   * cannot be read (none was given, a body parser or another reader consumed it first, a
   * `Request` whose body was used), the signature may still be `verified`, with
   * `contentDigest.status === 'unchecked'` and `ERR_BODY_UNAVAILABLE` there: the digest is
   * then the agent's word, not a fact, and whatever reads the body later must check it.
   * For a forward-auth service that never sees bodies. Content that can be read is always
   * checked, and `requireContentDigest` still demands it.
   *
   * Default false (fail closed): such a signature is `unverified` (`ERR_BODY_UNAVAILABLE`).
   */
  readonly headersOnly?: boolean;
}

/**
 * `signatureAgent` as an object: `type` says how to send `url`, never as a parameter
 * (draft-ietf-webbotauth-httpsig-protocol-01): omitted, as the string form; `jwks_uri`, as
 * given even when it is an origin; `directory`, a bare origin as is (the earlier drafts'
 * form). `cimd` is refused.
 */
export interface SignatureAgentInput {
  readonly url: string;
  readonly type?: SignatureAgentType;
}

export interface SignRequestOptions {
  /**
   * A private JWK (imported on first use, then taken from the key cache while the object is
   * unchanged), or a key from `importSigningKey()`, which also imports a `CryptoKey` or
   * `CryptoKeyPair`.
   */
  readonly key: Jwk | SigningKey;
  /** Needed only for RSA JWKs without `alg`. */
  readonly alg?: AlgorithmName;
  /**
   * Required for a `web-bot-auth` signature: the URL of the agent's JWK Set, sent as its
   * `Signature-Agent` member and covered. A bare origin is sent as its well-known directory
   * URL (docs/drafts.md, "Signer").
   */
  readonly signatureAgent?: string | SignatureAgentInput;
  /** Signature label; default the first free `sig<n>`. */
  readonly label?: string;
  /** Extra covered components beyond the profile defaults (e.g. `@method`, `@path`, `content-digest`); needs `extend: fullSigning`. */
  readonly components?: readonly string[];
  /**
   * Let `components` replace `@authority` instead of extending the defaults (e.g.
   * to cover `@target-uri`). The Signature-Agent member stays covered (SPEC 5.2 rule 1).
   * Needs `extend: fullSigning`.
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
  /**
   * Cover `Content-Digest` (RFC 9530): the value `await contentDigestFor(request, 'sha-256')`
   * gave for this request's content. It is returned with the other headers and
   * `content-digest` is covered. Without this option the content is never read.
   *
   * @deprecated as an algorithm name (`'sha-256'`, `'sha-512'`): `signRequest` then reads and
   * digests the content itself, which puts the body code in every bundle of `signRequest`.
   * Still accepted in this release; pass `contentDigestFor()`'s result instead.
   */
  readonly contentDigest?: ContentDigestValue | DigestAlgorithm;
  /** @deprecated with `contentDigest` as an algorithm only: pass `maxBodyBytes` to `contentDigestFor()`. */
  readonly maxBodyBytes?: number;
  /**
   * The general RFC 9421 steps, `fullSigning` (`import { fullSigning } from 'botsig'`), for
   * what the profile's own request does not need: other `components` or
   * `replaceComponents`, a request that already carries signature fields, a message of
   * another shape than a `Request` or `{ url, method?, headers? }`, and `contentDigest` as
   * an algorithm. Without it those give `ERR_FULL_SIGNING_REQUIRED`; a bundle of
   * `signRequest` then carries none of that code.
   */
  readonly extend?: FullSigning;
}

/**
 * What `fullSigning` is: the general RFC 9421 steps of `signRequest` (`profile/sign/full.ts`),
 * handed to it as `extend`. Its parts are internal to botsig.
 */
export interface FullSigning {
  /** @internal The plan for any request `signRequest` accepts. */
  readonly prepare: (request: MessageInput, options: SignRequestOptions, key: SigningKey, contentDigest: string | undefined) => SignaturePlan;
  /** @internal The Content-Digest of the request's content (`contentDigest` as an algorithm). */
  readonly digest: (request: MessageInput, algorithm: DigestAlgorithm, maxBodyBytes: number | undefined) => Promise<string>;
}

/** @internal A signature ready to be made: its base, and how the headers are finished with it. */
export interface SignaturePlan {
  /** The signature base (RFC 9421 §2.5). */
  readonly base: string;
  finish(signature: Uint8Array): SignatureHeaders;
}

/** A `Content-Digest` field value to cover when signing, from `contentDigestFor()`. */
export interface ContentDigestValue {
  /** The field value, e.g. `sha-256=:<base64>:`. */
  readonly value: string;
}

/** Header values to put on the request: complete values (existing members plus the new one). */
export interface SignatureHeaders {
  readonly signature: string;
  readonly 'signature-input': string;
  readonly 'signature-agent'?: string;
  /** With `contentDigest`: the `Content-Digest` value the signature covers. */
  readonly 'content-digest'?: string;
}

export type { NonceStore, ParsedSignatureAgent, SignatureAgentMember, SignatureAgentType };
