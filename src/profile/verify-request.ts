import type { KeyDelegation } from '../directory/delegation';
import type { Diagnostic } from '../core/diagnostics';
import { BotsigError, isBotsigError, type BotsigErrorCode } from '../core/errors';
import { systemClock, type Clock } from '../core/time';
import { checkOptionNames } from '../core/options';
import { importVerifyingKey, isVerifyingKey, keyForAlgorithm, verifyBase } from '../crypto/keys';
import { ALGORITHMS, isAlgorithmName, toAlgorithmName } from '../crypto/registry';
import { isRfc9421TestKey } from '../crypto/test-keys';
import type { AlgorithmName, BoundVerifyingKey, Jwk, VerifyingKey } from '../crypto/types';
import { createReceivedSignatureBase } from '../httpsig/base';
import { parseComponentIdentifier, serializeComponentIdentifier } from '../httpsig/components';
import { messageTarget, parseTargetUri, toReceivedMessage, type HttpMessage, type MessageInput } from '../httpsig/message';
import { readSignaturesWithTexts, signatureParams, type ReceivedSignatureInput, type SignatureEntry, type SignatureInput } from '../httpsig/signature-input';
import { MemoryNonceStore, type NonceStore } from '../stores/nonce-store';
import { publicJwkProblem } from './key-check';
import { parseSignatureAgent, type ParsedSignatureAgent, type ParseSignatureAgentOptions, type SignatureAgentMember } from './signature-agent';
import {
  WEB_BOT_AUTH_TAG,
  type ErrorInfo,
  type KeySource,
  type NoncePolicy,
  type Outcome,
  type DirectoryResolution,
  type ResolvedKey,
  type SignatureParamsView,
  type SignatureResult,
  type VerificationResult,
  type VerifyRequestOptions,
} from './types';

const DEFAULT_SKEW_SECONDS = 60;
const DEFAULT_MAX_VALIDITY_SECONDS = 86_400;
/**
 * Members of a Signature-Agent covered whole (first revision's String form, SPEC
 * 2.3) tried in order against the directory; bounds the fetches one request causes.
 */
const MAX_AGENT_CANDIDATES = 4;
/** Longest nonce remembered by default; longer ones are refused before the store sees them. */
const DEFAULT_MAX_NONCE_LENGTH = 256;
/** Distinct directories (Signature-Agent members) one request may make the verifier look up. */
const DEFAULT_MAX_DIRECTORIES = 4;
/** One deadline over all key discovery a request causes. */
const DEFAULT_DISCOVERY_TIMEOUT_MS = 5_000;

const DEFAULT_ALGORITHMS: ReadonlySet<AlgorithmName> = new Set(ALGORITHMS);
const NO_MEMBERS: readonly SignatureAgentMember[] = Object.freeze([]);
const NO_DIAGNOSTICS: readonly Diagnostic[] = Object.freeze([]);
const NO_STRINGS: readonly string[] = Object.freeze([]);
const NO_PARAMS: SignatureParamsView = Object.freeze({});

/** Per-options state, validated and built once (options objects are read once, never mutated). */
interface Prepared {
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
  /** Normalised `@authority` values this origin answers to; `undefined`: any. */
  readonly authorities: ReadonlySet<string> | undefined;
  readonly maxDirectories: number;
  readonly discoveryTimeoutMs: number;
  readonly now: Clock;
  readonly agentOptions: ParseSignatureAgentOptions;
}
const DEFAULT_OPTIONS: VerifyRequestOptions = Object.freeze({});
const preparedByOptions = new WeakMap<VerifyRequestOptions, Prepared>();
const staticKeysByArray = new WeakMap<ReadonlyArray<Jwk | VerifyingKey>, Promise<Map<string, Found>>>();

/**
 * Verifies the Web Bot Auth signatures of a request (SPEC 5.3; RFC 9421 §3.2).
 *
 * Never throws for anything the request contains: every problem becomes an
 * outcome with a code. Each signature is judged on its own; the request is
 * `verified` when at least one `web-bot-auth` signature verifies, `invalid` when
 * none does and at least one failed a check, and `unverified` otherwise (no
 * signature, unknown key, failed discovery, insecure transport, nonce store down).
 *
 * Per signature, cheapest first: the member parses; tag `web-bot-auth` (others are
 * skipped, not failed); `created`/`expires` present and fresh within
 * `clockSkewSeconds` (compared in whole seconds, their resolution); validity at
 * most `maxValiditySeconds`; `@authority` (or `@target-uri`) and
 * `requiredComponents` covered; a covered signature's inputs covered too (NOTES);
 * a Signature-Agent member covered whenever the header is present; `alg` known and
 * allowed; `keyid` present; a nonce when the policy requires one; RFC 9421 example
 * keys refused; the signature base built; the key found for the pair (agent URL,
 * keyid); `alg` matching the key; the signature itself; finally the nonce recorded
 * (only a valid signature may consume one).
 *
 * Options are validated and prepared once per options object (keep one object per
 * verifier): static keys are imported once, then every request costs one header
 * parse, one base and one verify per signature.
 *
 * @throws TypeError only for misuse: `request` not an object, options of the wrong
 *   type or out of range, a static key that cannot be imported.
 * @example
 * const directory = new DirectoryClient();
 * const options = { directory };
 * const result = await verifyRequest(request, options);
 * if (result.outcome === 'verified') console.log('bot', result.agent);
 */
