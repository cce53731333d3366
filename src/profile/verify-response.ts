/**
 * `verifyResponse` (RFC 9421 §2.4, §3.2): an agent checks that a response is signed by
 * the origin's key, for the request it sent (`;req` components), and that its content is
 * what was signed (a covered `Content-Digest`, RFC 9530). The same three outcomes as
 * `verifyRequest` (NOTES "What every verifier decision produces"); the freshness and
 * signature checks are the ones the directory client applies to directory responses
 * (`response/checks.ts`).
 */
import { isBotsigError } from '../core/errors';
import type { BotsigError } from '../core/errors';
import { checkOptionNames } from '../core/options';
import { systemClock } from '../core/time';
import type { Clock } from '../core/time';
import { importVerifyingKey } from '../crypto/keys/verifying';
import { isVerifyingKey } from '../crypto/keys/objects';
import { ALGORITHMS, isAlgorithmName, toAlgorithmName } from '../crypto/registry';
import { isRfc9421TestKeyId as isRfc9421TestKey } from '../crypto/rfc9421-example-key-ids';
import type { AlgorithmName, Jwk, VerifyingKey } from '../crypto/types';
import { createSignatureBase } from '../httpsig/base';
import { serializeComponentIdentifier } from '../httpsig/components';
import { chainGap, componentIdentities, coversComponent } from '../httpsig/cover-chain';
import { isHttpMessage, messageTarget, toHttpMessage } from '../httpsig/message';
import type { HttpMessage, MessageInput } from '../httpsig/message';
import { readSignatures, signatureParams } from '../httpsig/signature-input';
import type { SignatureEntry, SignatureParams } from '../httpsig/signature-input';
import { responseFreshness, verifyResponseBase } from './response/checks';
import type { SignatureAgentMember } from './signature-agent/types';
import type { DirectoryResolution, KeyDirectory, KeyResolver, KeySource, SignatureResult, VerificationResult } from './types';
import { checkContentDigest, loadBody } from './body/check';
import { coveredContentDigests } from './verify/content-digest';
import { fromResolved } from './verify/discovery';
import { DEFAULT_VERIFY_MAX_BODY_BYTES } from './verify/options';
import { fail, finish, requestResult, summariseSignatures, toInfo, type Draft } from './verify/result';
import { NO_DIAGNOSTICS, NO_PARAMS, NO_STRINGS } from './verify/state';

/** Options of {@link verifyResponse}. Give `keys`, `resolveKey` or `directory` (or several: tried in that order). */
export interface VerifyResponseOptions {
  /** The request the response answers (as it was sent): the source of `;req` components (RFC 9421 §2.4). */
  readonly request: MessageInput | HttpMessage;
  /** The origin's public keys (JWKs or imported keys), matched by JWK thumbprint = `keyid`, or by the JWK's own `kid`. */
  readonly keys?: ReadonlyArray<Jwk | VerifyingKey>;
  /** Called for a keyid the static keys do not know; its answer is trusted for that keyid. */
  readonly resolveKey?: KeyResolver;
  /**
   * The origin's own key directory: the keys published at the request authority's
   * well-known path (SPEC 4.1), matched by thumbprint. The agent is then that URL.
   */
  readonly directory?: KeyDirectory;
  readonly now?: Clock;
  /** Tolerance for `created` in the future and `expires` in the past, in seconds. Default 60. */
  readonly clockSkewSeconds?: number;
  /** For a signature without `expires`: how long after `created` it is accepted. Default 300. */
  readonly maxAgeSeconds?: number;
  /** Largest `expires - created` accepted. Default 86,400. */
  readonly maxValiditySeconds?: number;
  /** Algorithms accepted. Default: every asymmetric algorithm botsig supports. */
  readonly algorithms?: readonly AlgorithmName[];
  /** Judge only signatures with this `tag` (others are skipped); default: any tag or none. */
  readonly tag?: string;
  /** Verify only this label. */
  readonly label?: string;
  /** Components every signature must cover, e.g. `'"@method";req'` to bind the request. */
  readonly requiredComponents?: readonly string[];
  /**
   * Require a covered `content-digest` checked against the content: a signature that does not
   * cover it is `invalid` (`ERR_CONTENT_DIGEST_REQUIRED`), one whose content is not given is
   * `unverified` (`ERR_BODY_UNAVAILABLE`). Default false.
   */
  readonly requireContentDigest?: boolean;
  /**
   * When a signature covers `content-digest` but the content cannot be read (no `body` in the
   * message object, a `Response` whose body was already read): judge the signature on the
   * header fields alone and report the digest `unchecked`. Default false: such a signature is
   * `unverified` (`ERR_BODY_UNAVAILABLE`), as with `verifyRequest`.
   */
  readonly headersOnly?: boolean;
  /** Most bytes of content read to check a covered `Content-Digest`. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Accept the public RFC 9421 example keys. Default false. */
  readonly allowTestKeys?: boolean;
  /** Signatures judged; the rest are `unverified` (`ERR_TOO_MANY_SIGNATURES`). Default 16. */
  readonly maxSignatures?: number;
}

