import { utf8 } from '../core/base64';
import type { Diagnostic } from '../core/diagnostics';
import { isBotsigError, type BotsigErrorCode } from '../core/errors';
import { systemClock } from '../core/time';
import { importVerifyingKey } from '../crypto/keys';
import { ALGORITHMS, toAlgorithmName } from '../crypto/registry';
import { isRfc9421TestKey } from '../crypto/test-keys';
import type { AlgorithmName, Jwk, VerifyingKey } from '../crypto/types';
import { createSignatureBase } from '../httpsig/base';
import { serializeComponentIdentifier } from '../httpsig/components';
import { toHttpMessage, type HttpMessage, type MessageInput } from '../httpsig/message';
import { parseSignature, parseSignatureInput, signatureParams, type SignatureInput } from '../httpsig/signature-input';
import { MemoryNonceStore, type NonceStore } from '../stores/nonce-store';
import { parseSignatureAgent, type ParsedSignatureAgent, type SignatureAgentMember } from './signature-agent';
import {
  WEB_BOT_AUTH_TAG,
  type ErrorInfo,
  type KeySource,
  type Outcome,
  type ResolvedKey,
  type SignatureParamsView,
  type SignatureResult,
  type VerificationResult,
  type VerifyRequestOptions,
} from './types';

const DEFAULT_SKEW_SECONDS = 60;
const DEFAULT_MAX_VALIDITY_SECONDS = 86_400;

/** Shared by every verification that does not bring its own store: scoped by agent and keyid, bounded. */
const defaultNonceStore = new MemoryNonceStore();

/** Per-options state built once: imported static keys, the algorithm set. */
interface Prepared {
  staticKeys: Promise<Map<string, VerifyingKey>> | undefined;
  algorithms: ReadonlySet<AlgorithmName>;
  requiredComponents: readonly string[];
}
const preparedByOptions = new WeakMap<VerifyRequestOptions, Prepared>();
const staticKeysByArray = new WeakMap<ReadonlyArray<Jwk | VerifyingKey>, Promise<Map<string, VerifyingKey>>>();

/**
 * Verifies the Web Bot Auth signatures of a request (SPEC 5.3; RFC 9421 §3.2).
 *
 * Never throws for anything the request contains: every problem becomes an
 * outcome with a code. Each signature is judged on its own; the request is
 * `verified` when at least one `web-bot-auth` signature verifies, `invalid` when
 * none does and at least one failed a check, and `unverified` otherwise (no
 * signature, unknown key, failed discovery, insecure transport).
 *
 * Checks, cheapest first: headers parse (else `malformed`, SPEC 7 allows 400);
 * tag (others are skipped, not failed); `created`/`expires` with clock skew;
 * validity bound; `@authority` (or `@target-uri`) covered; the Signature-Agent
 * member covered when the header is present; covered signatures cover their
 * inputs; `alg` allowed and matching the key; key known for (agent URL, keyid);
 * RFC 9421 test keys refused; the signature itself; finally the nonce policy.
 *
 * @throws TypeError only for misuse (options of the wrong type).
 * @example
 * const result = await verifyRequest(request, { directory: new DirectoryClient() });
 * if (result.outcome === 'verified') console.log('bot', result.agent);
 */
export async function verifyRequest(request: MessageInput, options: VerifyRequestOptions = {}): Promise<VerificationResult> {
  if (typeof options !== 'object' || options === null) throw new TypeError('verifyRequest options must be an object');
  try {
    return await verify(request, options);
  } catch (error) {
    // Only a defect in botsig gets here; the contract is to report, not throw.
    return {
      outcome: 'unverified',
      signatures: [],
      malformed: false,
      error: isBotsigError(error) ? error.toJSON() : { code: 'ERR_INTERNAL', message: 'internal error while verifying' },
      diagnostics: [],
    };
  }
}