export async function verifyRequest(request: MessageInput, options: VerifyRequestOptions = DEFAULT_OPTIONS): Promise<VerificationResult> {
  if (typeof request !== 'object' || request === null) throw new TypeError('verifyRequest expects a Request or a { method, url, headers } object');
  const prepared = prepare(options);
  if (prepared.staticKeys === undefined && prepared.pendingKeys !== undefined) await loadStaticKeys(prepared);
  try {
    // Synchronous to the end unless a key lookup, the crypto provider or the nonce
    // store answers with a promise: no microtask per step on the common path.
    const result = verify(request, options, prepared);
    return isThenable(result) ? await result : result;
  } catch (error) {
    // Only a defect in botsig (or a callback that breaks its contract) gets here;
    // the contract is to report, not throw, and never to report `verified`.
    return requestResult('unverified', false, toInfo(error, 'ERR_INTERNAL'), NO_DIAGNOSTICS);
  }
}

/** A value or a promise of it: what each verification step returns. */
type MaybePromise<T> = T | PromiseLike<T>;

function isThenable<T>(value: MaybePromise<T>): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

interface Context {
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
  /** Directory lookups of this request by member, shared by its signatures (the discovery budget). */
  lookups: Map<string, Promise<DirectoryResolution>> | undefined;
  /** The request's discovery deadline, started by its first lookup. */
  deadline: Deadline | undefined;
}

interface Deadline {
  readonly expired: Promise<never>;
  readonly timer: ReturnType<typeof setTimeout>;
  passed: boolean;
}

function verify(request: MessageInput, options: VerifyRequestOptions, p: Prepared): MaybePromise<VerificationResult> {
  let message: HttpMessage;
  try {
    message = toReceivedMessage(request);
  } catch (error) {
    return requestResult('unverified', false, toInfo(error, 'ERR_MESSAGE_INVALID'), NO_DIAGNOSTICS);
  }
  let entries: Map<string, SignatureEntry<ReceivedSignatureInput>>;
  try {
    entries = readSignaturesWithTexts(message);
  } catch (error) {
    // A whole field is not a Dictionary (SPEC 5.3 rule 1, SPEC 7: MAY answer 400).
    return requestResult('invalid', true, toInfo(error, 'ERR_SIGNATURE_INPUT_PARSE'), NO_DIAGNOSTICS);
  }
  if (entries.size === 0) {
    return requestResult('unverified', false, { code: 'ERR_NO_SIGNATURE', message: 'the request carries no signature' }, NO_DIAGNOSTICS);
  }

  let malformed = false;
  for (const entry of entries.values()) {
    if (!entry.ok && entry.error.code !== 'ERR_LABEL_MISSING') malformed = true;
  }
  let agentHeader: ParsedSignatureAgent | undefined;
  const agentLines = message.headers.get('signature-agent');
  if (agentLines !== undefined && agentLines.length > 0) {
    const parsed = parsedSignatureAgent(agentLines, p);
    // Only blank lines: nothing was sent.
    if (parsed.form !== 'absent' || parsed.ignored) agentHeader = parsed;
    if (parsed.ignored) malformed = true;
  }
  const agentDiagnostics = agentHeader === undefined || agentHeader.diagnostics.length === 0 ? NO_DIAGNOSTICS : agentHeader.diagnostics;

  if (!options.allowInsecure && isPlainHttp(message.url)) {
    return requestResult(
      'unverified',
      malformed,
      { code: 'ERR_INSECURE_TRANSPORT', message: 'signature received over plain HTTP (SPEC 5.3 rule 6); set allowInsecure to accept it' },
      agentDiagnostics,
    );
  }

  const nowMs = p.now();
  // A clock that gives no number would make every freshness comparison false, i.e. pass.
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) {
    return requestResult('unverified', malformed, { code: 'ERR_INTERNAL', message: 'options.now returned no usable time' }, agentDiagnostics);
  }
  const ctx: Context = { message, options, p, nowMs, agentHeader, entries, diagnostics: undefined, authorityAllowed: undefined, lookups: undefined, deadline: undefined };
  const results: SignatureResult[] = [];
  if (options.label === undefined) {
    const rest = entries.values();
    for (let next = rest.next(); next.done !== true; next = rest.next()) {
      const r = verifyOne(ctx, next.value);
      if (isThenable(r)) return verifyRest(ctx, r, rest, results, malformed, agentDiagnostics);
      results.push(r);
    }
  } else {
    const entry = entries.get(options.label);
    if (entry === undefined) {
      return requestResult('unverified', malformed, { code: 'ERR_LABEL_MISSING', message: 'the request has no signature with the requested label' }, agentDiagnostics);
    }
    const r = verifyOne(ctx, entry);
    if (isThenable(r)) return verifyRest(ctx, r, undefined, results, malformed, agentDiagnostics);
    results.push(r);
  }
  return summarise(ctx, results, malformed, agentDiagnostics);
}

/** The signatures left once one step went asynchronous, still one after another. */
async function verifyRest(
  ctx: Context,
  pending: PromiseLike<SignatureResult>,
  rest: Iterator<SignatureEntry<ReceivedSignatureInput>> | undefined,
  results: SignatureResult[],
  malformed: boolean,
  agentDiagnostics: readonly Diagnostic[],
): Promise<VerificationResult> {
  results.push(await pending);
  if (rest !== undefined) {
    for (let next = rest.next(); next.done !== true; next = rest.next()) results.push(await verifyOne(ctx, next.value));
  }
  return summarise(ctx, results, malformed, agentDiagnostics);
}

