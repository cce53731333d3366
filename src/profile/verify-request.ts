/**
 * `verifyRequest` (SPEC 5.3; RFC 9421 §3.2): the flow of one verification, from the
 * received message to one result per signature. The steps live beside it, one
 * concern each: `verify/options.ts` (options validated and prepared once per object,
 * on its first call; `verify/prepared.ts` keeps what it prepared),
 * `verify/checks.ts` (profile checks), `verify/discovery.ts` (key lookup and its
 * budget), `verify/nonce.ts` (nonce policy and store), `verify/result.ts` (results),
 * `verify/agent-cache.ts` (the Signature-Agent parse cache of prepared options).
 */
import type { Diagnostic } from '../core/diagnostics';
import { isBotsigError } from '../core/errors';
import { keyForAlgorithm } from '../crypto/keys/binding';
import { verifyBase } from '../crypto/keys/base';
import { toAlgorithmName } from '../crypto/registry';
import type { AlgorithmName, BoundVerifyingKey } from '../crypto/types';
import { createReceivedSignatureBase } from '../httpsig/base';
import { toReceivedMessage, type HttpMessage, type MessageInput } from '../httpsig/message';
import { readSignaturesWithTexts, signatureParams, type ReceivedSignatureInput, type SignatureEntry } from '../httpsig/signature-input';
import type { ParsedSignatureAgent, SignatureAgentMember } from './signature-agent/types';
import type { SignatureParamsView, SignatureResult, VerificationResult, VerifyRequestOptions } from './types';
import { agentCandidates, authorityAllowed, checkCoverage, checkFreshness, coveredOf, isTestKeyid, tagRulesOf, taggedWebBotAuth } from './verify/checks';
import { checkCoveredContentDigest, contentDigestRequired, coveredContentDigests } from './verify/content-digest';
import { findKey, findKeyNow, findTagKey, Pending } from './verify/discovery';
import { checkNonceParam, nonceHoldUntil, recordNonce } from './verify/nonce';
import { prepare } from './verify/options';
import { loadStaticKeys, preparedOf } from './verify/prepared';
import { fail, finish, requestResult, summarise, toInfo, type Draft } from './verify/result';
import {
  isThenable,
  NO_DIAGNOSTICS,
  NO_PARAMS,
  NO_STRINGS,
  type Context,
  type Found,
  type MaybePromise,
  type Prepared,
  type TagPrepared,
} from './verify/state';

const DEFAULT_OPTIONS: VerifyRequestOptions = /* @__PURE__ */ Object.freeze({});

const NO_MEMBERS: readonly SignatureAgentMember[] = /* @__PURE__ */ Object.freeze([]);

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
  // Options are validated and prepared on their first use.
  const prepared = preparedOf(options) ?? prepare(options);
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
    const parsed = p.agents.get(agentLines);
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
  const ctx: Context = {
    message,
    options,
    p,
    nowMs,
    agentHeader,
    entries,
    diagnostics: undefined,
    authorityAllowed: undefined,
    lookups: undefined,
    deadline: undefined,
    input: request,
    body: undefined,
    contentDigestRequired: undefined,
  };
  // Made with the first result (nearly every request has one): not an empty array grown by push.
  let results: SignatureResult[] | undefined;
  if (options.label === undefined) {
    const rest = entries.values();
    for (let next = rest.next(); next.done !== true; next = rest.next()) {
      const r = verifyOne(ctx, next.value, results === undefined ? 0 : results.length);
      if (isThenable(r)) return verifyRest(ctx, r, rest, results ?? [], malformed, agentDiagnostics);
      if (results === undefined) results = [r];
      else results.push(r);
    }
  } else {
    const entry = entries.get(options.label);
    if (entry === undefined) {
      return requestResult(
        'unverified',
        malformed,
        { code: 'ERR_LABEL_MISSING', message: 'the request has no signature with the requested label' },
        agentDiagnostics,
      );
    }
    const r = verifyOne(ctx, entry);
    if (isThenable(r)) return verifyRest(ctx, r, undefined, [], malformed, agentDiagnostics);
    results = [r];
  }
  return summarise(ctx, results ?? [], malformed, agentDiagnostics);
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
    for (let next = rest.next(); next.done !== true; next = rest.next()) results.push(await verifyOne(ctx, next.value, results.length));
  }
  return summarise(ctx, results, malformed, agentDiagnostics);
}