const ALL_ALGORITHMS: ReadonlySet<AlgorithmName> = new Set(ALGORITHMS);

interface Checked {
  readonly request: HttpMessage;
  readonly now: Clock;
  readonly skew: number;
  readonly maxAge: number;
  readonly maxValidity: number;
  readonly algorithms: ReadonlySet<AlgorithmName>;
  readonly required: readonly string[];
  readonly maxBodyBytes: number;
  readonly maxSignatures: number;
}

interface FoundKey {
  readonly key: VerifyingKey;
  readonly agent: string;
  readonly source: KeySource;
}

/**
 * Verifies the signatures of a response to `options.request` (RFC 9421 §3.2; `;req`
 * components from the request, §2.4). Never throws for anything the response contains.
 *
 * Per signature, cheapest first: the member parses; the `tag` when one is asked for
 * (others skipped); `created` present, not in the future, `expires` not past (or, without
 * `expires`, `created` at most `maxAgeSeconds` old), within `clockSkewSeconds`;
 * `requiredComponents` and (with `requireContentDigest`) `content-digest` covered; `alg`
 * known and allowed; `keyid` present; the base built; the key found (static keys by
 * thumbprint or `kid`, the resolver, the origin's directory); the RFC 9421 example keys
 * refused; `alg` matching the key; the signature; last, a covered `Content-Digest` checked
 * against the content (a `Response` read through a clone, or the message object's `body`;
 * content that cannot be read is `unverified` unless `headersOnly`).
 *
 * The response is `verified` when a signature verifies, `invalid` when none does and one
 * failed a check, `unverified` otherwise (no signature, unknown key, content too large).
 *
 * @throws TypeError only for misuse: options of the wrong type or out of range, no
 *   `request`, a static key that cannot be imported.
 * @example
 * const response = await fetch(request.clone());
 * const result = await verifyResponse(response, { request, directory: new DirectoryClient() });
 * if (result.outcome === 'verified' && result.contentDigest?.status === 'matched') trust(await response.json());
 */
export async function verifyResponse(response: MessageInput | HttpMessage, options: VerifyResponseOptions): Promise<VerificationResult> {
  if (typeof response !== 'object' || response === null) throw new TypeError('verifyResponse expects a Response or a { status, headers, body } object');
  const checked = checkOptions(options);
  const staticKeys = await loadKeys(options.keys);
  try {
    return await verify(response, options, checked, staticKeys);
  } catch (error) {
    // Only a defect (or a callback breaking its contract) gets here: report, never `verified`.
    return { outcome: 'unverified', signatures: [], malformed: false, error: toInfo(error, 'ERR_INTERNAL'), diagnostics: NO_DIAGNOSTICS };
  }
}