function summarise(ctx: Context, results: SignatureResult[], malformed: boolean, agentDiagnostics: readonly Diagnostic[]): VerificationResult {
  if (ctx.deadline !== undefined) clearTimeout(ctx.deadline.timer);
  let outcome: Outcome = 'unverified';
  let verified: SignatureResult | undefined;
  for (const r of results) {
    if (r.outcome === 'verified') {
      outcome = 'verified';
      verified = r;
      break;
    }
    if (r.outcome === 'invalid') outcome = 'invalid';
  }
  const diagnostics = ctx.diagnostics === undefined ? agentDiagnostics : [...agentDiagnostics, ...ctx.diagnostics];
  const result: { -readonly [K in keyof VerificationResult]: VerificationResult[K] } = { outcome, signatures: results, malformed, diagnostics };
  if (verified !== undefined) {
    if (verified.agent !== undefined) result.agent = verified.agent;
    return result;
  }
  const explaining = results.find((r) => r.outcome === outcome && r.error !== undefined) ?? results.find((r) => r.error !== undefined);
  if (explaining?.error !== undefined) result.error = explaining.error;
  return result;
}

/** What is known about one signature so far; turned into a {@link SignatureResult} by {@link finish}. */
interface Draft {
  readonly label: string;
  covered: readonly string[];
  params: SignatureParamsView;
  agent?: string;
  signatureAgent?: SignatureAgentMember;
  keySource?: KeySource;
  delegation?: KeyDelegation;
}

function finish(d: Draft, outcome: Outcome, error?: ErrorInfo, skipped = false): SignatureResult {
  const r: { -readonly [K in keyof SignatureResult]: SignatureResult[K] } = { label: d.label, outcome, skipped, params: d.params, covered: d.covered };
  const { keyid, alg, tag } = d.params;
  if (keyid !== undefined) r.keyid = keyid;
  if (alg !== undefined) r.alg = alg;
  if (tag !== undefined) r.tag = tag;
  if (d.agent !== undefined) r.agent = d.agent;
  if (d.signatureAgent !== undefined) r.signatureAgent = d.signatureAgent;
  if (d.keySource !== undefined) r.keySource = d.keySource;
  if (d.delegation !== undefined) r.delegation = d.delegation;
  if (error !== undefined) r.error = error;
  return r;
}

function fail(d: Draft, outcome: 'invalid' | 'unverified', code: BotsigErrorCode, message: string): SignatureResult {
  return finish(d, outcome, { code, message });
}

function verifyOne(ctx: Context, entry: SignatureEntry<ReceivedSignatureInput>): MaybePromise<SignatureResult> {
  const { p, options } = ctx;
  const label = entry.label;
  const d: Draft = { label, covered: NO_STRINGS, params: NO_PARAMS };
  if (entry.input !== undefined) d.covered = coveredOf(entry.input);
  if (!entry.ok) return finish(d, 'invalid', toInfo(entry.error, 'ERR_SIGNATURE_INPUT_PARSE'));
  const input = entry.input;

  // SPEC 5.3 rule 2: other profiles' signatures are left alone, whatever they contain.
  let params: SignatureParamsView | undefined = input.view;
  if (!taggedWebBotAuth(input)) {
    try {
      d.params = params ?? signatureParams(input.params);
    } catch {
      // Not ours to judge: report without a typed view.
    }
    return finish(d, 'unverified', { code: 'ERR_TAG_MISMATCH', message: `signature "${label}" is not tagged web-bot-auth; skipped` }, true);
  }
  if (params === undefined) {
    try {
      params = signatureParams(input.params);
    } catch (error) {
      return finish(d, 'invalid', toInfo(error, 'ERR_PARAM_INVALID'));
    }
  }
  d.params = params;

  // Freshness (SPEC 5.1: created and expires are required). Both are whole seconds,
  // so the clock is compared at that resolution: a signature created during the
  // current second is not "in the future", and one expiring during it has not expired.
  const { created, expires } = params;
  if (created === undefined) return fail(d, 'invalid', 'ERR_CREATED_MISSING', `signature "${label}" has no created parameter`);
  if (expires === undefined) return fail(d, 'invalid', 'ERR_EXPIRES_MISSING', `signature "${label}" has no expires parameter`);
  if (created > Math.ceil(ctx.nowMs / 1000) + p.skewSeconds) {
    return fail(d, 'invalid', 'ERR_CREATED_IN_FUTURE', `signature "${label}" was created in the future`);
  }
  if (expires < Math.floor(ctx.nowMs / 1000) - p.skewSeconds) return fail(d, 'invalid', 'ERR_SIGNATURE_EXPIRED', `signature "${label}" has expired`);
  if (expires < created) return fail(d, 'invalid', 'ERR_PARAM_INVALID', `signature "${label}" expires before it was created`);
  if (expires - created > p.maxValiditySeconds) {
    return fail(d, 'invalid', 'ERR_VALIDITY_TOO_LONG', `signature "${label}" is valid for longer than ${p.maxValiditySeconds} s`);
  }

  // Coverage (SPEC 5.1, NOTES "Signing profile").
  const coverageError = checkCoverage(input, d.covered, ctx, options.strictAuthority === true);
  if (coverageError !== undefined) return fail(d, 'invalid', 'ERR_REQUIRED_COMPONENT', coverageError);
  // The origin's own names: a signature made for another site is refused before any key work.
  if (p.authorities !== undefined && !authorityAllowed(ctx)) {
    return fail(d, 'invalid', 'ERR_AUTHORITY_NOT_ALLOWED', `signature "${label}" was made for an authority this origin does not answer to`);
  }
  const candidates = agentCandidates(input, ctx.agentHeader);
  if (candidates === undefined) {
    return fail(d, 'invalid', 'ERR_SIGNATURE_AGENT_NOT_COVERED', `signature "${label}" does not cover the Signature-Agent header (SPEC 5.2 rule 1)`);
  }
  if (candidates.length > 0) d.signatureAgent = candidates[0]!;

  let alg: AlgorithmName | undefined;
  if (params.alg !== undefined) {
    try {
      alg = toAlgorithmName(params.alg);
    } catch (error) {
      return finish(d, 'invalid', toInfo(error, 'ERR_ALG_UNKNOWN'));
    }
    if (!p.algorithms.has(alg)) return fail(d, 'invalid', 'ERR_ALG_NOT_ALLOWED', `algorithm ${alg} is not allowed here`);
  }
  const keyid = params.keyid;
  if (keyid === undefined) return fail(d, 'invalid', 'ERR_PARAM_INVALID', `signature "${label}" has no keyid (SPEC 5.1)`);
  if (p.policy === 'required' && params.nonce === undefined) return fail(d, 'invalid', 'ERR_NONCE_MISSING', `signature "${label}" has no nonce`);
  if (p.policy !== 'none' && params.nonce !== undefined && params.nonce.length > p.maxNonceLength) {
    return fail(d, 'invalid', 'ERR_NONCE_TOO_LONG', `the nonce of signature "${label}" is longer than ${p.maxNonceLength} characters`);
  }
  // Keys are matched by thumbprint = keyid, so the example keys are known by keyid alone.
  if (!options.allowTestKeys && isRfc9421TestKey(keyid)) {
    return fail(d, 'invalid', 'ERR_KEY_TEST_KEY', 'the key is a public RFC 9421 example key; set allowTestKeys to accept it');
  }

  // The base before the key: a signature over absent or malformed components is
  // invalid whoever signed it, and no directory is fetched for it.
  let base: string;
  try {
    base = createReceivedSignatureBase(ctx.message, input);
  } catch (error) {
    return finish(d, 'invalid', toInfo(error, 'ERR_COMPONENT_INVALID'));
  }

  const signature = entry.signature;
  const staticKey = p.staticKeys?.get(keyid);
  if (staticKey !== undefined) return withKey(ctx, d, staticKey, alg, base, signature, keyid, params.nonce, expires);
  return findKey(ctx, label, keyid, params.alg, candidates).then(
    (found) => {
      if (found !== undefined) return withKey(ctx, d, found, alg, base, signature, keyid, params.nonce, expires);
      if (options.directory !== undefined && candidates.length === 0 && ctx.agentHeader !== undefined) {
        return fail(d, 'unverified', 'ERR_SIGNATURE_AGENT_INVALID', `the Signature-Agent member covered by "${label}" is not usable (see diagnostics); its keys cannot be found`);
      }
      return fail(d, 'unverified', 'ERR_KEY_UNKNOWN', `no key known for the keyid of signature "${label}"`);
    },
    (error: unknown) => finish(d, 'unverified', toInfo(error, 'ERR_DIRECTORY_FETCH')),
  );
}