/** `index`: how many signatures of this request were judged before this one. */
function verifyOne(ctx: Context, entry: SignatureEntry<ReceivedSignatureInput>, index = 0): MaybePromise<SignatureResult> {
  const { p, options } = ctx;
  const label = entry.label;
  // Each signature costs a base and possibly a verify: a request carries at most maxSignatures worth judging.
  if (index >= p.maxSignatures) {
    return fail(
      { label, covered: NO_STRINGS, params: NO_PARAMS },
      'unverified',
      'ERR_TOO_MANY_SIGNATURES',
      `the request carries more than ${p.maxSignatures} signatures; "${label}" was not judged`,
    );
  }
  const d: Draft = { label, covered: NO_STRINGS, params: NO_PARAMS };
  if (entry.input !== undefined) d.covered = coveredOf(entry.input);
  if (!entry.ok) return finish(d, 'invalid', toInfo(entry.error, 'ERR_SIGNATURE_INPUT_PARSE'));
  const input = entry.input;

  // SPEC 5.3 rule 2: other profiles' signatures are left alone, whatever they contain.
  let params: SignatureParamsView | undefined = input.view;
  // With a profile (options.profile), the rules of the signature's tag; without one, web-bot-auth and the options.
  const tags = p.tags;
  const rules = tags === undefined ? undefined : tagRulesOf(input, tags);
  if (tags === undefined ? !taggedWebBotAuth(input) : rules === undefined) {
    try {
      d.params = params ?? signatureParams(input.params);
    } catch {
      // Not ours to judge: report without a typed view.
    }
    const why = tags === undefined ? 'is not tagged web-bot-auth' : `has no tag of profile ${p.profileName}`;
    return finish(d, 'unverified', { code: 'ERR_TAG_MISMATCH', message: `signature "${label}" ${why}; skipped` }, true);
  }
  if (rules !== undefined) d.rules = rules;
  if (params === undefined) {
    try {
      params = signatureParams(input.params);
    } catch (error) {
      return finish(d, 'invalid', toInfo(error, 'ERR_PARAM_INVALID'));
    }
  }
  d.params = params;

  // Freshness (SPEC 5.1: created and expires are required).
  const stale = checkFreshness(d, params, ctx);
  if (stale !== undefined) return stale;
  // Only the nonce check uses it: how long the nonce is held (the replay window bounds it).
  const expires = nonceHoldUntil(params, ctx);

  // Coverage (SPEC 5.1, NOTES "Signing profile").
  const coverageError =
    rules === undefined
      ? checkCoverage(input, d.covered, ctx, options.strictAuthority === true)
      : checkCoverage(input, d.covered, ctx, rules.strictAuthority, rules.required);
  if (coverageError !== undefined) return fail(d, 'invalid', 'ERR_REQUIRED_COMPONENT', coverageError);
  // RFC 9530 Content-Digest: checked against the content once the signature verified (withSignature).
  const digests = coveredContentDigests(input.components);
  if (digests === undefined && p.requireContentDigest !== undefined && contentDigestRequired(ctx)) {
    return fail(d, 'invalid', 'ERR_CONTENT_DIGEST_REQUIRED', `signature "${label}" does not cover content-digest, which this origin requires here`);
  }
  if (digests !== undefined) d.digests = digests;
  // The origin's own names: a signature made for another site is refused before any key work.
  if (p.authorities !== undefined && !authorityAllowed(ctx)) {
    return fail(d, 'invalid', 'ERR_AUTHORITY_NOT_ALLOWED', `signature "${label}" was made for an authority this origin does not answer to`);
  }
  // A tag whose keys the operator configured does not look at Signature-Agent.
  const candidates = rules !== undefined && rules.ownKeys ? NO_MEMBERS : agentCandidates(input, ctx.agentHeader);
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
  const nonceProblem = checkNonceParam(d, params, ctx);
  if (nonceProblem !== undefined) return nonceProblem;
  // Keys are matched by thumbprint = keyid, so the example keys are known by keyid alone.
  if (!options.allowTestKeys && isTestKeyid(keyid)) {
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

  const c: Claim = { d, keyid, algName: params.alg, alg, base, signature: entry.signature, nonce: params.nonce, expires, candidates };
  if (rules !== undefined && rules.ownKeys) return withTagKey(ctx, c, rules);
  const staticKey = p.staticKeys?.get(keyid);
  if (staticKey !== undefined) return withKey(ctx, c, staticKey);
  // Nowhere else to look (no resolver; no directory, or no member to ask it about).
  if (options.resolveKey === undefined && (options.directory === undefined || candidates.length === 0)) return withFound(ctx, c, undefined);
  return lookUp(ctx, c);
}

/**
 * A signature past its checks, waiting for its key: what the rest of its verification
 * reads (`d` collects what is reported).
 */
interface Claim {
  readonly d: Draft;
  readonly keyid: string;
  /** The signature's `alg` as written, and as a registered name (both `undefined` when it names none). */
  readonly algName: string | undefined;
  readonly alg: AlgorithmName | undefined;
  readonly base: string;
  readonly signature: Uint8Array;
  readonly nonce: string | undefined;
  /** Until when its nonce is held (seconds; see nonceHoldUntil). */
  readonly expires: number;
  /** The Signature-Agent members it covers, where its key may be found. */
  readonly candidates: readonly SignatureAgentMember[];
}

/** The key from the resolver or the directories. */
function lookUp(ctx: Context, c: Claim): MaybePromise<SignatureResult> {
  const d = c.d;
  // A warm directory answers at once: no promise, no deadline.
  let now: Found | undefined | Pending;
  try {
    now = findKeyNow(ctx, c.keyid, c.candidates);
  } catch (error) {
    return finish(d, 'unverified', toInfo(error, 'ERR_DIRECTORY_FETCH'));
  }
  if (!(now instanceof Pending)) return withFound(ctx, c, now);
  return findKey(ctx, d.label, c.keyid, c.algName, c.candidates, now.from).then(
    (found) => withFound(ctx, c, found),
    (error: unknown) => finish(d, 'unverified', toInfo(error, 'ERR_DIRECTORY_FETCH')),
  );
}

/** A profile tag with its own keys (`{ keys }` or `{ jwksUri }`): the key the keyid names there, or why none. */
function withTagKey(ctx: Context, c: Claim, rules: TagPrepared): MaybePromise<SignatureResult> {
  const d = c.d;
  const unknown = (): SignatureResult =>
    fail(d, 'unverified', 'ERR_KEY_UNKNOWN', `no key of tag ${rules.tag} is known for the keyid of signature "${d.label}"`);
  if (rules.jwks === undefined) {
    const found = rules.staticKeys?.get(c.keyid);
    return found === undefined ? unknown() : withKey(ctx, c, found);
  }
  const jwks = rules.jwks;
  let found: MaybePromise<Found | undefined>;
  try {
    found = findTagKey(ctx, jwks, c.keyid, rules.matchKid);
  } catch (error) {
    return finish(d, 'unverified', toInfo(error, 'ERR_DIRECTORY_FETCH'));
  }
  if (!isThenable(found)) return found === undefined ? unknown() : withKey(ctx, c, found);
  return Promise.resolve(found).then(
    (f) => (f === undefined ? unknown() : withKey(ctx, c, f)),
    (error: unknown) => finish(d, 'unverified', toInfo(error, 'ERR_DIRECTORY_FETCH')),
  );
}

/** Once the key lookup is done: on with the key found, or why none was. */
function withFound(ctx: Context, c: Claim, found: Found | undefined): MaybePromise<SignatureResult> {
  const d = c.d;
  if (found !== undefined) return withKey(ctx, c, found);
  if (ctx.options.directory !== undefined && c.candidates.length === 0 && ctx.agentHeader !== undefined) {
    return fail(
      d,
      'unverified',
      'ERR_SIGNATURE_AGENT_INVALID',
      `the Signature-Agent member covered by "${d.label}" is not usable (see diagnostics); its keys cannot be found`,
    );
  }
  return fail(d, 'unverified', 'ERR_KEY_UNKNOWN', `no key known for the keyid of signature "${d.label}"`);
}

/** With the key found: `alg` against the key, the signature itself, then the nonce. */
function withKey(ctx: Context, c: Claim, found: Found): MaybePromise<SignatureResult> {
  const p = ctx.p;
  const { d, alg, base, signature } = c;
  d.agent = found.agent;
  d.keySource = found.source;
  if (found.delegation !== undefined) d.delegation = found.delegation;
  if (found.member !== undefined) d.signatureAgent = found.member;
  if (found.card !== undefined) d.card = found.card;
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

  // Verified before (same key, base and signature): only the crypto call is skipped. A
  // signature whose nonce the store records is never remembered: its second use is a replay.
  const memo = c.nonce === undefined || (d.rules === undefined ? p.policy : d.rules.policy) === 'none' ? p.verifiedMemo : undefined;
  if (memo !== undefined && memo.has(key, base, signature)) return withSignature(ctx, c, true);
  let ok: MaybePromise<boolean>;
  try {
    ok = verifyBase(key, base, signature);
  } catch {
    ok = false;
  }
  if (isThenable(ok)) {
    return Promise.resolve(ok).then(
      (v) => {
        if (v === true) memo?.remember(key, base, signature);
        return withSignature(ctx, c, v === true);
      },
      () => withSignature(ctx, c, false),
    );
  }
  if (ok === true) memo?.remember(key, base, signature);
  return withSignature(ctx, c, ok === true);
}

/** After the signature check: a covered Content-Digest checked, then the nonce (only a valid signature over this content may consume it). */
function withSignature(ctx: Context, c: Claim, ok: boolean): MaybePromise<SignatureResult> {
  const d = c.d;
  if (!ok) return fail(d, 'invalid', 'ERR_SIGNATURE_INVALID', `signature "${d.label}" does not verify`);
  if (d.digests !== undefined) {
    return checkCoveredContentDigest(ctx, d, d.digests).then((failed) => failed ?? recordNonce(ctx, d, c.nonce, c.expires));
  }
  return recordNonce(ctx, d, c.nonce, c.expires);
}

/** `http:` in any case (RFC 3986 §3.1: schemes are case-insensitive). */
function isPlainHttp(url: string | undefined): boolean {
  // `| 0x20` lowercases an ASCII letter (and leaves no other character equal to one).
  return (
    url !== undefined &&
    url.length > 5 &&
    url.charCodeAt(4) === 0x3a &&
    (url.charCodeAt(0) | 0x20) === 0x68 &&
    (url.charCodeAt(1) | 0x20) === 0x74 &&
    (url.charCodeAt(2) | 0x20) === 0x74 &&
    (url.charCodeAt(3) | 0x20) === 0x70
  );
}
