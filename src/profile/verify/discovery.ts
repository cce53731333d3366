/**
 * Key lookup beyond the static keys: the resolver, then the directories of the
 * Signature-Agent members a signature covers, within the request's discovery
 * budget (members looked up once each, at most `maxDirectories`, one deadline).
 */
import { BotsigError } from '../../core/errors';
import { isVerifyingKey } from '../../crypto/keys/objects';
import { importVerifyingKey } from '../../crypto/keys/verifying';
import type { Jwk, VerifyingKey } from '../../crypto/types';
import { normalizeUrl, stripUrlSuffix } from '../../core/url';
import { agentIdentifier } from '../signature-agent/identity';
import type { SignatureAgentMember } from '../signature-agent/types';
import type { DirectoryResolution, DirectoryResponseProof, ResolvedKey, VerifyRequestOptions } from '../types';
import { checkDirectoryResponse } from './directory-proof';
import { isThenable, type Context, type Deadline, type Found, type MaybePromise } from './state';

/**
 * The key for (agent URL, keyid) (NOTES "Keys and identity") when no static key
 * has that keyid: static keys (looked up before) and a resolver answer by keyid and identify the agent by thumbprint (or by what the
 * resolver says); a directory is asked only about the members this signature
 * covers, so a key learned from one directory never verifies a claim of another.
 */
export async function findKey(
  ctx: Context,
  label: string,
  keyid: string,
  alg: string | undefined,
  candidates: readonly SignatureAgentMember[],
  from = 0,
): Promise<Found | undefined> {
  const options = ctx.options;
  const first = candidates[0];
  if (options.resolveKey !== undefined) {
    const lookup = { keyid, label, ...(alg === undefined ? {} : { alg }), ...(first === undefined ? {} : { signatureAgent: first }) };
    const resolved = await options.resolveKey(lookup);
    if (resolved !== undefined && resolved !== null) {
      const { key, agent, proof } = await fromResolved(resolved);
      if (key.thumbprint === keyid) {
        const url = agent === undefined && proof === undefined ? undefined : await attribute(ctx, key, agent, proof, candidates);
        return { key, agent: url ?? key.thumbprint, source: 'resolver' };
      }
    }
  }
  const directory = options.directory;
  if (directory === undefined || first === undefined) return undefined;
  let failure: unknown;
  for (let i = from; i < candidates.length; i++) {
    const member = candidates[i]!;
    let resolution;
    try {
      resolution = await lookup(ctx, directory, member);
    } catch (error) {
      // SPEC 2.3: with several values, the first that yields a directory is used.
      failure ??= error;
      continue;
    }
    const found = keyIn(ctx, resolution, keyid, member);
    if (found !== undefined) return found;
  }
  if (failure !== undefined) {
    // What the first failing directory threw, as it threw it (the caller reports it).
    const first: unknown = failure;
    throw first;
  }
  return undefined;
}

/** {@link findKeyNow}: the lookup cannot be decided without waiting; `findKey` goes on from candidate `from`. */
export class Pending {
  constructor(readonly from: number) {}
}
const FROM_START = new Pending(0);

/**
 * What {@link findKey} finds, decided synchronously when every lookup it needs is
 * answered at once: no directory or no member (nothing to find), or members whose
 * directories hold a fresh entry (`KeyDirectory.resolveFresh`). Otherwise a
 * {@link Pending} with the first candidate still to look up, for `findKey` to go on
 * from (asynchronously, within the request's budget and deadline). The members looked
 * up here count toward `maxDirectories` as in `findKey`; no deadline is started.
 */