/** With the key found: `alg` against the key, the signature itself, then the nonce. */
function withKey(
  ctx: Context,
  d: Draft,
  found: Found,
  alg: AlgorithmName | undefined,
  base: string,
  signature: Uint8Array,
  keyid: string,
  nonce: string | undefined,
  expires: number,
): MaybePromise<SignatureResult> {
  const p = ctx.p;
  d.agent = found.agent;
  d.keySource = found.source;
  if (found.delegation !== undefined) d.delegation = found.delegation;
  if (found.member !== undefined) d.signatureAgent = found.member;
  // RFC 9421 §3.2 step 6. A key bound to an algorithm (key type, JWK alg, configuration)
  // costs the same comparisons as before; a key that names none (an RSA JWK without alg)
  // is bound to the signature's alg from bindings made at import; when the signature
  // names none either, nothing does: ERR_ALG_UNKNOWN.
  let key: BoundVerifyingKey;
  if (found.key.alg !== undefined && (alg === undefined || alg === found.key.alg)) {
    key = found.key as BoundVerifyingKey;
  } else {
    const bound = keyForAlgorithm(found.key, alg);
    if (isBotsigError(bound)) return fail(d, 'invalid', bound.code, bound.message);
    key = bound;
  }
  if (!p.algorithms.has(key.alg)) return fail(d, 'invalid', 'ERR_ALG_NOT_ALLOWED', `algorithm ${key.alg} is not allowed here`);

  let ok: MaybePromise<boolean>;
  try {
    ok = verifyBase(key, base, signature);
  } catch {
    ok = false;
  }
  if (isThenable(ok)) {
    return Promise.resolve(ok).then(
      (v) => withSignature(ctx, d, v === true, keyid, nonce, expires),
      () => withSignature(ctx, d, false, keyid, nonce, expires),
    );
  }
  return withSignature(ctx, d, ok === true, keyid, nonce, expires);
}

/** After the signature check: only a valid signature may consume its nonce. */
function withSignature(ctx: Context, d: Draft, ok: boolean, keyid: string, nonce: string | undefined, expires: number): MaybePromise<SignatureResult> {
  if (!ok) return fail(d, 'invalid', 'ERR_SIGNATURE_INVALID', `signature "${d.label}" does not verify`);
  const p = ctx.p;
  if (p.policy === 'none' || nonce === undefined) return finish(d, 'verified');
  let fresh: unknown;
  try {
    // Remembered for as long as the signature is accepted: through the last whole
    // second that passes the expiry check.
    // Scoped by agent identity: the unit a store shares its capacity fairly between.
    fresh = p.store.checkAndRecord(d.agent!, nonce, (expires + p.skewSeconds + 1) * 1000, ctx.nowMs);
  } catch (error) {
    fresh = error;
  }
  if (isThenable(fresh)) {
    return Promise.resolve(fresh).then(
      (v) => withNonce(d, v),
      (error: unknown) => withNonce(d, error),
    );
  }
  return withNonce(d, fresh);
}