async function verify(request: MessageInput, options: VerifyRequestOptions): Promise<VerificationResult> {
  let message: HttpMessage;
  try {
    message = toHttpMessage(request);
  } catch (error) {
    return fail('unverified', false, toInfo(error, 'ERR_MESSAGE_INVALID'));
  }
  const prepared = prepare(options);
  const inputHeader = joined(message, 'signature-input');
  const signatureHeader = joined(message, 'signature');
  if (inputHeader === undefined && signatureHeader === undefined) {
    return fail('unverified', false, { code: 'ERR_NO_SIGNATURE', message: 'the request carries no signature' });
  }

  let inputs: Map<string, SignatureInput>;
  let signatures: Map<string, Uint8Array>;
  try {
    inputs = inputHeader === undefined ? new Map() : parseSignatureInput(inputHeader);
    signatures = signatureHeader === undefined ? new Map() : parseSignature(signatureHeader);
  } catch (error) {
    return fail('invalid', true, toInfo(error, 'ERR_SIGNATURE_INPUT_PARSE'));
  }

  const agentLines = message.headers.get('signature-agent');
  let agentHeader: ParsedSignatureAgent | undefined;
  const diagnostics: Diagnostic[] = [];
  let malformed = false;
  if (agentLines !== undefined && agentLines.length > 0) {
    agentHeader = parseSignatureAgent(agentLines, { allowHttp: options.allowHttpSignatureAgent === true });
    diagnostics.push(...agentHeader.diagnostics);
    if (agentHeader.ignored) malformed = true;
  }

  if (!options.allowInsecure && message.url !== undefined && message.url.startsWith('http:')) {
    return {
      ...fail('unverified', malformed, {
        code: 'ERR_INSECURE_TRANSPORT',
        message: 'signature received over plain HTTP (SPEC 5.3 rule 6); set allowInsecure to accept it',
      }),
      diagnostics,
    };
  }

  const ctx: Context = { message, options, prepared, agentHeader, hasAgentHeader: agentLines !== undefined && agentLines.length > 0 };
  const labels = options.label === undefined ? new Set([...inputs.keys(), ...signatures.keys()]) : [options.label];
  const results: SignatureResult[] = [];
  for (const label of labels) {
    results.push(await verifyOne(ctx, label, inputs.get(label), signatures.get(label), inputs));
  }

  let outcome: Outcome = 'unverified';
  let agent: string | undefined;
  for (const r of results) {
    if (r.outcome === 'verified') {
      outcome = 'verified';
      agent = r.agent;
      break;
    }
    if (r.outcome === 'invalid') outcome = 'invalid';
  }
  const result: VerificationResult = { outcome, signatures: results, malformed, diagnostics };
  if (agent !== undefined) return { ...result, agent };
  if (results.length === 0) return { ...result, error: { code: 'ERR_LABEL_MISSING', message: `no signature labelled "${options.label}"` } };
  const first = results.find((r) => r.outcome === outcome && r.error !== undefined) ?? results.find((r) => r.error !== undefined);
  return first?.error === undefined ? result : { ...result, error: first.error };
}

interface Context {
  message: HttpMessage;
  options: VerifyRequestOptions;
  prepared: Prepared;
  agentHeader: ParsedSignatureAgent | undefined;
  hasAgentHeader: boolean;
}

