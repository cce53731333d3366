/**
 * `DirectoryClient`: finds, checks and caches the keys a `Signature-Agent` member
 * names (SPEC 2.3, 4.1, 5.3 rule 4, 5.4, 8; NOTES "Keys and identity",
 * "Discovery", "Directory response signatures").
 *
 * It fetches URLs that strangers choose, so every fetch is bounded: `https` only
 * (unless allowed), IP-literal hosts in non-public ranges and local-only names
 * refused before anything is sent, `200` only, redirects not followed (unless a
 * bounded same-site number is allowed), a size cap enforced while the (decoded)
 * body streams in, a key-count cap, and one wall-clock timeout over the whole
 * exchange. DNS answers are not visible here: on Node, pass the guarded fetch
 * from `botsig/node`, which refuses private addresses after resolution.
 *
 * Caching follows HTTP (RFC 9111: `Cache-Control`, `Expires`, `Date`, `Age`,
 * conditional revalidation) in a pluggable {@link DirectoryCache}, with one
 * in-flight fetch per URL, a negative cache with exponential backoff and
 * `Retry-After`, and stale-if-error: a failed refresh never drops keys that a
 * previous success published, while a successful one replaces the set (that is
 * how a removed key stops verifying). Imported keys stay in process, so the warm
 * path of {@link DirectoryClient.resolve} is a map lookup and two comparisons.
 *
 * With `delegation` configured (SPEC 5.5), keys that carry an `x5c` or `x5u`
 * chain are checked against the trust anchors when a response is built (AIA
 * and `x5u` fetches go through the same guards and limits), and inline `data:`
 * directories become usable for keys whose chain reaches an anchor.
 *
 * This module is the public API and the orchestration; the steps live in
 * `./client/`: `options` (option types, names, defaults and validation), `fetch`
 * (the URL guard and one bounded exchange), `state` (per-URL state, refresh,
 * backoff, stale-if-error, the shared cache, the time-of-use filter), `build` and
 * `card` (a response turned into keys), `delegation` (certificate fetches, chains,
 * inline `data:` directories), `types` (the records they share).
 */
import { BoundedMap } from '../core/bounded-map';
import type { SignatureAgentMember } from '../profile/signature-agent/types';
import type { KeyDirectory } from '../profile/types';
import { OutboundLimiter } from './outbound';
import { build } from './client/build';
import { buildCard } from './client/card';
import { CertificateCache, InlineDirectories, isDataUrl } from './client/delegation';
import { fail, platformFetch, targetFor } from './client/fetch';
import { settingsFrom } from './client/options';
import type { DirectoryClientOptions, FetchLike } from './client/options';
import { resolveState, slow, StateTable } from './client/state';
import type { Built, ClientContext, DirectoryClientResolution, FetchContext, Kind, State, Target } from './client/types';

/**
 * The longest Signature-Agent value a client fetches, in characters. Far above any real
 * directory URL; it bounds what a stranger's value costs in every table the client keeps
 * (each holds a URL a few times: member, directory URL, identifier, cache key).
 */
const MAX_URL_LENGTH = 2048;

export { DIRECTORY_CLIENT_DEFAULTS } from './client/options';
export type { DirectoryClientAllow, DirectoryClientLimits, DirectoryClientOptions, FetchLike } from './client/options';
export type { DirectoryClientKey, DirectoryClientResolution } from './client/types';

function checkMember(member: unknown): asserts member is SignatureAgentMember {
  if (typeof member !== 'object' || member === null) throw new TypeError('resolve expects a SignatureAgentMember');
  const m = member as { url?: unknown; type?: unknown };
  if (typeof m.url !== 'string') throw new TypeError('SignatureAgentMember.url must be a string');
  if (m.type !== 'directory' && m.type !== 'jwks_uri' && m.type !== 'cimd') {
    throw new TypeError('SignatureAgentMember.type must be directory, jwks_uri or cimd');
  }
}

/** Each client's fetch context, for {@link fetchContextOf}. */
const fetchContexts = new WeakMap<DirectoryClient, FetchContext>();

/**
 * The fetch context of a client (its settings, outbound limiter and fetch function), so
 * that the registry client fetches registries and cards under the same URL guard,
 * outbound budget and guarded fetch as the client's directories. `undefined` for
 * anything that is not a `DirectoryClient`.
 * @internal
 */