/** `fresh`: the store's answer, or what it threw. */
function withNonce(d: Draft, fresh: unknown): SignatureResult {
  if (typeof fresh !== 'boolean') {
    if (isBotsigError(fresh) && (fresh.code === 'ERR_NONCE_QUOTA_EXCEEDED' || fresh.code === 'ERR_NONCE_TOO_LONG')) {
      return fail(d, fresh.code === 'ERR_NONCE_TOO_LONG' ? 'invalid' : 'unverified', fresh.code, fresh.message);
    }
    return fail(d, 'unverified', 'ERR_NONCE_STORE_UNAVAILABLE', 'the nonce store could not be consulted; the nonce is unchecked');
  }
  if (!fresh) return fail(d, 'invalid', 'ERR_NONCE_REPLAYED', `the nonce of signature "${d.label}" was already used`);
  return finish(d, 'verified');
}

function taggedWebBotAuth(input: ReceivedSignatureInput): boolean {
  if (input.view !== undefined) return input.view.tag === WEB_BOT_AUTH_TAG;
  const tag = input.params.get('tag');
  return tag !== undefined && tag.type === 'string' && tag.value === WEB_BOT_AUTH_TAG;
}

/** Whether the request's `@authority` (the host of `@target-uri`: the same value) is the origin's own. */
function authorityAllowed(ctx: Context): boolean {
  if (ctx.authorityAllowed === undefined) {
    let authority: string | undefined;
    try {
      authority = messageTarget(ctx.message).authority;
    } catch {
      authority = undefined;
    }
    ctx.authorityAllowed = authority !== undefined && ctx.p.authorities!.has(authority);
  }
  return ctx.authorityAllowed;
}

/**
 * `authorities` as the set of `@authority` values they stand for: lowercase host,
 * port kept unless it is the default of the scheme the request arrives with.
 */
function prepareAuthorities(list: unknown): ReadonlySet<string> | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.length === 0) throw new TypeError('options.authorities must be a non-empty array of host or host:port strings');
  const out = new Set<string>();
  for (const entry of list as unknown[]) {
    const https = typeof entry === 'string' && /^[^/?#@\\\s]+$/.test(entry) ? parseTargetUri(`https://${entry}/`) : undefined;
    const http = https === undefined ? undefined : parseTargetUri(`http://${entry as string}/`);
    if (https === undefined || http === undefined || https.path !== '/') {
      throw new TypeError(`options.authorities: ${JSON.stringify(entry)} is not a host or host:port`);
    }
    out.add(https.authority);
    out.add(http.authority);
  }
  return out;
}

function coveredOf(input: ReceivedSignatureInput): readonly string[] {
  const n = input.components.length;
  if (n === 0) return NO_STRINGS;
  // As received when canonical: the same strings, in an array made for this input.
  if (input.idTexts !== undefined) return input.idTexts;
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = serializeComponentIdentifier(input.components[i]!);
  return out;
}

/**
 * SPEC 5.1 / NOTES: `@authority` (or `@target-uri` unless strict) covered, the
 * configured components covered, and a covered signature (`"signature";key=X`)
 * accompanied by `"signature-input";key=X` and every component X covers.
 */
function checkCoverage(input: SignatureInput, covered: readonly string[], ctx: Context, strict: boolean): string | undefined {
  const label = input.label;
  let authority = false;
  let targetUri = false;
  let coversSignature = false;
  for (const c of input.components) {
    if (c.name === '@authority') authority = true;
    else if (c.name === '@target-uri') targetUri = true;
    else if (c.name === 'signature') coversSignature = true;
  }
  if (!authority && (strict || !targetUri)) return `signature "${label}" covers neither @authority${strict ? '' : ' nor @target-uri'}`;
  for (const required of ctx.p.required) {
    if (!covered.includes(required)) return `signature "${label}" does not cover ${required}`;
  }
  if (!coversSignature) return undefined;
  const have = new Set(covered);
  for (const c of input.components) {
    if (c.name !== 'signature') continue;
    const key = c.params.get('key');
    if (key === undefined || key.type !== 'string') return `signature "${label}" covers the whole Signature field; cover one member with ;key`;
    const inner = ctx.entries.get(key.value)?.input;
    if (inner === undefined) return `signature "${label}" covers a signature that has no Signature-Input`;
    if (!have.has(serializeComponentIdentifier({ name: 'signature-input', params: c.params }))) {
      return `signature "${label}" covers signature "${key.value}" but not its Signature-Input`;
    }
    for (const ic of inner.components) {
      if (!have.has(serializeComponentIdentifier(ic))) return `signature "${label}" covers signature "${key.value}" but not every component it covers`;
    }
  }
  return undefined;
}

/**
 * The Signature-Agent members a signature binds, in the order to try them, or
 * `undefined` when the header is present and the signature covers none of it.
 * - `"signature-agent";key="K"`: the member keyed K (whatever the label: the draft
 *   signs label `sig2` over member `agent2`).
 * - `"signature-agent"` (the whole field, earlier revisions): the signer vouched for
 *   every value; for the first revision's String form they are tried in order, the
 *   first that yields the key wins (SPEC 2.3). For a Dictionary, the member keyed by
 *   the label comes first.
 * An empty list means nothing usable is bound (no header, or the member was dropped).
 */