async function verify(
  input: MessageInput | HttpMessage,
  options: VerifyResponseOptions,
  c: Checked,
  staticKeys: ReadonlyMap<string, FoundKey>,
): Promise<VerificationResult> {
  let message: HttpMessage;
  try {
    message = toHttpMessage(input, { request: c.request });
  } catch (error) {
    return requestResult('unverified', false, toInfo(error, 'ERR_MESSAGE_INVALID'), NO_DIAGNOSTICS);
  }
  if (message.kind !== 'response')
    return requestResult('unverified', false, { code: 'ERR_MESSAGE_INVALID', message: 'the message is not a response (no status)' }, NO_DIAGNOSTICS);
  let entries: Map<string, SignatureEntry>;
  try {
    entries = readSignatures(message);
  } catch (error) {
    return requestResult('invalid', true, toInfo(error, 'ERR_SIGNATURE_INPUT_PARSE'), NO_DIAGNOSTICS);
  }
  if (entries.size === 0) return requestResult('unverified', false, { code: 'ERR_NO_SIGNATURE', message: 'the response carries no signature' }, NO_DIAGNOSTICS);
  let malformed = false;
  for (const entry of entries.values()) if (!entry.ok && entry.error.code !== 'ERR_LABEL_MISSING') malformed = true;

  const selected = options.label === undefined ? [...entries.values()] : entries.has(options.label) ? [entries.get(options.label)!] : [];
  if (selected.length === 0)
    return requestResult(
      'unverified',
      malformed,
      { code: 'ERR_LABEL_MISSING', message: 'the response has no signature with the requested label' },
      NO_DIAGNOSTICS,
    );
  const nowMs = c.now();
  // Number.isFinite is false for whatever is not a number (a clock that returns one anyway).
  if (!Number.isFinite(nowMs))
    return requestResult('unverified', malformed, { code: 'ERR_INTERNAL', message: 'options.now returned no usable time' }, NO_DIAGNOSTICS);

  const ctx: ResponseContext = { input, message, options, c, staticKeys, nowMs, entries, requestEntries: undefined, body: undefined, directory: undefined };
  const results: SignatureResult[] = [];
  for (const entry of selected) {
    if (results.length >= c.maxSignatures) {
      results.push(
        fail({ label: entry.label, covered: NO_STRINGS, params: NO_PARAMS }, 'unverified', 'ERR_TOO_MANY_SIGNATURES', 'too many signatures; not judged'),
      );
      continue;
    }
    results.push(await verifyOne(ctx, entry));
  }
  return summariseSignatures(results, malformed, NO_DIAGNOSTICS);
}

interface ResponseContext {
  readonly input: MessageInput | HttpMessage;
  readonly message: HttpMessage;
  readonly options: VerifyResponseOptions;
  readonly c: Checked;
  readonly staticKeys: ReadonlyMap<string, FoundKey>;
  readonly nowMs: number;
  /** The response's signatures. */
  readonly entries: ReadonlyMap<string, SignatureEntry>;
  /** The request's signatures, read when a signature covers one of them (`"signature";req`). */
  requestEntries: ReadonlyMap<string, SignatureEntry> | undefined;
  /** The content, read once for every signature that needs it. */
  body: Promise<Uint8Array | BotsigError> | undefined;
  /** The origin's directory, resolved once. */
  directory: Promise<DirectoryResolution> | undefined;
}

async function verifyOne(ctx: ResponseContext, entry: SignatureEntry): Promise<SignatureResult> {
  const { options, c } = ctx;
  const d: Draft = { label: entry.label, covered: NO_STRINGS, params: NO_PARAMS };
  if (entry.input !== undefined) d.covered = entry.input.components.map(serializeComponentIdentifier);
  if (!entry.ok) return finish(d, 'invalid', toInfo(entry.error, 'ERR_SIGNATURE_INPUT_PARSE'));
  const input = entry.input;
  let params: SignatureParams;
  try {
    params = signatureParams(input.params);
  } catch (error) {
    return finish(d, 'invalid', toInfo(error, 'ERR_PARAM_INVALID'));
  }
  d.params = params;
  if (options.tag !== undefined && params.tag !== options.tag) {
    return finish(d, 'unverified', { code: 'ERR_TAG_MISMATCH', message: `signature "${d.label}" is not tagged ${options.tag}; skipped` }, true);
  }
  const stale = responseFreshness(params, ctx.nowMs, { skewSeconds: c.skew, maxAgeSeconds: c.maxAge, maxValiditySeconds: c.maxValidity });
  if (stale !== undefined) return finish(d, 'invalid', stale);
  for (const required of c.required) {
    if (!coversComponent(d.covered, input.components, required)) {
      return fail(d, 'invalid', 'ERR_REQUIRED_COMPONENT', `signature "${d.label}" does not cover ${required}`);
    }
  }
  // A covered signature brings its Signature-Input and all it covers; `;req`: the request's (RFC 9421 §2.4).
  const gap = chainGap(d.label, input.components, (key, req) => (req ? requestEntries(ctx) : ctx.entries).get(key)?.input);
  if (gap !== undefined) return fail(d, 'invalid', 'ERR_REQUIRED_COMPONENT', gap);
  const digests = coveredContentDigests(input.components);
  if (digests === undefined && options.requireContentDigest === true) {
    return fail(d, 'invalid', 'ERR_CONTENT_DIGEST_REQUIRED', `signature "${d.label}" does not cover content-digest`);
  }
  if (params.alg !== undefined) {
    let alg: AlgorithmName;
    try {
      alg = toAlgorithmName(params.alg);
    } catch (error) {
      return finish(d, 'invalid', toInfo(error, 'ERR_ALG_UNKNOWN'));
    }
    if (!c.algorithms.has(alg)) return fail(d, 'invalid', 'ERR_ALG_NOT_ALLOWED', `algorithm ${alg} is not allowed here`);
  }
  const keyid = params.keyid;
  if (keyid === undefined) return fail(d, 'invalid', 'ERR_PARAM_INVALID', `signature "${d.label}" has no keyid`);

  let base: string;
  try {
    base = createSignatureBase(ctx.message, input);
  } catch (error) {
    return finish(d, 'invalid', toInfo(error, 'ERR_COMPONENT_INVALID'));
  }

  let found: FoundKey | undefined;
  try {
    found = await findKey(ctx, keyid, params.alg, d.label);
  } catch (error) {
    return finish(d, 'unverified', toInfo(error, 'ERR_DIRECTORY_FETCH'));
  }
  if (found === undefined) return fail(d, 'unverified', 'ERR_KEY_UNKNOWN', `no key known for the keyid of signature "${d.label}"`);
  d.agent = found.agent;
  d.keySource = found.source;
  if (options.allowTestKeys !== true && isRfc9421TestKey(found.key.thumbprint)) {
    return fail(d, 'invalid', 'ERR_KEY_TEST_KEY', 'the key is a public RFC 9421 example key; set allowTestKeys to accept it');
  }
  const problem = await verifyResponseBase(found.key, base, entry.signature, params.alg, c.algorithms);
  if (problem !== undefined) return finish(d, 'invalid', problem);

  if (digests !== undefined) {
    ctx.body ??= loadBody(ctx.input, c.maxBodyBytes);
    const result = await checkContentDigest(ctx.message, digests, ctx.body);
    d.contentDigest = result;
    const error = result.error;
    if (result.status === 'failed' && error !== undefined) return finish(d, 'invalid', error);
    // Content that cannot be read fails closed unless the caller opted in to headers only (and did not require the digest).
    const headersOnly = options.headersOnly === true && options.requireContentDigest !== true;
    if (result.status === 'unchecked' && error !== undefined && (error.code !== 'ERR_BODY_UNAVAILABLE' || !headersOnly)) {
      return finish(d, 'unverified', error);
    }
  }
  return finish(d, 'verified');
}