export function fetchContextOf(client: unknown): FetchContext | undefined {
  return typeof client === 'object' && client !== null ? fetchContexts.get(client as DirectoryClient) : undefined;
}

/** The resolution of a fresh entry (the warm path of `resolve`), marking the state used; `undefined` when none is fresh. */
function fresh(state: State, now: number): DirectoryClientResolution | undefined {
  const view = state.view;
  if (view === undefined || now >= view.checkAtMs) return undefined;
  state.lastUsedMs = now;
  return view.resolution;
}

/**
 * Resolves `Signature-Agent` members to verified, imported keys (SPEC 4.1, 5.3
 * rule 4, 5.4). Implements the `KeyDirectory` that `verifyRequest` consumes.
 *
 * @example
 * const directory = new DirectoryClient({ requireProof: true });
 * const result = await verifyRequest(request, { directory });
 */
export class DirectoryClient implements KeyDirectory {
  /** The settings, the outbound budget and the steps, as the client modules see them. */
  private readonly ctx: ClientContext;
  /** What each member value maps to, per member type. Member values come from request headers: bounded, oldest forgotten. */
  private readonly targets: Record<Kind, BoundedMap<string, Target>>;
  private readonly states: StateTable;
  private readonly inline: InlineDirectories;

  /**
   * @throws TypeError when an option has the wrong type or is out of range
   *   (e.g. `negativeTtlSeconds` above 300, `minTtlSeconds` above `maxTtlSeconds`,
   *   a `delegation` that is not what `certificateDelegation()` returns, `requireDelegation` without `delegation`).
   */
  constructor(options: DirectoryClientOptions = {}) {
    const s = settingsFrom(options);
    const outbound = new OutboundLimiter(s.outbound, s.now);
    /** `options.fetch`, or the platform default, chosen at the first fetch. */
    let fetchFn: FetchLike | undefined;
    const base: FetchContext = { s, outbound, fetcher: () => (fetchFn ??= platformFetch(s)) };
    const certificates = new CertificateCache(base);
    const states = new StateTable(s.maxEntries, s.now);
    const ctx: ClientContext = {
      ...base,
      fetchCertificate: certificates.fetch,
      // A card (card.ts) or a directory or JWK Set (build.ts).
      build: (state, entry, extra): Promise<Built> =>
        state.kind === 'cimd' ? buildCard(ctx, state, entry, extra === undefined ? [] : [...extra]) : build(ctx, state, entry, extra),
      resolveJwks: (url, identifier) => resolveState(ctx, states.getOrCreate('jwks_uri', url, identifier)),
    };
    this.ctx = ctx;
    fetchContexts.set(this, base);
    this.states = states;
    this.inline = new InlineDirectories(ctx);
    const max = s.maxEntries * 4;
    this.targets = { directory: new BoundedMap(max), jwks_uri: new BoundedMap(max), cimd: new BoundedMap(max) };
    // Start parsing the trust anchors now, off the request path (a failure is reported per key,
    // whether `preload` rejects, throws or returns something else).
    const delegation = s.delegation;
    if (delegation !== undefined) {
      Promise.resolve()
        .then(() => delegation.preload())
        .catch(() => undefined);
    }
  }