function agentCandidates(input: SignatureInput, header: ParsedSignatureAgent | undefined): readonly SignatureAgentMember[] | undefined {
  let whole = false;
  let memberKey: string | undefined;
  let covers = false;
  for (const c of input.components) {
    if (c.name !== 'signature-agent') continue;
    covers = true;
    const key = c.params.get('key');
    if (key === undefined) whole = true;
    else if (key.type === 'string' && memberKey === undefined) memberKey = key.value;
  }
  if (header === undefined) return NO_MEMBERS;
  if (!covers) return undefined;
  const members = header.members;
  if (members.length === 0) return NO_MEMBERS;
  if (memberKey !== undefined) {
    const m = memberByKey(header, memberKey);
    if (m !== undefined) return [m];
    if (!whole) return NO_MEMBERS;
  }
  if (members.length === 1) return members;
  const ordered: SignatureAgentMember[] = [];
  if (header.form === 'dictionary') {
    for (const m of members) if (m.key === input.label) ordered.push(m);
  }
  for (const m of members) {
    if (ordered.length >= MAX_AGENT_CANDIDATES) break;
    if (ordered[0] !== m) ordered.push(m);
  }
  return ordered;
}

// A request with thousands of signatures and members must not cost signatures × members.
const MEMBER_INDEX_THRESHOLD = 8;
const memberIndexes = new WeakMap<ParsedSignatureAgent, Map<string, SignatureAgentMember>>();

/** The first member keyed `key` (a header parsed once per request, indexed once when large). */
function memberByKey(header: ParsedSignatureAgent, key: string): SignatureAgentMember | undefined {
  const members = header.members;
  if (members.length <= MEMBER_INDEX_THRESHOLD) {
    for (const m of members) if (m.key === key) return m;
    return undefined;
  }
  let index = memberIndexes.get(header);
  if (index === undefined) {
    index = new Map();
    for (const m of members) if (m.key !== undefined && !index.has(m.key)) index.set(m.key, m);
    memberIndexes.set(header, index);
  }
  return index.get(key);
}

interface Found {
  readonly key: VerifyingKey;
  readonly agent: string;
  readonly source: KeySource;
  /** The member whose directory held the key. */
  readonly member?: SignatureAgentMember;
  /** Set when the directory accepted the key through a certificate chain (SPEC 5.5). */
  readonly delegation?: KeyDelegation;
}

/**
 * The key for (agent URL, keyid) (NOTES "Keys and identity") when no static key
 * has that keyid: static keys (looked up before) and a resolver answer by keyid and identify the agent by thumbprint (or by what the
 * resolver says); a directory is asked only about the members this signature
 * covers, so a key learned from one directory never verifies a claim of another.
 */
async function findKey(
  ctx: Context,
  label: string,
  keyid: string,
  alg: string | undefined,
  candidates: readonly SignatureAgentMember[],
): Promise<Found | undefined> {
  const options = ctx.options;
  const first = candidates[0];
  if (options.resolveKey !== undefined) {
    const lookup = { keyid, label, ...(alg === undefined ? {} : { alg }), ...(first === undefined ? {} : { signatureAgent: first }) };
    const resolved = await options.resolveKey(lookup);
    if (resolved !== undefined && resolved !== null) {
      const { key, agent } = await fromResolved(resolved);
      if (key.thumbprint === keyid) return { key, agent: agent ?? key.thumbprint, source: 'resolver' };
    }
  }
  const directory = options.directory;
  if (directory === undefined || first === undefined) return undefined;
  let failure: unknown;
  for (const member of candidates) {
    let resolution;
    try {
      resolution = await lookup(ctx, directory, member);
    } catch (error) {
      // SPEC 2.3: with several values, the first that yields a directory is used.
      failure ??= error;
      continue;
    }
    if (resolution.diagnostics.length > 0) (ctx.diagnostics ??= []).push(...resolution.diagnostics);
    for (const entry of resolution.keys) {
      if (entry.thumbprint === keyid) {
        const delegation = (entry as { delegation?: KeyDelegation }).delegation;
        return { key: entry.key, agent: entry.agent ?? resolution.url, source: 'directory', member, ...(delegation === undefined ? {} : { delegation }) };
      }
    }
  }
  if (failure !== undefined) throw failure;
  return undefined;
}

/**
 * One directory lookup on behalf of this request, within its discovery budget:
 * each distinct member is looked up once however many signatures name it, at most
 * `discovery.maxDirectories` distinct members per request, and all of them within
 * one deadline. Beyond the budget a signature is `unverified` (`ERR_DISCOVERY_BUDGET`).
 */
function lookup(ctx: Context, directory: NonNullable<VerifyRequestOptions['directory']>, member: SignatureAgentMember): Promise<DirectoryResolution> {
  const lookups = (ctx.lookups ??= new Map());
  const id = member.type + ' ' + member.url;
  const known = lookups.get(id);
  if (known !== undefined) return known;
  if (ctx.deadline?.passed === true) {
    return Promise.reject(new BotsigError('ERR_DISCOVERY_BUDGET', `key discovery for this request passed its ${ctx.p.discoveryTimeoutMs} ms deadline`));
  }
  if (lookups.size >= ctx.p.maxDirectories) {
    return Promise.reject(new BotsigError('ERR_DISCOVERY_BUDGET', `this request names more than ${ctx.p.maxDirectories} key directories; the rest are not looked up`));
  }
  const deadline = (ctx.deadline ??= startDeadline(ctx.p.discoveryTimeoutMs));
  let pending: Promise<DirectoryResolution>;
  try {
    // The race only stops this request waiting; a fetch shared with others goes on, bounded by the directory's own limits.
    pending = Promise.race([directory.resolve(member), deadline.expired]);
  } catch (error) {
    pending = Promise.reject(error);
  }
  lookups.set(id, pending);
  return pending;
}

function startDeadline(ms: number): Deadline {
  let timer!: ReturnType<typeof setTimeout>;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadline.passed = true;
      reject(new BotsigError('ERR_DISCOVERY_BUDGET', `key discovery for this request passed its ${ms} ms deadline`));
    }, ms);
  });
  // Observed by the race; never "unhandled" when nothing is waiting any more.
  expired.catch(() => undefined);
  const deadline: Deadline = { expired, timer, passed: false };
  return deadline;
}

