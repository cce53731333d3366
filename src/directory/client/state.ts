/**
 * Per-URL state and refresh: the table of states (bounded, least recently used
 * dropped), the slow path of `resolve` (key transitions, one in-flight refresh
 * per URL, exponential backoff with jitter and `Retry-After`, the negative
 * cache), the refresh itself (shared cache first, fleet-wide single flight,
 * fetch, "the newer copy wins", store), and stale-if-error: a failed refresh
 * never drops keys that a previous success published, while a successful one
 * replaces the set (that is how a removed key stops verifying).
 *
 * Also the shared {@link DirectoryCache} as the client uses it (never fatal: a
 * failing or corrupt cache means "fetch", and the process-local state keeps its
 * keys; for a coordinating cache such as RedisDirectoryCache, the fleet-wide single
 * flight through `acquireRefresh`), and the time-of-use filter ({@link viewOf}):
 * keys outside their `nbf`/`exp` window are left out, a delegated key outside its
 * chain's validity falls back to its directory proof (or is left out), a stale
 * answer says so, and the view says until when it holds.
 */
import type { Diagnostic } from '../../core/diagnostics';
import { isBotsigError } from '../../core/errors';
import type { BotsigError } from '../../core/errors';
import type { Clock } from '../../core/time';
import type { CoordinatedDirectoryCache, DirectoryCache, DirectoryCacheEntry } from '../cache';
import { parseCacheControl } from '../http-cache';
import { fail, fetchEntry, reportUsable, toBotsigError } from './fetch';
import type { Settings } from './options';
import type { Built, ClientContext, DirectoryClientKey, DirectoryClientResolution, Kind, State, View } from './types';

/** First wait after a failure; doubles per consecutive failure (with jitter) up to the negative TTL. */
const BACKOFF_BASE_MS = 5_000;

/**
 * The per-URL states of one client, by member type and URL: at most
 * `maxEntries`. When full, the least recently used state that holds no keys (a URL
 * that never answered with any, only failed) goes first; only when every state holds
 * keys does the least recently used of those go. A state with a fetch in flight never
 * goes (if every state has one, the table grows until one ends). URLs come from
 * strangers: naming new ones costs nothing, so without the first rule a stranger
 * could push every agent's keys out, and each agent's next request would build them
 * again (from the shared cache, or by a fetch); with it, only URLs that answered with
 * keys (each a fetch through the outbound budget, which a stranger pays for per site)
 * compete with the agents'.
 *
 * Not a `BoundedMap`: eviction follows `lastUsedMs`, which the warm path of
 * `resolve` updates without reordering any map, across the three member types;
 * the O(n) scan runs only when the table is full.
 */
export class StateTable {
  private readonly states: Record<Kind, Map<string, State>> = { directory: new Map(), jwks_uri: new Map(), cimd: new Map() };
  private stateCount = 0;
  private readonly maxEntries: number;
  private readonly now: Clock;

  constructor(maxEntries: number, now: Clock) {
    this.maxEntries = maxEntries;
    this.now = now;
  }

  get(kind: Kind, url: string): State | undefined {
    return this.states[kind].get(url);
  }

  getOrCreate(kind: Kind, url: string, identifier: string): State {
    return this.states[kind].get(url) ?? this.create(kind, url, identifier);
  }

  create(kind: Kind, url: string, identifier: string): State {
    if (this.stateCount >= this.maxEntries) this.evict();
    const state: State = {
      kind,
      url,
      identifier,
      cacheKey: `${kind} ${url}`,
      built: undefined,
      view: undefined,
      staleView: undefined,
      inflight: undefined,
      failures: 0,
      retryAtMs: 0,
      lastError: undefined,
      lastUsedMs: this.now(),
      imported: new Map(),
    };
    this.states[kind].set(url, state);
    this.stateCount++;
    return state;
  }

