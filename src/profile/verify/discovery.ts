/**
 * Key lookup beyond the static keys: the resolver, then the directories of the
 * Signature-Agent members a signature covers, within the request's discovery
 * budget (members looked up once each, at most `maxDirectories`, one deadline).
 */
import { BotsigError } from '../../core/errors';
import { importVerifyingKey, isVerifyingKey } from '../../crypto/keys';
import type { Jwk, VerifyingKey } from '../../crypto/types';
import type { SignatureAgentMember } from '../signature-agent';
import type { DirectoryResolution, ResolvedKey, VerifyRequestOptions } from '../types';
import type { Context, Deadline, Found } from './state';

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
        const delegation = entry.delegation;
        return { key: entry.key, agent: entry.agent ?? resolution.url, source: 'directory', member, ...(delegation === undefined ? {} : { delegation }) };
      }
    }
  }
  if (failure !== undefined) {
    // What the first failing directory threw, as it threw it (the caller reports it).
    const first: unknown = failure;
    throw first;
  }
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

async function fromResolved(resolved: ResolvedKey | VerifyingKey | Jwk): Promise<{ key: VerifyingKey; agent?: string }> {
  if (isVerifyingKey(resolved)) return { key: resolved };
  if (typeof resolved === 'object' && 'key' in resolved && !('kty' in resolved)) {
    const r = resolved as ResolvedKey;
    const key = isVerifyingKey(r.key) ? r.key : await importVerifyingKey(r.key);
    return typeof r.agent === 'string' ? { key, agent: r.agent } : { key };
  }
  return { key: await importVerifyingKey(resolved as Jwk) };
}