async function verifyOne(
  ctx: Context,
  label: string,
  input: SignatureInput | undefined,
  signature: Uint8Array | undefined,
  allInputs: Map<string, SignatureInput>,
): Promise<SignatureResult> {
  const { options, prepared } = ctx;
  if (input === undefined || signature === undefined) {
    return {
      label,
      outcome: 'invalid',
      skipped: false,
      params: {},
      covered: input === undefined ? [] : input.components.map(serializeComponentIdentifier),
      error: { code: 'ERR_LABEL_MISSING', message: `label "${label}" is in only one of Signature and Signature-Input` },
    };
  }
  const covered = input.components.map(serializeComponentIdentifier);
  let params: SignatureParamsView;
  try {
    params = signatureParams(input.params);
  } catch (error) {
    return { label, outcome: 'invalid', skipped: false, params: {}, covered, error: toInfo(error, 'ERR_PARAM_INVALID') };
  }
  const base = { label, covered, params, ...pick(params) };
  const failWith = (outcome: Outcome, code: BotsigErrorCode, msg: string, extra?: Partial<SignatureResult>): SignatureResult => ({
    ...base,
    ...extra,
    outcome,
    skipped: false,
    error: { code, message: msg },
  });

  if (params.tag !== WEB_BOT_AUTH_TAG) {
    return {
      ...base,
      outcome: 'unverified',
      skipped: true,
      error: { code: 'ERR_TAG_MISMATCH', message: `signature "${label}" is not tagged web-bot-auth; skipped` },
    };
  }

  // Freshness (SPEC 5.1: created and expires are required).
  const now = (options.now ?? systemClock)();
  const nowSeconds = now / 1000;
  const skew = options.clockSkewSeconds ?? DEFAULT_SKEW_SECONDS;
  if (params.created === undefined) return failWith('invalid', 'ERR_CREATED_MISSING', `signature "${label}" has no created parameter`);
  if (params.expires === undefined) return failWith('invalid', 'ERR_EXPIRES_MISSING', `signature "${label}" has no expires parameter`);
  if (params.created > nowSeconds + skew) return failWith('invalid', 'ERR_CREATED_IN_FUTURE', `signature "${label}" was created in the future`);
  if (params.expires < nowSeconds - skew) return failWith('invalid', 'ERR_SIGNATURE_EXPIRED', `signature "${label}" has expired`);
  if (params.expires < params.created) return failWith('invalid', 'ERR_PARAM_INVALID', `signature "${label}" expires before it was created`);
  if (params.expires - params.created > (options.maxValiditySeconds ?? DEFAULT_MAX_VALIDITY_SECONDS)) {
    return failWith('invalid', 'ERR_VALIDITY_TOO_LONG', `signature "${label}" is valid for longer than allowed`);
  }

  // Coverage.
  const names = new Set(input.components.map((c) => c.name));
  if (!names.has('@authority') && (options.strictAuthority || !names.has('@target-uri'))) {
    return failWith('invalid', 'ERR_REQUIRED_COMPONENT', `signature "${label}" covers neither @authority${options.strictAuthority ? '' : ' nor @target-uri'}`);
  }
  for (const required of prepared.requiredComponents) {
    if (!covered.includes(required)) return failWith('invalid', 'ERR_REQUIRED_COMPONENT', `signature "${label}" does not cover ${required}`);
  }
  const coverageError = checkCoveredSignatures(input, allInputs);
  if (coverageError !== undefined) return failWith('invalid', 'ERR_REQUIRED_COMPONENT', coverageError);

  let member: SignatureAgentMember | undefined;
  if (ctx.hasAgentHeader) {
    const binding = boundAgentMember(input, ctx.agentHeader);
    if (binding === 'not-covered') {
      return failWith('invalid', 'ERR_SIGNATURE_AGENT_NOT_COVERED', `signature "${label}" does not cover the Signature-Agent header`);
    }
    member = binding;
  }
  const withAgent = member === undefined ? {} : { signatureAgent: member };

  // Algorithm.
  let alg: AlgorithmName | undefined;
  if (params.alg !== undefined) {
    try {
      alg = toAlgorithmName(params.alg);
    } catch (error) {
      return { ...failWith('invalid', 'ERR_ALG_UNKNOWN', ''), ...withAgent, error: toInfo(error, 'ERR_ALG_UNKNOWN') };
    }
    if (!prepared.algorithms.has(alg)) return failWith('invalid', 'ERR_ALG_NOT_ALLOWED', `algorithm ${alg} is not allowed here`, withAgent);
  }
  if (params.keyid === undefined) return failWith('invalid', 'ERR_PARAM_INVALID', `signature "${label}" has no keyid`, withAgent);

  // Key, by (agent URL, keyid).
  let found: { key: VerifyingKey; agent: string; source: KeySource } | undefined;
  try {
    found = await findKey(ctx, label, params.keyid, params.alg, member);
  } catch (error) {
    return { ...failWith('unverified', 'ERR_DIRECTORY_FETCH', ''), ...withAgent, error: toInfo(error, 'ERR_DIRECTORY_FETCH') };
  }
  if (found === undefined) {
    return failWith('unverified', 'ERR_KEY_UNKNOWN', `no key known for keyid of signature "${label}"`, withAgent);
  }
  const keyInfo = { ...withAgent, agent: found.agent, keySource: found.source };
  if (!options.allowTestKeys && isRfc9421TestKey(found.key.thumbprint)) {
    return failWith('invalid', 'ERR_KEY_TEST_KEY', 'the key is a public RFC 9421 example key; set allowTestKeys to accept it', keyInfo);
  }
  if (alg !== undefined && alg !== found.key.alg) {
    return failWith('invalid', 'ERR_ALG_MISMATCH', `alg ${alg} does not match the key (${found.key.alg})`, keyInfo);
  }
  if (!prepared.algorithms.has(found.key.alg)) {
    return failWith('invalid', 'ERR_ALG_NOT_ALLOWED', `algorithm ${found.key.alg} is not allowed here`, keyInfo);
  }

  let signatureBase: string;
  try {
    signatureBase = createSignatureBase(ctx.message, input);
  } catch (error) {
    return { ...failWith('invalid', 'ERR_COMPONENT_INVALID', ''), ...keyInfo, error: toInfo(error, 'ERR_COMPONENT_INVALID') };
  }
  let ok: boolean;
  try {
    ok = await found.key.verify(utf8(signatureBase), signature);
  } catch {
    ok = false;
  }
  if (!ok) return failWith('invalid', 'ERR_SIGNATURE_INVALID', `signature "${label}" does not verify`, keyInfo);

  // Nonce last: only a valid signature may consume a nonce.
  const policy = options.nonce?.policy ?? 'optional';
  if (policy !== 'none') {
    if (params.nonce === undefined) {
      if (policy === 'required') return failWith('invalid', 'ERR_NONCE_MISSING', `signature "${label}" has no nonce`, keyInfo);
    } else {
      const store: NonceStore = options.nonce?.store ?? defaultNonceStore;
      let fresh: boolean;
      try {
        fresh = await store.checkAndRecord(found.agent + ' ' + params.keyid, params.nonce, (params.expires + skew) * 1000, now);
      } catch {
        return failWith('unverified', 'ERR_NONCE_STORE_UNAVAILABLE', 'the nonce store could not be consulted', keyInfo);
      }
      if (!fresh) return failWith('invalid', 'ERR_NONCE_REPLAYED', `the nonce of signature "${label}" was already used`, keyInfo);
    }
  }
  return { ...base, ...keyInfo, outcome: 'verified', skipped: false };
}