async function fromResolved(resolved: ResolvedKey | VerifyingKey | Jwk): Promise<{ key: VerifyingKey; agent?: string }> {
  if (isVerifyingKey(resolved)) return { key: resolved };
  if (typeof resolved === 'object' && 'key' in resolved && !('kty' in resolved)) {
    const r = resolved as ResolvedKey;
    const key = isVerifyingKey(r.key) ? r.key : await importVerifyingKey(r.key);
    return typeof r.agent === 'string' ? { key, agent: r.agent } : { key };
  }
  return { key: await importVerifyingKey(resolved as Jwk) };
}

const OPTION_NAMES: readonly (keyof VerifyRequestOptions)[] = [
  'keys',
  'resolveKey',
  'directory',
  'nonce',
  'now',
  'clockSkewSeconds',
  'maxValiditySeconds',
  'requiredComponents',
  'strictAuthority',
  'algorithms',
  'allowInsecure',
  'allowTestKeys',
  'allowHttpSignatureAgent',
  'label',
  'authorities',
  'discovery',
];
const NONCE_OPTION_NAMES: readonly string[] = ['policy', 'store', 'maxLength'];
const DISCOVERY_OPTION_NAMES: readonly string[] = ['maxDirectories', 'timeoutMs'];

/**
 * Validates `options` and prepares what every verification with them reuses (static
 * keys start importing), once per options object. `verifyRequest` does this on first
 * use; `createVerifier` calls it at creation so that configuration mistakes surface
 * there and not per request.
 *
 * @throws TypeError for malformed options: an unknown option name (with the closest
 *   known one), a value of the wrong type or out of range, a static JWK that can
 *   never be imported.
 * @internal
 */
export function prepareVerifyOptions(options: VerifyRequestOptions): void {
  prepare(options);
}

function prepare(options: VerifyRequestOptions): Prepared {
  const cached = preparedByOptions.get(options);
  if (cached !== undefined) return cached;
  if (typeof options !== 'object' || options === null) throw new TypeError('verifyRequest options must be an object');
  checkOptionNames(options, OPTION_NAMES, 'verifyRequest options');
  const { keys, resolveKey, directory, nonce, now, clockSkewSeconds, maxValiditySeconds, requiredComponents, algorithms } = options;
  if (nonce !== undefined) {
    if (typeof nonce !== 'object' || nonce === null) throw new TypeError('options.nonce must be an object');
    checkOptionNames(nonce, NONCE_OPTION_NAMES, 'options.nonce');
  }
  if (options.discovery !== undefined && typeof options.discovery === 'object' && options.discovery !== null) {
    checkOptionNames(options.discovery, DISCOVERY_OPTION_NAMES, 'options.discovery');
  }

  let pendingKeys: Promise<Map<string, Found>> | undefined;
  if (keys !== undefined) {
    if (!Array.isArray(keys)) throw new TypeError('options.keys must be an array of JWKs or verifying keys');
    keys.forEach((k: unknown, i) => {
      if (isVerifyingKey(k)) return;
      const problem = publicJwkProblem(k as Jwk);
      if (problem !== undefined) throw new TypeError(`options.keys[${i}] ${problem}`);
    });
    pendingKeys = staticKeysByArray.get(keys);
    if (pendingKeys === undefined) {
      // Each key's lookup answer is built here once; a hit allocates nothing.
      pendingKeys = Promise.all(keys.map((k: Jwk | VerifyingKey) => importVerifyingKey(k))).then(
        (list) => new Map(list.map((key): [string, Found] => [key.thumbprint, Object.freeze({ key, agent: key.thumbprint, source: 'static' })])),
      );
      // Handled in loadStaticKeys; keep an early rejection from being "unhandled".
      pendingKeys.catch(() => undefined);
      staticKeysByArray.set(keys, pendingKeys);
    }
  }
  if (resolveKey !== undefined && typeof resolveKey !== 'function') throw new TypeError('options.resolveKey must be a function');
  if (directory !== undefined && (typeof directory !== 'object' || directory === null || typeof directory.resolve !== 'function')) {
    throw new TypeError('options.directory must have a resolve(member) method');
  }
  if (now !== undefined && typeof now !== 'function') throw new TypeError('options.now must be a function returning milliseconds');
  const skewSeconds = clockSkewSeconds ?? DEFAULT_SKEW_SECONDS;
  if (typeof skewSeconds !== 'number' || !Number.isFinite(skewSeconds) || skewSeconds < 0) {
    throw new TypeError('options.clockSkewSeconds must be a non-negative number');
  }
  const maxValidity = maxValiditySeconds ?? DEFAULT_MAX_VALIDITY_SECONDS;
  if (typeof maxValidity !== 'number' || Number.isNaN(maxValidity) || maxValidity <= 0) {
    throw new TypeError('options.maxValiditySeconds must be a positive number');
  }
  const policy = nonce?.policy ?? 'optional';
  if (policy !== 'none' && policy !== 'optional' && policy !== 'required') throw new TypeError('options.nonce.policy must be none, optional or required');
  // No store given: one owned by this options object (keep one object per verifier),
  // never a process-wide one that unrelated callers would share and could exhaust.
  const store = nonce?.store ?? new MemoryNonceStore(now === undefined ? {} : { now });
  const maxNonceLength = nonce?.maxLength ?? DEFAULT_MAX_NONCE_LENGTH;
  if (!Number.isSafeInteger(maxNonceLength) || maxNonceLength < 1) throw new TypeError('options.nonce.maxLength must be a positive integer');
  const discovery = options.discovery ?? {};
  if (typeof discovery !== 'object' || discovery === null) throw new TypeError('options.discovery must be an object');
  const maxDirectories = discovery.maxDirectories ?? DEFAULT_MAX_DIRECTORIES;
  if (!Number.isSafeInteger(maxDirectories) || maxDirectories < 0 || maxDirectories > 64) {
    throw new TypeError('options.discovery.maxDirectories must be an integer from 0 to 64');
  }
  const discoveryTimeoutMs = discovery.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  if (!Number.isSafeInteger(discoveryTimeoutMs) || discoveryTimeoutMs < 1 || discoveryTimeoutMs > 300_000) {
    throw new TypeError('options.discovery.timeoutMs must be an integer number of milliseconds from 1 to 300,000');
  }
  if (typeof store !== 'object' || store === null || typeof store.checkAndRecord !== 'function') {
    throw new TypeError('options.nonce.store must have a checkAndRecord method');
  }
  let algorithmSet = DEFAULT_ALGORITHMS;
  if (algorithms !== undefined) {
    if (!Array.isArray(algorithms) || !algorithms.every(isAlgorithmName)) throw new TypeError('options.algorithms must list RFC 9421 algorithm names');
    algorithmSet = new Set(algorithms);
  }
  let required = NO_STRINGS;
  if (requiredComponents !== undefined) {
    if (!Array.isArray(requiredComponents)) throw new TypeError('options.requiredComponents must be an array of component identifiers');
    required = requiredComponents.map((text: string) => {
      try {
        return serializeComponentIdentifier(parseComponentIdentifier(text));
      } catch (error) {
        throw new TypeError('options.requiredComponents has an invalid component identifier', { cause: error });
      }
    });
  }
  const prepared: Prepared = {
    staticKeys: undefined,
    pendingKeys,
    algorithms: algorithmSet,
    required,
    skewSeconds,
    maxValiditySeconds: maxValidity,
    policy,
    store,
    maxNonceLength,
    authorities: prepareAuthorities(options.authorities),
    maxDirectories,
    discoveryTimeoutMs,
    now: now ?? systemClock,
    agentOptions: { allowHttp: options.allowHttpSignatureAgent === true },
  };
  preparedByOptions.set(options, prepared);
  return prepared;
}