  /** Drops the least recently used state without keys, else with keys; never one with a fetch in flight (O(n), only when full). */
  private evict(): void {
    let empty: State | undefined;
    let holding: State | undefined;
    for (const kind of ['directory', 'jwks_uri', 'cimd'] as const) {
      for (const state of this.states[kind].values()) {
        if (state.inflight !== undefined) continue;
        if (state.built === undefined) {
          if (empty === undefined || state.lastUsedMs < empty.lastUsedMs) empty = state;
        } else if (holding === undefined || state.lastUsedMs < holding.lastUsedMs) {
          holding = state;
        }
      }
    }
    const victim = empty ?? holding;
    if (victim !== undefined && this.states[victim.kind].delete(victim.url)) this.stateCount--;
  }

  /** Forgets the state of a URL; false when there was none. */
  delete(kind: Kind, url: string): boolean {
    if (!this.states[kind].delete(url)) return false;
    this.stateCount--;
    return true;
  }
}

// ---------------------------------------------------------------------------
// Slow path: key transitions, backoff, coalescing

/** `resolve` when the state's view is missing or past its `checkAtMs`. */
export function slow(ctx: ClientContext, state: State, now: number): Promise<DirectoryClientResolution> {
  state.lastUsedMs = now;
  const built = state.built;
  if (built !== undefined && state.view !== undefined && now < built.freshUntilMs) {
    // Still fresh; a key's nbf/exp was crossed. Recompute the view, no fetch.
    state.view = viewOf(state, built, now, false, ctx.s.skewSeconds);
    return Promise.resolve(state.view.resolution);
  }
  // In an outage (the last attempt failed and old keys exist), callers never wait
  // on a retry: they get the stale keys at once while the retry runs.
  const outage = built !== undefined && state.lastError !== undefined;
  if (state.inflight !== undefined) return outage ? Promise.resolve(staleAnswer(ctx, state, built, now)) : state.inflight;
  if (now < state.retryAtMs) {
    if (built !== undefined) return Promise.resolve(staleAnswer(ctx, state, built, now));
    return Promise.reject(state.lastError ?? fail('ERR_DIRECTORY_FETCH', 'the directory could not be fetched'));
  }
  const pending = refresh(ctx, state).finally(() => {
    state.inflight = undefined;
  });
  state.inflight = pending;
  if (outage) {
    // refresh() settles with stale keys rather than rejecting when old keys exist; nothing to observe.
    pending.catch(() => undefined);
    return Promise.resolve(staleAnswer(ctx, state, built, now));
  }
  return pending;
}

function staleAnswer(ctx: ClientContext, state: State, built: Built, now: number): DirectoryClientResolution {
  if (state.staleView === undefined || now >= state.staleView.checkAtMs) state.staleView = viewOf(state, built, now, true, ctx.s.skewSeconds);
  return state.staleView.resolution;
}

/** Resolves a state through the same cache rules, for a card's `jwks_uri`. */
export async function resolveState(ctx: ClientContext, state: State): Promise<{ resolution: DirectoryClientResolution; validUntilMs: number }> {
  const now = ctx.s.now();
  const resolution = state.view !== undefined && now < state.view.checkAtMs ? state.view.resolution : await slow(ctx, state, now);
  // While stale, look again after the backoff (at least a second: a retry may be in flight).
  const validUntilMs = state.view !== undefined && !resolution.stale ? state.view.checkAtMs : Math.max(state.retryAtMs, now + 1000);
  return { resolution, validUntilMs };
}