/**
 * NOTES.md: covering `"signature";key=X` requires covering `"signature-input";key=X`
 * and every component X covers.
 */
function checkCoveredSignatures(input: SignatureInput, all: Map<string, SignatureInput>): string | undefined {
  for (const c of input.components) {
    if (c.name !== 'signature') continue;
    const key = c.params.get('key');
    if (key === undefined || key.type !== 'string') return `signature "${input.label}" covers the whole Signature field; cover one member with ;key`;
    const inner = all.get(key.value);
    if (inner === undefined) return `signature "${input.label}" covers an unknown signature`;
    const have = new Set(input.components.map(serializeComponentIdentifier));
    if (!have.has(`"signature-input";key="${key.value}"`)) return `signature "${input.label}" covers signature ${key.value} but not its Signature-Input`;
    for (const ic of inner.components) {
      if (!have.has(serializeComponentIdentifier(ic))) return `signature "${input.label}" covers signature ${key.value} but not all of its components`;
    }
  }
  return undefined;
}

/** The Signature-Agent member a signature binds, or 'not-covered'. */
function boundAgentMember(input: SignatureInput, header: ParsedSignatureAgent | undefined): SignatureAgentMember | undefined | 'not-covered' {
  for (const c of input.components) {
    if (c.name !== 'signature-agent') continue;
    const key = c.params.get('key');
    if (key !== undefined) {
      if (key.type !== 'string') continue;
      return header?.members.find((m) => m.key === key.value);
    }
    // The whole field is covered (earlier revisions): it binds its single value.
    if (header === undefined || header.members.length === 0) return undefined;
    if (header.form === 'string' || header.members.length === 1) return header.members[0];
    return header.members.find((m) => m.key === input.label);
  }
  return 'not-covered';
}