/** The signatures of the request the response answers (none when its fields do not parse). */
function requestEntries(ctx: ResponseContext): ReadonlyMap<string, SignatureEntry> {
  if (ctx.requestEntries === undefined) {
    try {
      ctx.requestEntries = readSignatures(ctx.c.request);
    } catch {
      ctx.requestEntries = new Map();
    }
  }
  return ctx.requestEntries;
}

/** Static keys (thumbprint, then `kid`), the resolver, then the origin's directory. */
async function findKey(ctx: ResponseContext, keyid: string, alg: string | undefined, label: string): Promise<FoundKey | undefined> {
  const known = ctx.staticKeys.get(keyid);
  if (known !== undefined) return known;
  const { options } = ctx;
  if (options.resolveKey !== undefined) {
    const resolved = await options.resolveKey({ keyid, label, ...(alg === undefined ? {} : { alg }) });
    if (resolved !== undefined && resolved !== null) {
      const { key, agent } = await fromResolved(resolved);
      return { key, agent: agent ?? key.thumbprint, source: 'resolver' };
    }
  }
  if (options.directory !== undefined) {
    ctx.directory ??= resolveOriginDirectory(options.directory, ctx.c.request);
    const resolution = await ctx.directory;
    for (const entry of resolution.keys) {
      if (entry.thumbprint === keyid) return { key: entry.key, agent: entry.agent ?? resolution.url, source: 'directory' };
    }
  }
  return undefined;
}

/** The key directory at the request's origin (SPEC 4.1): the origin vouches for its own keys. */
function resolveOriginDirectory(directory: KeyDirectory, request: HttpMessage): Promise<DirectoryResolution> {
  const target = messageTarget(request);
  const scheme = target.scheme === 'http' ? 'http' : 'https';
  const member: SignatureAgentMember = Object.freeze({ url: `${scheme}://${target.authority}`, type: 'directory', scheme, index: 0 });
  return directory.resolve(member);
}

function nonNegative(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  // Number.isFinite is false for whatever is not a number.
  if (!Number.isFinite(value) || (value as number) < 0) throw new TypeError(`options.${name} must be a non-negative number`);
  return value as number;
}