  /**
   * Resolves a member to its keys (draft-ietf-webbotauth-httpsig-protocol-01; NOTES "Keys and identity"):
   * `jwks_uri` (every draft -01 member) → the JWK Set at the URL, fetched as sent; `directory`
   * (a bare origin, deployed dialect) → `{origin}/.well-known/http-message-signatures-directory`;
   * wherever the set is served, `kid` must be the thumbprint at the well-known URI and is a label
   * elsewhere; `cimd` (an earlier draft's typed member) → the Signature Agent Card at the
   * URL (its `client_id` must be that URL; keys from `jwks` or a fetched
   * `jwks_uri`), inline `data:` → the keys whose certificate chain reaches a
   * trust anchor (with `delegation`), else refused (SPEC 5.5 rule 5).
   * `url` in the result is the agent identifier (the URL resolved, normalised, its query
   * dropped); each key carries its proof status
   * (SPEC 5.4, 5.5). Keys outside their `nbf`/`exp` window, or whose chain is
   * not valid at the time of use, are left out (or, for a fetched directory
   * without `requireDelegation`, served with their directory proof).
   *
   * While an entry is fresh this is a map lookup; otherwise concurrent callers
   * share one fetch. After a failed refresh the previous keys are returned with
   * `stale: true` and a `directory-stale` diagnostic; without previous keys the
   * failure is thrown (and remembered until the backoff ends).
   *
   * @throws BotsigError `ERR_URL_INVALID` (not an absolute http(s) URL, userinfo, longer than 2,048 characters),
   *   `ERR_URL_BLOCKED` (scheme or host refused), `ERR_DIRECTORY_FETCH` (network
   *   error, status other than 200/304, redirect not followed),
   *   `ERR_DIRECTORY_TIMEOUT`, `ERR_DIRECTORY_TOO_LARGE`, `ERR_DIRECTORY_INVALID`
   *   (not JSON, not a directory or card, wrong Content-Type, `client_id`
   *   mismatch), `ERR_DELEGATION_INVALID` (an inline directory none of whose
   *   keys is accepted through delegation: the message says why for the first).
   * @throws TypeError when `member` is not a SignatureAgentMember.
   * @example
   * const { url, keys } = await client.resolve({ url: 'https://agent.example', type: 'directory', scheme: 'https', index: 0 });
   * const key = keys.find((k) => k.thumbprint === keyid)?.key;
   */
  async resolve(member: SignatureAgentMember): Promise<DirectoryClientResolution> {
    checkMember(member);
    const kind = member.type;
    const target = this.targetOf(member);
    if (target === undefined) return this.inline.resolve(member);
    if ('error' in target) throw target.error;
    let state = this.states.get(kind, target.url);
    if (state === undefined) state = this.states.create(kind, target.url, target.identifier);
    const now = this.ctx.s.now();
    return fresh(state, now) ?? slow(this.ctx, state, now);
  }

  /**
   * The answer {@link resolve} gives at once while the member's entry is fresh, without a
   * promise; `undefined` when `resolve` would have to do more (no entry yet, a stale
   * entry to revalidate or refresh, a failure to report, an inline `data:` member).
   * Never fetches and never throws for a well-formed member. `verifyRequest` asks it
   * first, so a request whose key comes from a warm cache starts no discovery deadline.
   *
   * @throws TypeError when `member` is not a SignatureAgentMember.
   * @example
   * const warm = client.resolveFresh(member) ?? (await client.resolve(member));
   */
  resolveFresh(member: SignatureAgentMember): DirectoryClientResolution | undefined {
    checkMember(member);
    const target = this.targetOf(member);
    if (target === undefined || 'error' in target) return undefined;
    const state = this.states.get(member.type, target.url);
    return state === undefined ? undefined : fresh(state, this.ctx.s.now());
  }

  /**
   * What a member value maps to, worked out again when the bounded table has forgotten it
   * (strangers' values push older ones out; an agent's warm keys must not go with them).
   * `undefined` for an inline `data:` member.
   */
  private targetOf(member: SignatureAgentMember): Target | undefined {
    let target = this.targets[member.type].get(member.url);
    if (target === undefined) {
      if (member.inline !== undefined || isDataUrl(member.url)) return undefined;
      if (member.url.length > MAX_URL_LENGTH) {
        return { error: fail('ERR_URL_INVALID', `Signature-Agent value is longer than ${MAX_URL_LENGTH} characters; not fetched`) };
      }
      target = targetFor(this.ctx.s, member);
      // Only a fetchable value is remembered: what cannot be fetched is refused again at the
      // cost of a URL parse, and a stranger's values do not push warm agents out.
      if (!('error' in target)) this.targets[member.type].set(member.url, target);
    }
    return target;
  }

  /** Forgets everything about a URL in process (the shared cache is left alone). */
  forget(member: SignatureAgentMember): void {
    checkMember(member);
    const target = this.targets[member.type].get(member.url);
    this.targets[member.type].delete(member.url);
    if (target !== undefined && 'url' in target) this.states.delete(member.type, target.url);
  }
}