async function findKey(
  ctx: Context,
  label: string,
  keyid: string,
  alg: string | undefined,
  member: SignatureAgentMember | undefined,
): Promise<{ key: VerifyingKey; agent: string; source: KeySource } | undefined> {
  const { options, prepared } = ctx;
  if (prepared.staticKeys !== undefined) {
    const key = (await prepared.staticKeys).get(keyid);
    if (key !== undefined) return { key, agent: key.thumbprint, source: 'static' };
  }
  if (options.resolveKey !== undefined) {
    const resolved = await options.resolveKey({ keyid, label, ...(alg === undefined ? {} : { alg }), ...(member === undefined ? {} : { signatureAgent: member }) });
    if (resolved !== undefined) {
      const { key, agent } = await fromResolved(resolved);
      if (key.thumbprint === keyid) return { key, agent: agent ?? key.thumbprint, source: 'resolver' };
    }
  }
  if (options.directory !== undefined && member !== undefined) {
    const resolution = await options.directory.resolve(member);
    const entry = resolution.keys.find((k) => k.thumbprint === keyid);
    if (entry !== undefined) return { key: entry.key, agent: resolution.url, source: 'directory' };
  }
  return undefined;
}

async function fromResolved(resolved: ResolvedKey | VerifyingKey | Jwk): Promise<{ key: VerifyingKey; agent?: string }> {
  if (isVerifyingKey(resolved)) return { key: resolved };
  if ('key' in resolved && typeof resolved.key === 'object' && resolved.key !== null && !('kty' in resolved)) {
    const r = resolved as ResolvedKey;
    const key = isVerifyingKey(r.key) ? r.key : await importVerifyingKey(r.key);
    return r.agent === undefined ? { key } : { key, agent: r.agent };
  }
  return { key: await importVerifyingKey(resolved as Jwk) };
}

function isVerifyingKey(value: unknown): value is VerifyingKey {
  return typeof value === 'object' && value !== null && typeof (value as VerifyingKey).verify === 'function' && typeof (value as VerifyingKey).thumbprint === 'string';
}

function prepare(options: VerifyRequestOptions): Prepared {
  let prepared = preparedByOptions.get(options);
  if (prepared !== undefined) return prepared;
  let staticKeys: Promise<Map<string, VerifyingKey>> | undefined;
  if (options.keys !== undefined) {
    staticKeys = staticKeysByArray.get(options.keys);
    if (staticKeys === undefined) {
      const list = options.keys;
      staticKeys = Promise.all(list.map((k) => (isVerifyingKey(k) ? k : importVerifyingKey(k)))).then(
        (keys) => new Map(keys.map((k) => [k.thumbprint, k])),
      );
      staticKeysByArray.set(list, staticKeys);
    }
  }
  prepared = {
    staticKeys,
    algorithms: new Set(options.algorithms ?? ALGORITHMS),
    requiredComponents: (options.requiredComponents ?? []).map(normaliseComponent),
  };
  preparedByOptions.set(options, prepared);
  return prepared;
}

function normaliseComponent(text: string): string {
  const t = text.trim();
  return t.startsWith('"') ? t : `"${t}"`;
}

function joined(message: HttpMessage, name: string): string | undefined {
  const lines = message.headers.get(name);
  if (lines === undefined || lines.length === 0) return undefined;
  return lines.length === 1 ? lines[0]! : lines.join(', ');
}

function pick(params: SignatureParamsView): { keyid?: string; alg?: string; tag?: string } {
  const out: { keyid?: string; alg?: string; tag?: string } = {};
  if (params.keyid !== undefined) out.keyid = params.keyid;
  if (params.alg !== undefined) out.alg = params.alg;
  if (params.tag !== undefined) out.tag = params.tag;
  return out;
}

function toInfo(error: unknown, fallback: BotsigErrorCode): ErrorInfo {
  if (isBotsigError(error)) return { code: error.code, message: error.message };
  return { code: fallback, message: error instanceof Error && error.name === 'TypeError' ? 'malformed input' : 'verification step failed' };
}

function fail(outcome: Outcome, malformed: boolean, error: ErrorInfo): VerificationResult {
  return { outcome, signatures: [], malformed, error, diagnostics: [] };
}