function checkOptions(options: VerifyResponseOptions): Checked {
  if (typeof options !== 'object' || options === null) throw new TypeError('verifyResponse options must be an object');
  // The option names where they are checked (read once per call: verifyResponse is not a hot path).
  const known: (keyof VerifyResponseOptions)[] = [
    'request',
    'keys',
    'resolveKey',
    'directory',
    'now',
    'clockSkewSeconds',
    'maxAgeSeconds',
    'maxValiditySeconds',
    'algorithms',
    'tag',
    'label',
    'requiredComponents',
    'requireContentDigest',
    'headersOnly',
    'maxBodyBytes',
    'allowTestKeys',
    'maxSignatures',
  ];
  checkOptionNames(options, known, 'verifyResponse options');
  if (typeof options.request !== 'object' || options.request === null) throw new TypeError('options.request (the request the response answers) is required');
  const request = isHttpMessage(options.request) ? options.request : toHttpMessage(options.request);
  if (request.kind !== 'request') throw new TypeError('options.request must be a request');
  if (options.keys !== undefined && !Array.isArray(options.keys)) throw new TypeError('options.keys must be an array of JWKs or verifying keys');
  if (options.resolveKey !== undefined && typeof options.resolveKey !== 'function') throw new TypeError('options.resolveKey must be a function');
  const directory = options.directory;
  if (directory !== undefined && (typeof directory !== 'object' || directory === null || typeof directory.resolve !== 'function')) {
    throw new TypeError('options.directory must have a resolve(member) method');
  }
  if (options.keys === undefined && options.resolveKey === undefined && directory === undefined) {
    throw new TypeError('verifyResponse needs options.keys, options.resolveKey or options.directory');
  }
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('options.now must be a function returning milliseconds');
  if (options.tag !== undefined && typeof options.tag !== 'string') throw new TypeError('options.tag must be a string');
  if (options.label !== undefined && typeof options.label !== 'string') throw new TypeError('options.label must be a string');
  if (options.requireContentDigest !== undefined && typeof options.requireContentDigest !== 'boolean')
    throw new TypeError('options.requireContentDigest must be a boolean');
  if (options.allowTestKeys !== undefined && typeof options.allowTestKeys !== 'boolean') throw new TypeError('options.allowTestKeys must be a boolean');
  if (options.headersOnly !== undefined && typeof options.headersOnly !== 'boolean') throw new TypeError('options.headersOnly must be a boolean');
  let algorithms = ALL_ALGORITHMS;
  if (options.algorithms !== undefined) {
    if (!Array.isArray(options.algorithms) || !options.algorithms.every(isAlgorithmName))
      throw new TypeError('options.algorithms must list RFC 9421 algorithm names');
    algorithms = new Set(options.algorithms);
  }
  const required = options.requiredComponents === undefined ? NO_STRINGS : componentIdentities(options.requiredComponents, 'options.requiredComponents');
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_VERIFY_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) throw new TypeError('options.maxBodyBytes must be a non-negative integer');
  const maxSignatures = options.maxSignatures ?? 16;
  if (!Number.isSafeInteger(maxSignatures) || maxSignatures < 1) throw new TypeError('options.maxSignatures must be a positive integer');
  return {
    request,
    now: options.now ?? systemClock,
    skew: nonNegative(options.clockSkewSeconds, 60, 'clockSkewSeconds'),
    maxAge: nonNegative(options.maxAgeSeconds, 300, 'maxAgeSeconds'),
    maxValidity: nonNegative(options.maxValiditySeconds, 86_400, 'maxValiditySeconds'),
    algorithms,
    required,
    maxBodyBytes,
    maxSignatures,
  };
}

/** Static keys by thumbprint and by their JWK `kid` (a thumbprint wins over a `kid`). */
async function loadKeys(keys: ReadonlyArray<Jwk | VerifyingKey> | undefined): Promise<ReadonlyMap<string, FoundKey>> {
  const out = new Map<string, FoundKey>();
  if (keys === undefined) return out;
  let imported: VerifyingKey[];
  try {
    imported = await Promise.all(keys.map((k) => (isVerifyingKey(k) ? k : importVerifyingKey(k))));
  } catch (error) {
    throw new TypeError('options.keys: a key cannot be imported', { cause: isBotsigError(error) ? error : undefined });
  }
  for (const key of imported) out.set(key.thumbprint, { key, agent: key.thumbprint, source: 'static' });
  for (const key of imported) {
    const kid = key.jwk.kid;
    if (typeof kid === 'string' && kid !== '' && !out.has(kid)) out.set(kid, { key, agent: key.thumbprint, source: 'static' });
  }
  return out;
}
