/**
 * The state of a verification, by lifetime: {@link Prepared} lives as long as an
 * options object (validated options, static keys, the nonce store, the
 * Signature-Agent parse cache); {@link Context} lives for one request (its
 * message, parsed fields, discovery budget); what a key lookup finds is a
 * {@link Found}. Types and shared constants only.
 */
import type { Diagnostic } from '../../core/diagnostics';
import type { Clock } from '../../core/time';
import type { AlgorithmName, VerifyingKey } from '../../crypto/types';
import type { HttpMessage } from '../../httpsig/message';
import type { ReceivedSignatureInput, SignatureEntry } from '../../httpsig/signature-input';
import type { SignatureAgentCard } from '../card';
import type { NonceStore } from '../nonce-store';
import type { ParsedSignatureAgent, SignatureAgentMember } from '../signature-agent/types';
import type { BotsigError } from '../../core/errors';
import type { MessageInput } from '../../httpsig/message';
import type { ContentDigestRequirement, DirectoryResolution, KeyDelegation, KeySource, NoncePolicy, SignatureParamsView, VerifyRequestOptions } from '../types';
import type { AgentCache } from './agent-cache';
import type { VerifiedMemo } from './verified-memo';

export const NO_DIAGNOSTICS: readonly Diagnostic[] = /* @__PURE__ */ Object.freeze([]);
export const NO_STRINGS: readonly string[] = /* @__PURE__ */ Object.freeze([]);
export const NO_PARAMS: SignatureParamsView = /* @__PURE__ */ Object.freeze({});

/** A value or a promise of it: what each verification step returns. */
export type MaybePromise<T> = T | PromiseLike<T>;

export function isThenable<T>(value: MaybePromise<T>): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** A key found for a signature, and what to report about where it came from. */
export interface Found {
  readonly key: VerifyingKey;
  readonly agent: string;
  readonly source: KeySource;
  /** The member whose directory held the key. */
  readonly member?: SignatureAgentMember;
  /** Set when the directory accepted the key through a certificate chain (SPEC 5.5). */
  readonly delegation?: KeyDelegation;
  /** Set when the key came from a Signature Agent Card (`cimd`). */
  readonly card?: SignatureAgentCard;
}

/**
 * The rules of one tag of a profile (`options.profile`), prepared once: what the
 * checks read instead of the options-wide values when a profile is given.
 */
export interface TagPrepared {
  readonly tag: string;
  readonly required: readonly string[];
  readonly strictAuthority: boolean;
  readonly maxValiditySeconds: number;
  readonly policy: NoncePolicy;
  /** `{ jwksUri }`: the member resolved through `directory` (built once, frozen); `undefined` otherwise. */
  readonly jwks: SignatureAgentMember | undefined;
  /** `{ keys }`: set once imported (by thumbprint, and by `kid` with `matchKid`); `undefined` otherwise. */
  staticKeys: Map<string, Found> | undefined;
  /** Whether a keyid may name a key by its `kid`. */
  readonly matchKid: boolean;
  /** False for `'signature-agent'`: keys come from somewhere the request does not name. */
  readonly ownKeys: boolean;
}

/** Per-options state, validated and built once (options objects are read once, never mutated). */
export interface Prepared {
  /** Set once the static keys are imported. */
  staticKeys: Map<string, Found> | undefined;
  pendingKeys: Promise<Map<string, Found>> | undefined;
  readonly algorithms: ReadonlySet<AlgorithmName>;
  readonly required: readonly string[];
  readonly skewSeconds: number;
  readonly maxValiditySeconds: number;
  readonly policy: NoncePolicy;
  /** The caller's store, or one this options object owns (never one shared by unrelated callers). */
  readonly store: NonceStore;
  readonly maxNonceLength: number;
  /** The replay window (`nonce.windowSeconds`): a nonce-carrying signature older than this is stale, and its nonce is held no longer. */
  readonly nonceWindowSeconds: number;
  /** Normalised `@authority` values this origin answers to; `undefined`: any. */
  readonly authorities: ReadonlySet<string> | undefined;
  readonly maxDirectories: number;
  /** Signatures judged per request; the rest are `unverified` (`ERR_TOO_MANY_SIGNATURES`). */
  readonly maxSignatures: number;
  readonly discoveryTimeoutMs: number;
  readonly now: Clock;
  /** Signature-Agent values this options object has parsed (with its `allowHttp` rule). */
  readonly agents: AgentCache;
  /** `requireContentDigest` as given (`undefined` or `false`: not required). */
  readonly requireContentDigest: ContentDigestRequirement | undefined;
  /** Most bytes of content read to check a covered Content-Digest. */
  readonly maxBodyBytes: number;
  /** `headersOnly`: a covered digest whose content cannot be read leaves the signature verified (unchecked). */
  readonly headersOnly: boolean;
  /** Successful verifications of reusable signatures (`verifiedSignatureMemo`); `undefined` when turned off. */
  readonly verifiedMemo: VerifiedMemo | undefined;
  /** `options.profile` by tag; `undefined` for the default (`web-bot-auth` with the options-wide rules). */
  readonly tags: ReadonlyMap<string, TagPrepared> | undefined;
  /** The profile's name, for messages. */
  readonly profileName: string;
}

/** One request's discovery deadline. */
export interface Deadline {
  readonly expired: Promise<never>;
  readonly timer: ReturnType<typeof setTimeout>;
  passed: boolean;
}

/** Per-request state, shared by the request's signatures. */
export interface Context {
  readonly message: HttpMessage;
  readonly options: VerifyRequestOptions;
  readonly p: Prepared;
  readonly nowMs: number;
  /** Present when the request carries a non-empty Signature-Agent. */
  readonly agentHeader: ParsedSignatureAgent | undefined;
  readonly entries: Map<string, SignatureEntry<ReceivedSignatureInput>>;
  diagnostics: Diagnostic[] | undefined;
  /** Whether the request's `@authority` is one of `authorities` (computed on first need). */
  authorityAllowed: boolean | undefined;
  /** Directory lookups of this request by member (an answer, or a promise of one), shared by its signatures (the discovery budget). */
  lookups: Map<string, MaybePromise<DirectoryResolution>> | undefined;
  /** The request's discovery deadline, started by its first lookup. */
  deadline: Deadline | undefined;
  /** The request as given (a `Request`, a message object): where its content is read from. */
  readonly input: MessageInput;
  /** The content, read once by the first signature that needs it (or why it could not be). */
  body: Promise<Uint8Array | BotsigError> | undefined;
  /** Whether `requireContentDigest` applies to this request (asked on first need). */
  contentDigestRequired: boolean | undefined;
}