async function loadStaticKeys(prepared: Prepared): Promise<void> {
  try {
    prepared.staticKeys = await prepared.pendingKeys!;
  } catch (error) {
    throw new TypeError('options.keys: a key cannot be imported', { cause: error });
  }
}

// An agent sends the same Signature-Agent on every request: parse each distinct
// value once. Results are frozen (they are handed out in every result that binds
// them), keyed by the exact field lines, bounded in count and size.
const AGENT_CACHE_MAX_ENTRIES = 256;
const AGENT_CACHE_MAX_CHARS = 4096;
const agentCaches = [new Map<string, ParsedSignatureAgent>(), new Map<string, ParsedSignatureAgent>()] as const;

// The last single-line value and its parse, checked before the map (no key to build).
let lastAgentLine: string | undefined;
let lastAgentCache: Map<string, ParsedSignatureAgent> | undefined;
let lastAgentParsed: ParsedSignatureAgent | undefined;

function parsedSignatureAgent(lines: readonly string[], p: Prepared): ParsedSignatureAgent {
  const cache = agentCaches[p.agentOptions.allowHttp === true ? 1 : 0];
  const single = lines.length === 1 ? lines[0]! : undefined;
  if (single !== undefined && single === lastAgentLine && cache === lastAgentCache) return lastAgentParsed!;
  const key = single !== undefined ? '1' + single : 'n' + JSON.stringify(lines);
  const hit = cache.get(key);
  if (hit !== undefined) {
    if (single !== undefined) remember(single, cache, hit);
    return hit;
  }
  const parsed = parseSignatureAgent(lines, p.agentOptions);
  if (key.length > AGENT_CACHE_MAX_CHARS) return parsed;
  for (const m of parsed.members) {
    if (m.inline !== undefined) Object.freeze(m.inline);
    Object.freeze(m);
  }
  for (const d of parsed.diagnostics) Object.freeze(d);
  const frozen: ParsedSignatureAgent = Object.freeze({ ...parsed, members: Object.freeze(parsed.members) as SignatureAgentMember[], diagnostics: Object.freeze(parsed.diagnostics) as Diagnostic[] });
  if (cache.size >= AGENT_CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, frozen);
  if (single !== undefined) remember(single, cache, frozen);
  return frozen;
}

function remember(line: string, cache: Map<string, ParsedSignatureAgent>, parsed: ParsedSignatureAgent): void {
  lastAgentLine = line;
  lastAgentCache = cache;
  lastAgentParsed = parsed;
}

/** `http:` in any case (RFC 3986 §3.1: schemes are case-insensitive). */
function isPlainHttp(url: string | undefined): boolean {
  return url !== undefined && url.length > 5 && url.charCodeAt(4) === 0x3a && url.slice(0, 4).toLowerCase() === 'http';
}

function toInfo(error: unknown, fallback: BotsigErrorCode): ErrorInfo {
  if (isBotsigError(error)) return { code: error.code, message: error.message };
  // Not ours: its message may quote the input, so it is not passed on.
  return { code: fallback, message: error instanceof TypeError ? 'malformed input' : 'verification step failed' };
}

function requestResult(outcome: Outcome, malformed: boolean, error: ErrorInfo, diagnostics: readonly Diagnostic[]): VerificationResult {
  return { outcome, signatures: [], malformed, error, diagnostics };
}