async function refresh(ctx: ClientContext, state: State): Promise<DirectoryClientResolution> {
  let base = state.built;
  const now = ctx.s.now();
  if (base === undefined || now >= base.freshUntilMs) {
    // Another process may have refreshed the shared cache.
    const shared = await cacheGet(ctx.s, state.cacheKey);
    if (shared !== undefined && (base === undefined || shared.fetchedAtMs > base.entry.fetchedAtMs)) {
      try {
        const built = await ctx.build(state, shared);
        const t = ctx.s.now();
        const use = sharedUse(built, base, t);
        if (use === 'answer') return install(ctx, state, built, t).resolution;
        if (use === 'basis') base = built;
      } catch {
        // A corrupt or now-invalid shared entry is ignored; the fetch below replaces it.
      }
    }
  }
  let built: Built | undefined;
  let storable = true;
  let failure: { error: BotsigError; retryAfterMs?: number | undefined } | undefined;
  try {
    if (state.kind === 'cimd' && base !== undefined && now < base.entry.freshUntilMs) {
      // The card is fresh; only its key set expired. Rebuild (which refreshes the key set).
      built = await ctx.build(state, base.entry);
    } else {
      // Fleet-wide single flight: another process may be fetching this URL right now.
      const ticket = await acquireRefresh(ctx.s, state.cacheKey);
      if (ticket.entry !== undefined) {
        try {
          const stored = await ctx.build(state, ticket.entry);
          const use = sharedUse(stored, base, ctx.s.now());
          if (use === 'answer') built = stored;
          else if (use === 'basis') base = stored;
        } catch {
          // A corrupt or now-invalid shared entry is ignored; fetch ourselves.
        }
      }
      if (built === undefined) {
        try {
          const result = await fetchEntry(ctx, state.kind, state.url, base?.entry);
          // A fetch failure is a value (with its Retry-After); the catch below tells it apart.
          // eslint-disable-next-line @typescript-eslint/only-throw-error
          if (!result.ok) throw result;
          storable = result.storable;
          // A body that is not a usable directory throws: a failure of this URL (backed off below), not of its host.
          built = await ctx.build(state, result.entry);
          reportUsable(ctx, result.entry);
          if (base !== undefined && storable && isOlderCopy(built, base)) {
            // NOTES: between two copies the newer wins. Keep the newer keys, take the new freshness window.
            const entry = { ...base.entry, fetchedAtMs: result.entry.fetchedAtMs, freshUntilMs: result.entry.freshUntilMs };
            built = await ctx.build(state, entry, [
              {
                level: 'warning',
                code: 'older-copy-ignored',
                message: 'the directory served an older signed copy than the one cached; the cached keys are kept',
              },
            ]);
          }
          if (storable) await cacheSet(ctx.s, state.cacheKey, built.entry);
          else await cacheDelete(ctx.s, state.cacheKey);
        } finally {
          // After the store, so waiters find the entry; also after a failure, so one of them takes over.
          await ticket.release();
        }
      }
    }
  } catch (error) {
    failure = isFetchFailure(error) ? error : { error: toBotsigError(error, 'the directory could not be fetched') };
  }
  // Outside the try: failed() throws when there is nothing stale to serve.
  if (failure !== undefined || built === undefined) {
    return failed(ctx, state, base, failure?.error ?? fail('ERR_DIRECTORY_FETCH', 'the directory could not be fetched'), failure?.retryAfterMs);
  }
  state.failures = 0;
  state.retryAtMs = 0;
  state.lastError = undefined;
  state.staleView = undefined;
  const t = ctx.s.now();
  if (!storable) {
    // no-store: answer the callers that shared this fetch, keep nothing.
    state.built = undefined;
    state.view = undefined;
    return viewOf(state, built, t, false, ctx.s.skewSeconds).resolution;
  }
  return install(ctx, state, built, t).resolution;
}

/**
 * What a copy another process stored is to a refresh that holds `base`: the answer (fresh,
 * its directory response signatures still valid), the basis of a fetch (stale or lapsed), or
 * nothing (an older signed copy than the one held: between two signed copies the newer wins,
 * whoever fetched them).
 */
function sharedUse(stored: Built, base: Built | undefined, now: number): 'answer' | 'basis' | 'ignore' {
  if (base !== undefined && isOlderCopy(stored, base)) return 'ignore';
  return now < stored.freshUntilMs && !lapsed(stored) ? 'answer' : 'basis';
}

function mayServeStale(built: Built): boolean {
  const cc = parseCacheControl(built.entry.headers['cache-control']);
  return !cc.mustRevalidate && !cc.noCache;
}

/**
 * A copy from a cache whose directory response signatures expired since it was fetched: its
 * HTTP freshness says nothing of them (a build caps freshness at the earliest signature
 * expiry only for signatures still valid). Such a copy is the basis of a refetch, not an answer.
 */
function lapsed(built: Built): boolean {
  return built.diagnostics.some((d) => d.code === 'response-signature-expired');
}