export function findKeyNow(ctx: Context, keyid: string, candidates: readonly SignatureAgentMember[]): Found | undefined | Pending {
  const options = ctx.options;
  if (options.resolveKey !== undefined) return FROM_START;
  const directory = options.directory;
  if (directory === undefined || candidates.length === 0) return undefined;
  if (directory.resolveFresh === undefined) return FROM_START;
  for (let i = 0; i < candidates.length; i++) {
    const member = candidates[i]!;
    const resolution = freshLookup(ctx, directory, member);
    if (resolution === undefined) return i === 0 ? FROM_START : new Pending(i);
    const found = keyIn(ctx, resolution, keyid, member);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * {@link lookup} when it needs no waiting: the member's resolution already known to this
 * request, or a fresh one from the directory (recorded like any lookup). `undefined`
 * when the lookup would wait, fail or be refused by the budget: `lookup` then decides.
 */
function freshLookup(ctx: Context, directory: NonNullable<VerifyRequestOptions['directory']>, member: SignatureAgentMember): DirectoryResolution | undefined {
  const id = member.type + ' ' + member.url;
  const known = ctx.lookups?.get(id);
  if (known !== undefined) return isThenable(known) ? undefined : known;
  if (ctx.deadline?.passed === true || (ctx.lookups?.size ?? 0) >= ctx.p.maxDirectories) return undefined;
  let resolution: DirectoryResolution | undefined;
  try {
    resolution = directory.resolveFresh!(member);
  } catch {
    // Not the contract: let resolve() answer (and report) instead.
    return undefined;
  }
  if (resolution === undefined || resolution === null || typeof resolution !== 'object') return undefined;
  (ctx.lookups ??= new Map()).set(id, resolution);
  return resolution;
}

/** The key `keyid` in a member's resolution (its diagnostics added to the request's). */
function keyIn(ctx: Context, resolution: DirectoryResolution, keyid: string, member: SignatureAgentMember): Found | undefined {
  if (resolution.diagnostics.length > 0) (ctx.diagnostics ??= []).push(...resolution.diagnostics);
  for (const entry of resolution.keys) {
    if (entry.thumbprint === keyid) {
      const delegation = entry.delegation;
      const card = resolution.card;
      if (card === undefined) {
        return { key: entry.key, agent: entry.agent ?? resolution.url, source: 'directory', member, ...(delegation === undefined ? {} : { delegation }) };
      }
      return { key: entry.key, agent: entry.agent ?? resolution.url, source: 'directory', member, card, ...(delegation === undefined ? {} : { delegation }) };
    }
  }
  return undefined;
}

/**
 * A profile tag's own key set (`{ jwksUri }`, options.profile): the key `keyid` names, by
 * thumbprint or (with `matchKid`) by its `kid`, looked up like a member's directory (a
 * fresh entry at once, else within the request's budget and deadline). The agent is the
 * key set's URL; no Signature-Agent member is involved.
 */
export function findTagKey(ctx: Context, member: SignatureAgentMember, keyid: string, matchKid: boolean): MaybePromise<Found | undefined> {
  const directory = ctx.options.directory!;
  const fresh = directory.resolveFresh === undefined ? undefined : freshLookup(ctx, directory, member);
  if (fresh !== undefined) return tagKeyIn(ctx, fresh, keyid, matchKid);
  const pending = lookup(ctx, directory, member);
  return isThenable(pending) ? Promise.resolve(pending).then((r) => tagKeyIn(ctx, r, keyid, matchKid)) : tagKeyIn(ctx, pending, keyid, matchKid);
}

function tagKeyIn(ctx: Context, resolution: DirectoryResolution, keyid: string, matchKid: boolean): Found | undefined {
  if (resolution.diagnostics.length > 0) (ctx.diagnostics ??= []).push(...resolution.diagnostics);
  let byKid: DirectoryResolution['keys'][number] | undefined;
  for (const entry of resolution.keys) {
    if (entry.thumbprint === keyid) return { key: entry.key, agent: resolution.url, source: 'directory' };
    if (matchKid && byKid === undefined && entry.kid === keyid) byKid = entry;
  }
  return byKid === undefined ? undefined : { key: byKid.key, agent: resolution.url, source: 'directory' };
}

/**
 * One directory lookup on behalf of this request, within its discovery budget:
 * each distinct member is looked up once however many signatures name it, at most
 * `discovery.maxDirectories` distinct members per request, and all of them within
 * one deadline. Beyond the budget a signature is `unverified` (`ERR_DISCOVERY_BUDGET`).
 */
function lookup(ctx: Context, directory: NonNullable<VerifyRequestOptions['directory']>, member: SignatureAgentMember): MaybePromise<DirectoryResolution> {
  const lookups = (ctx.lookups ??= new Map());
  const id = member.type + ' ' + member.url;
  const known = lookups.get(id);
  if (known !== undefined) return known;
  if (ctx.deadline?.passed === true) {
    return Promise.reject(new BotsigError('ERR_DISCOVERY_BUDGET', `key discovery for this request passed its ${ctx.p.discoveryTimeoutMs} ms deadline`));
  }
  if (lookups.size >= ctx.p.maxDirectories) {
    return Promise.reject(
      new BotsigError('ERR_DISCOVERY_BUDGET', `this request names more than ${ctx.p.maxDirectories} key directories; the rest are not looked up`),
    );
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

/** A resolver's answer (a verifying key, a JWK, or `{ key, agent?, proof? }`) as a verifying key with what it says about the key. */
export async function fromResolved(resolved: ResolvedKey | VerifyingKey | Jwk): Promise<{ key: VerifyingKey; agent?: string; proof?: DirectoryResponseProof }> {
  if (isVerifyingKey(resolved)) return { key: resolved };
  if (typeof resolved === 'object' && 'key' in resolved && !('kty' in resolved)) {
    const r = resolved as ResolvedKey;
    const key = isVerifyingKey(r.key) ? r.key : await importVerifyingKey(r.key);
    const proof = typeof r.proof === 'object' && r.proof !== null ? r.proof : undefined;
    return { key, ...(typeof r.agent === 'string' ? { agent: r.agent } : {}), ...(proof === undefined ? {} : { proof }) };
  }
  return { key: await importVerifyingKey(resolved as Jwk) };
}

/** The identifier of a member, `undefined` for one without a URL (an inline directory) or a value that is not one. */
function identifierOf(member: SignatureAgentMember): string | undefined {
  try {
    return agentIdentifier(member);
  } catch {
    return undefined;
  }
}

/**
 * The URL a resolver's key may be attributed to, or `undefined` (with an `agent-unproven`
 * diagnostic saying why): draft -01 "Redistributed Key Material" attributes key material the
 * verifier did not fetch itself to a Signature-Agent URL only when it carries, for that key, a
 * valid directory response signature whose `expires` has not passed. The URL must also be the
 * one the covered member names: the proof binds the key to that URL, not to any URL.
 */
async function attribute(
  ctx: Context,
  key: VerifyingKey,
  agent: string | undefined,
  proof: DirectoryResponseProof | undefined,
  candidates: readonly SignatureAgentMember[],
): Promise<string | undefined> {
  const unproven = (why: string): undefined => {
    (ctx.diagnostics ??= []).push({
      level: 'warning',
      code: 'agent-unproven',
      message: `the resolver's key is identified by its thumbprint: ${why} (draft-ietf-webbotauth-httpsig-protocol-01, Redistributed Key Material)`,
    });
    return undefined;
  };
  if (proof === undefined) return unproven('it names an agent without a directory response signature to prove it');
  if (typeof proof.url !== 'string') return unproven('its proof has no URL');
  let url: string;
  try {
    url = normalizeUrl(stripUrlSuffix(proof.url, true));
  } catch {
    return unproven('its proof URL is not an absolute URL');
  }
  if (!candidates.some((m) => identifierOf(m) === url))
    return unproven('its proof is for a URL that the Signature-Agent member this signature covers does not name');
  if (agent !== undefined && normalizedOrSelf(agent) !== url) return unproven('the agent it names is not the URL of its proof');
  let check;
  try {
    check = await checkDirectoryResponse(
      { url: proof.url, status: 200, headers: proof.headers, body: proof.body },
      new Map([[key.thumbprint, key]]),
      ctx.nowMs,
      ctx.p.skewSeconds,
      MAX_PROOF_SIGNATURES,
    );
  } catch {
    return unproven('its proof cannot be read');
  }
  const found = check.proofs.get(key.thumbprint);
  if (found === undefined) {
    const first = check.diagnostics.find((d) => d.level === 'error') ?? check.diagnostics[0];
    return unproven(`no valid directory response signature proves the key${first === undefined ? '' : ` (${first.code})`}`);
  }
  if (found.expires === undefined) return unproven('the directory response signature has no expires');
  if (found.expires < Math.floor(ctx.nowMs / 1000)) return unproven('the directory response signature has expired');
  return url;
}

/** A proof names one key: a few signatures are plenty (a hostile resolver's response may carry thousands). */
const MAX_PROOF_SIGNATURES = 8;

function normalizedOrSelf(url: string): string {
  try {
    return normalizeUrl(stripUrlSuffix(url, true));
  } catch {
    return url;
  }
}