function failed(ctx: ClientContext, state: State, base: Built | undefined, error: BotsigError, retryAfterMs?: number): DirectoryClientResolution {
  const now = ctx.s.now();
  // RFC 9111 §4.2.4: a copy whose response said must-revalidate or no-cache is never used stale,
  // not even while the retry backs off.
  if (base !== undefined && !mayServeStale(base)) {
    base = undefined;
    state.built = undefined;
    state.view = undefined;
    state.staleView = undefined;
  }
  if (error.code === 'ERR_DISCOVERY_LIMITED') {
    // Not the URL's fault (the origin's budget, or its host backing off): no URL back-off; stale keys still serve.
    if (base === undefined) throw error;
    state.lastError = error;
    return staleAnswer(ctx, state, base, now);
  }
  state.failures++;
  const backoff = Math.min(ctx.s.negativeTtlMs, BACKOFF_BASE_MS * 2 ** Math.min(state.failures - 1, 16));
  const jittered = backoff * (0.5 + 0.5 * ctx.s.random());
  state.retryAtMs = now + Math.min(ctx.s.negativeTtlMs, Math.max(jittered, retryAfterMs ?? 0));
  state.lastError = error;
  if (base === undefined) throw error;
  // Stale-if-error: an outage never revokes keys that a previous success published.
  state.built = base;
  state.view = undefined;
  state.staleView = viewOf(state, state.built, now, true, ctx.s.skewSeconds);
  return state.staleView.resolution;
}

function install(ctx: ClientContext, state: State, built: Built, now: number): View {
  state.built = built;
  state.staleView = undefined;
  state.view = viewOf(state, built, now, false, ctx.s.skewSeconds);
  return state.view;
}

function isFetchFailure(value: unknown): value is { ok: false; error: BotsigError; retryAfterMs?: number } {
  return typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false && isBotsigError((value as { error?: unknown }).error);
}

/** A fetched copy older than the one held: both signed, and the fetched one's newest signature is older. */
function isOlderCopy(fetched: Built, held: Built): boolean {
  return fetched.newestProof !== undefined && held.newestProof !== undefined && fetched.newestProof < held.newestProof;
}

// ---------------------------------------------------------------------------
// The shared cache

/** The settings the cache wrappers read. */
type CacheSettings = Pick<Settings, 'cache' | 'now' | 'timeoutMs'>;

const noRelease = (): Promise<void> => Promise.resolve();
/** "Fetch yourself, no fleet-wide lock held". */
const FETCH_UNLOCKED = /* @__PURE__ */ Object.freeze({ release: noRelease });

export async function cacheGet(s: CacheSettings, key: string): Promise<DirectoryCacheEntry | undefined> {
  try {
    const entry = await s.cache.get(key);
    return isEntry(entry) ? entry : undefined;
  } catch {
    return undefined;
  }
}

export async function cacheSet(s: CacheSettings, key: string, entry: DirectoryCacheEntry): Promise<void> {
  try {
    await s.cache.set(key, entry);
  } catch {
    // The process-local state still has the keys; the next refresh tries again.
  }
}

export async function cacheDelete(s: CacheSettings, key: string): Promise<void> {
  try {
    await s.cache.delete(key);
  } catch {
    // As above.
  }
}

/**
 * Asks a coordinating cache (one with `acquireRefresh`, e.g. RedisDirectoryCache)
 * whether this process should fetch, or can use what another process just
 * stored. Plain caches, and any failure, mean "fetch" (as before).
 */
export async function acquireRefresh(s: CacheSettings, key: string): Promise<{ readonly entry?: DirectoryCacheEntry; readonly release: () => Promise<void> }> {
  const cache = s.cache as DirectoryCache & Partial<Pick<CoordinatedDirectoryCache, 'acquireRefresh'>>;
  if (typeof cache.acquireRefresh !== 'function') return FETCH_UNLOCKED;
  try {
    const ticket = await cache.acquireRefresh(key, {
      // The lock outlives one fetch (the whole exchange is bounded by timeoutMs); waiters give up after one fetch's time.
      lockTtlMs: s.timeoutMs + 1000,
      maxWaitMs: s.timeoutMs,
      usable: (entry) => isEntry(entry) && s.now() < entry.freshUntilMs,
    });
    if (ticket.entry !== undefined) return isEntry(ticket.entry) ? { entry: ticket.entry, release: noRelease } : FETCH_UNLOCKED;
    const release = ticket.release;
    return typeof release === 'function'
      ? {
          release: () =>
            Promise.resolve()
              .then(release)
              .catch(() => undefined),
        }
      : FETCH_UNLOCKED;
  } catch {
    return FETCH_UNLOCKED;
  }
}

/** A well-formed cache entry (version 1): anything else from a shared cache is ignored. */
function isEntry(value: unknown): value is DirectoryCacheEntry {
  if (!isPlainObject(value)) return false;
  const e = value as Partial<DirectoryCacheEntry>;
  return (
    e.v === 1 &&
    typeof e.url === 'string' &&
    typeof e.body === 'string' &&
    isPlainObject(e.headers) &&
    typeof e.fetchedAtMs === 'number' &&
    typeof e.requestedAtMs === 'number' &&
    typeof e.freshUntilMs === 'number'
  );
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------
// The time-of-use filter

/** The answer for `now`: keys inside their validity window, and until when that holds. */
export function viewOf(state: State, built: Built, now: number, stale: boolean, skew: number): View {
  const nowSeconds = now / 1000;
  let checkAtMs = stale ? Number.POSITIVE_INFINITY : built.freshUntilMs;
  const keys: DirectoryClientKey[] = [];
  let diagnostics: Diagnostic[] | undefined;
  for (const candidate of built.keys) {
    let key = candidate.key;
    const window = candidate.window;
    if (window !== undefined) {
      const early = nowSeconds < window.fromS - skew;
      if (early || nowSeconds > window.untilS + skew) {
        (diagnostics ??= [...built.diagnostics]).push({
          level: candidate.fallback === undefined ? 'error' : 'warning',
          code: early ? 'delegation-not-yet-valid' : 'delegation-expired',
          message: `the certificate chain is ${early ? 'not valid yet' : 'past its validity'}; ${candidate.fallback === undefined ? 'left out' : 'served with its directory proof'}`,
          at: candidate.at,
        });
        if (early) checkAtMs = Math.min(checkAtMs, (window.fromS - skew) * 1000);
        if (candidate.fallback === undefined) continue;
        key = candidate.fallback;
      } else {
        checkAtMs = Math.min(checkAtMs, (window.untilS + skew) * 1000 + 1);
      }
    }
    const { nbf, exp } = key;
    if (nbf !== undefined && nowSeconds < nbf - skew) {
      (diagnostics ??= [...built.diagnostics]).push({
        level: 'warning',
        code: 'key-not-yet-valid',
        message: 'key is before its nbf; left out',
        at: candidate.at,
      });
      checkAtMs = Math.min(checkAtMs, (nbf - skew) * 1000);
      continue;
    }
    if (exp !== undefined && nowSeconds >= exp + skew) {
      (diagnostics ??= [...built.diagnostics]).push({ level: 'warning', code: 'key-expired', message: 'key is past its exp; left out', at: candidate.at });
      continue;
    }
    if (exp !== undefined) checkAtMs = Math.min(checkAtMs, (exp + skew) * 1000);
    keys.push(key);
  }
  if (stale) {
    (diagnostics ??= [...built.diagnostics]).push({
      level: 'warning',
      code: 'directory-stale',
      message: `the refresh failed (${state.lastError?.code ?? 'ERR_DIRECTORY_FETCH'}); serving the keys of the last good response`,
    });
  }
  const resolution: DirectoryClientResolution = Object.freeze({
    url: state.identifier,
    keys: Object.freeze(keys),
    diagnostics: diagnostics === undefined ? built.diagnostics : Object.freeze(diagnostics),
    stale: stale || built.staleKeys,
    proof: proofSummary(keys),
    ...(built.card === undefined ? {} : { card: built.card }),
  });
  return { resolution, checkAtMs };
}

/** Response-signature proof (SPEC 5.4) only: a delegated key counts when a signature proves it too. */
export function proofSummary(keys: readonly DirectoryClientKey[]): DirectoryClientResolution['proof'] {
  let signed = 0;
  for (const k of keys) if (k.signedAt !== undefined) signed++;
  return signed === 0 ? 'unsigned' : signed === keys.length ? 'signed' : 'partial';
}
