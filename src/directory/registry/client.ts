/**
 * `RegistryClient`: keeps a registry of Signature Agent Cards
 * (draft-meunier-webbotauth-registry) up to date and answers, in O(1) on the request
 * path, whether a verified agent is listed and with which card.
 *
 * Every fetch (the registry, each card) goes through a `DirectoryClient`'s fetch step:
 * its URL guard, outbound budget (concurrency, rate, per-host back-off, new hosts per
 * site) and, on Node, its guarded fetch. Share one `DirectoryClient` between the
 * verifier and the registry and both draw on one budget.
 *
 * Polling: conditional requests (`If-None-Match`, `If-Modified-Since`, RFC 9110 §13.1),
 * the next poll when `Cache-Control` says the registry goes stale, never sooner than
 * `minIntervalSeconds`, never later than `maxIntervalSeconds`; failures back off and
 * keep the last good registry. Cards are fetched a few at a time, without redirects,
 * each revalidated when its own freshness ends. `close()` (or the `signal`) stops it:
 * no timer, no new fetch.
 *
 * Beside it: `types.ts` (options, status, matches), `read-card.ts` (one fetched entry to a
 * card or a directory), `listing.ts` (the O(1) listing and which results it attaches a card to),
 * `integrity.ts` (the operator's signature on the registry response).
 */
import type { Diagnostic } from '../../core/diagnostics';
import { isBotsigError } from '../../core/errors';
import { systemClock } from '../../core/time';
import type { Clock } from '../../core/time';
import { tryParseUrl } from '../../core/url';
import type { SignatureAgentCard } from '../../profile/card';
import type { ErrorInfo, VerificationResult } from '../../profile/types';
import type { DirectoryCacheEntry } from '../cache';
import { DirectoryClient, fetchContextOf } from '../client';
import { fetchEntry, reportUsable } from '../client/fetch';
import type { FetchContext } from '../client/types';
import { buildListing, EMPTY_LISTING, lookupResult, type Listing } from './listing';
import { parseRegistry, REGISTRY_DEFAULTS } from './parse';
import type { ParsedRegistry, RegistryEntry } from './parse';
import { RegistryIntegrity } from './integrity';
import { readRegistryCard } from './read-card';
import type { RegistryClientLimits, RegistryClientOptions, RegistryEntryStatus, RegistryMatch, RegistryStatus } from './types';

interface CardState {
  readonly entry: RegistryEntry;
  kind: 'card' | 'directory' | undefined;
  card: SignatureAgentCard | undefined;
  thumbprints: readonly string[];
  stored: DirectoryCacheEntry | undefined;
  /**
   * What the entry reports: the last good read's findings, or why it failed since. Placed
   * within the entry (`at` below it), not by line: `status()` adds the line the entry is on now.
   */
  diagnostics: readonly Diagnostic[];
  /** The findings of the last good read, reported again once the entry recovers. */
  readDiagnostics: readonly Diagnostic[];
  /** When to fetch again (freshness, or the back-off after a failure). */
  dueAtMs: number;
  failures: number;
  error: ErrorInfo | undefined;
}

const NO_DIAGNOSTICS: readonly Diagnostic[] = /* @__PURE__ */ Object.freeze([]);
/** First wait after a failure; doubles per failure, up to `maxIntervalSeconds`. */
const BACKOFF_BASE_MS = 30_000;
/** Wait after the outbound budget refused a fetch (not the URL's fault). */
const LIMITED_RETRY_MS = 5_000;
/** Shortest timer: a tick never reschedules itself in a tight loop. */
const MIN_TICK_MS = 1_000;
function seconds(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 31_536_000) {
    throw new TypeError(`options.${name} must be a number of seconds from 0 to 31,536,000`);
  }
  return value;
}

function info(error: unknown, fallback: string): ErrorInfo {
  if (isBotsigError(error)) return { code: error.code, message: error.message };
  return { code: 'ERR_INTERNAL', message: fallback };
}

function entryKey(entry: RegistryEntry): string {
  return entry.kind === 'https' ? entry.url : `data ${entry.text}`;
}

/**
 * Polls a registry of Signature Agent Cards and answers who is listed.
 *
 * @example
 * const directory = new DirectoryClient();
 * const registry = new RegistryClient({ url: 'https://registry.example/bots.txt', directory });
 * await registry.refresh();
 * registry.start();
 * const verifier = createVerifier({ directory, policy: registryPolicy({ registry, purposes: ['search'] }) });
 */
export class RegistryClient {
  readonly url: string;
  private readonly ctx: FetchContext;
  /** The client whose fetch and guards this one uses; it resolves the jwks_uri of a signed card. */
  private readonly directory: DirectoryClient;
  private readonly now: Clock;
  private readonly minIntervalMs: number;
  private readonly maxIntervalMs: number;
  private readonly limits: Required<RegistryClientLimits>;
  private readonly onRefresh: ((status: RegistryStatus) => void) | undefined;
  private readonly integrity: RegistryIntegrity;
  private listing: Listing = EMPTY_LISTING;
  private parsed: ParsedRegistry | undefined;
  private stored: DirectoryCacheEntry | undefined;
  private cards = new Map<string, CardState>();
  private registryDueAtMs = 0;
  private registryFailures = 0;
  private lastError: ErrorInfo | undefined;
  private fetchedAtMs: number | undefined;
  private inflight: Promise<RegistryStatus> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private started = false;
  private closedFlag = false;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort = (): void => this.close();

  /**
   * @throws TypeError for malformed options (a URL that is not absolute http(s), numbers out of range).
   */
  constructor(options: RegistryClientOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('RegistryClient needs options');
    const url = typeof options.url === 'string' ? tryParseUrl(options.url) : undefined;
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new TypeError('options.url must be an absolute https URL');
    url.hash = '';
    this.url = url.href;
    const given = options.directory;
    const directory = given instanceof DirectoryClient ? given : new DirectoryClient(given ?? {});
    const ctx = fetchContextOf(directory);
    if (ctx === undefined) throw new TypeError('options.directory must be a DirectoryClient or its options');
    this.ctx = ctx;
    this.directory = directory;
    this.now = options.now ?? systemClock;
    if (typeof this.now !== 'function') throw new TypeError('options.now must be a function returning milliseconds');
    this.minIntervalMs = seconds(options.minIntervalSeconds, 'minIntervalSeconds', 60) * 1000;
    this.maxIntervalMs = Math.max(this.minIntervalMs, seconds(options.maxIntervalSeconds, 'maxIntervalSeconds', 3600) * 1000);
    const l = options.limits ?? {};
    if (typeof l !== 'object' || l === null) throw new TypeError('options.limits must be an object');
    const count = (v: unknown, name: string, fallback: number, max: number): number => {
      if (v === undefined) return fallback;
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1 || v > max)
        throw new TypeError(`options.limits.${name} must be an integer from 1 to ${max}`);
      return v;
    };
    this.limits = {
      maxBytes: count(l.maxBytes, 'maxBytes', REGISTRY_DEFAULTS.maxBytes, 64 * 1024 * 1024),
      maxEntries: count(l.maxEntries, 'maxEntries', REGISTRY_DEFAULTS.maxEntries, 1_000_000),
      maxLines: count(l.maxLines, 'maxLines', REGISTRY_DEFAULTS.maxLines, 10_000_000),
      maxLineLength: count(l.maxLineLength, 'maxLineLength', REGISTRY_DEFAULTS.maxLineLength, 1024 * 1024),
      cardConcurrency: count(l.cardConcurrency, 'cardConcurrency', 4, 64),
    };
    this.integrity = new RegistryIntegrity(options.operator, ctx, directory);
    if (options.onRefresh !== undefined && typeof options.onRefresh !== 'function') throw new TypeError('options.onRefresh must be a function');
    this.onRefresh = options.onRefresh;
    this.signal = options.signal;
    if (this.signal !== undefined) {
      if (this.signal.aborted) this.closedFlag = true;
      else this.signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /** True once {@link close} was called (or the signal aborted). */
  get closed(): boolean {
    return this.closedFlag;
  }

  /** True once a registry has been loaded (the listing answers; it may be stale). */
  get loaded(): boolean {
    return this.parsed !== undefined;
  }

  /**
   * The entry listing the agent of a verified result, in O(1): its first verified
   * signature by the identifier it was verified under (the entry's URL, its card's
   * `client_id` or `jwks_uri`), or, for a signature verified with a static key, by that
   * key (one of a card's inline keys). A key served under another URL never matches a
   * card (`./listing.ts`). `undefined` when the result is not verified or the agent is
   * not listed. Allocates nothing.
   */
  lookup(result: VerificationResult): RegistryMatch | undefined {
    return lookupResult(this.listing, result);
  }

  /** The entry listing an agent identifier (a verifier's `result.agent`), or undefined. O(1). */
  lookupAgent(identifier: string): RegistryMatch | undefined {
    return this.listing.byIdentifier.get(identifier);
  }

  /** What became of each entry, in registry order. */
  entries(): RegistryEntryStatus[] {
    const out: RegistryEntryStatus[] = [];
    for (const state of this.cards.values()) {
      const s: { -readonly [K in keyof RegistryEntryStatus]: RegistryEntryStatus[K] } = {
        entry: state.entry,
        state: state.kind ?? (state.error === undefined ? 'pending' : 'failed'),
      };
      if (state.card !== undefined) s.card = state.card;
      if (state.error !== undefined) s.error = state.error;
      out.push(s);
    }
    return out;
  }

  /** The registry as held now. */
  status(): RegistryStatus {
    const diagnostics: Diagnostic[] = [...(this.parsed?.diagnostics ?? NO_DIAGNOSTICS)];
    let resolved = 0;
    for (const state of this.cards.values()) {
      if (state.kind !== undefined) resolved++;
      const line = `line ${state.entry.line}`;
      for (const d of state.diagnostics) diagnostics.push({ ...d, at: d.at === undefined ? line : `${line} ${d.at}` });
    }
    diagnostics.push(...this.listing.conflicts);
    const out: { -readonly [K in keyof RegistryStatus]: RegistryStatus[K] } = {
      url: this.url,
      loaded: this.parsed !== undefined,
      stale: this.parsed !== undefined && this.lastError !== undefined,
      entries: this.cards.size,
      resolved,
      diagnostics,
    };
    if (this.fetchedAtMs !== undefined) out.fetchedAtMs = this.fetchedAtMs;
    if (this.lastError !== undefined) out.lastError = this.lastError;
    if (!this.closedFlag) out.nextRefreshAtMs = this.nextDueAtMs();
    return out;
  }

  /**
   * Fetches the registry now (a conditional request once one is held), then every card
   * that is new or due, and installs the new listing. Never rejects for what the network
   * or the registry does: failures are in the status (`lastError`, `stale`, entry errors).
   * Concurrent calls share one refresh. After `close()` it does nothing.
   */
  refresh(): Promise<RegistryStatus> {
    return this.run(true);
  }

  /**
   * Starts polling: a refresh now (unless one is under way), then one whenever the
   * registry or a card is due. Idempotent. The timer does not keep a Node process alive.
   */
  start(): this {
    if (this.closedFlag || this.started) return this;
    this.started = true;
    if (this.inflight === undefined) void this.run(false);
    return this;
  }

  /** Stops polling for good: clears the timer; a fetch under way ends within its deadline and is ignored. */
  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.signal?.removeEventListener('abort', this.onAbort);
  }

  private nextDueAtMs(): number {
    let due = this.registryDueAtMs;
    for (const state of this.cards.values()) if (state.entry.kind === 'https' && state.dueAtMs < due) due = state.dueAtMs;
    return due;
  }

  private run(force: boolean): Promise<RegistryStatus> {
    if (this.closedFlag) return Promise.resolve(this.status());
    if (this.inflight !== undefined) return this.inflight;
    const pending = this.tick(force)
      .catch(() => undefined)
      .then(() => {
        this.inflight = undefined;
        const status = this.status();
        if (this.onRefresh !== undefined) {
          try {
            this.onRefresh(status);
          } catch {
            // A hook must not stop the polling.
          }
        }
        this.schedule();
        return status;
      });
    this.inflight = pending;
    return pending;
  }

  private schedule(): void {
    if (!this.started || this.closedFlag) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    const delay = Math.max(MIN_TICK_MS, this.nextDueAtMs() - this.now());
    const timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.run(false);
      },
      Math.min(delay, 2_147_483_647),
    );
    (timer as { unref?: () => void }).unref?.();
    this.timer = timer;
  }

  private async tick(force: boolean): Promise<void> {
    const now = this.now();
    if (force || this.parsed === undefined || now >= this.registryDueAtMs) await this.fetchRegistry();
    if (this.closedFlag) return;
    if ((await this.fetchCards()) && !this.closedFlag) this.listing = buildListing(this.cards.values());
  }

  /** One fetch of the registry; new entries are listed at once. */
  private async fetchRegistry(): Promise<void> {
    const result = await fetchEntry(this.ctx, 'registry', this.url, this.stored, this.limits.maxBytes);
    if (this.closedFlag) return;
    const now = this.now();
    if (!result.ok) {
      this.lastError = info(result.error, 'the registry could not be fetched');
      this.registryFailures++;
      const backoff = result.error.code === 'ERR_DISCOVERY_LIMITED' ? LIMITED_RETRY_MS : BACKOFF_BASE_MS * 2 ** Math.min(this.registryFailures - 1, 16);
      this.registryDueAtMs = now + Math.min(this.maxIntervalMs, Math.max(backoff, result.retryAfterMs ?? 0));
      return;
    }
    const entry = result.entry;
    let parsed: ParsedRegistry;
    const unchanged = this.stored !== undefined && this.parsed !== undefined && entry.body === this.stored.body;
    // A new text must carry the operator's signature when one is configured (the same text was checked when it came).
    let signatureFindings: readonly Diagnostic[] = NO_DIAGNOSTICS;
    if (!unchanged) {
      try {
        signatureFindings = await this.integrity.check(entry);
      } catch (error) {
        if (this.closedFlag) return;
        // Not counted against the registry's host: the refusal may be the operator card's (another host).
        this.lastError = info(error, 'the registry signature could not be checked');
        this.registryFailures++;
        this.registryDueAtMs = this.now() + Math.min(this.maxIntervalMs, BACKOFF_BASE_MS * 2 ** Math.min(this.registryFailures - 1, 16));
        return;
      }
      if (this.closedFlag) return;
    }
    if (unchanged) {
      parsed = this.parsed!;
    } else {
      try {
        parsed = parseRegistry(entry.body, {
          maxBytes: this.limits.maxBytes,
          maxEntries: this.limits.maxEntries,
          maxLines: this.limits.maxLines,
          maxLineLength: this.limits.maxLineLength,
          allowHttp: this.ctx.s.allowHttp,
        });
      } catch (error) {
        this.lastError = info(error, 'the registry could not be read');
        this.registryFailures++;
        this.registryDueAtMs = now + Math.min(this.maxIntervalMs, BACKOFF_BASE_MS * 2 ** Math.min(this.registryFailures - 1, 16));
        return;
      }
    }
    if (signatureFindings.length > 0) parsed = { ...parsed, diagnostics: Object.freeze([...parsed.diagnostics, ...signatureFindings]) };
    const contentType = entry.headers['content-type'];
    const essence = contentType?.split(';')[0]?.trim().toLowerCase();
    if (!unchanged && essence !== undefined && essence !== 'text/plain') {
      parsed = {
        ...parsed,
        diagnostics: Object.freeze([
          ...parsed.diagnostics,
          { level: 'warning', code: 'registry-content-type', message: `the registry is served as ${essence}; text/plain is expected` } satisfies Diagnostic,
        ]),
      };
    }
    reportUsable(this.ctx, entry);
    this.stored = entry;
    this.fetchedAtMs = now;
    this.lastError = undefined;
    this.registryFailures = 0;
    this.registryDueAtMs = Math.min(now + this.maxIntervalMs, Math.max(now + this.minIntervalMs, entry.freshUntilMs));
    if (unchanged) return;
    this.parsed = parsed;
    // Keep what is known of entries that stay; forget removed ones.
    const next = new Map<string, CardState>();
    for (const e of parsed.entries) {
      const key = entryKey(e);
      const old = this.cards.get(key);
      if (old !== undefined) {
        next.set(key, old.entry === e ? old : { ...old, entry: e });
        continue;
      }
      if (e.kind === 'data') {
        next.set(key, {
          entry: e,
          kind: 'card',
          card: e.card,
          thumbprints: e.keys.map((k) => k.thumbprint),
          stored: undefined,
          diagnostics: NO_DIAGNOSTICS,
          readDiagnostics: NO_DIAGNOSTICS,
          dueAtMs: Number.POSITIVE_INFINITY,
          failures: 0,
          error: undefined,
        });
      } else {
        next.set(key, {
          entry: e,
          kind: undefined,
          card: undefined,
          thumbprints: [],
          stored: undefined,
          diagnostics: NO_DIAGNOSTICS,
          readDiagnostics: NO_DIAGNOSTICS,
          dueAtMs: 0,
          failures: 0,
          error: undefined,
        });
      }
    }
    this.cards = next;
    // Listed at once by their URLs (and the cards known of kept entries); the cards this
    // change brings are added when they come. A slow card server delays only its own card.
    this.listing = buildListing(next.values());
  }

  /** Fetches the cards that are due, a few at a time; true when any listing changed. */
  private async fetchCards(): Promise<boolean> {
    const now = this.now();
    const due: CardState[] = [];
    for (const state of this.cards.values()) if (state.entry.kind === 'https' && now >= state.dueAtMs) due.push(state);
    let changed = false;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < due.length && !this.closedFlag) {
        const state = due[next++]!;
        if ((await this.fetchCard(state)) && this.cards.get(entryKey(state.entry)) === state) changed = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.limits.cardConcurrency, due.length) }, worker));
    return changed;
  }

  /** One card fetch (conditional when one is held); true when its listing changed. */
  private async fetchCard(state: CardState): Promise<boolean> {
    const entry = state.entry;
    if (entry.kind !== 'https') return false;
    const result = await fetchEntry(this.ctx, 'cimd', entry.url, state.stored);
    const now = this.now();
    if (!result.ok) {
      const limited = result.error.code === 'ERR_DISCOVERY_LIMITED';
      if (!limited) state.failures++;
      state.error = info(result.error, 'the card could not be fetched');
      const backoff = limited ? LIMITED_RETRY_MS : BACKOFF_BASE_MS * 2 ** Math.min(state.failures - 1, 16);
      state.dueAtMs = now + Math.min(this.maxIntervalMs, Math.max(backoff, result.retryAfterMs ?? 0));
      state.diagnostics = failureDiagnostics(state);
      return false;
    }
    const fetched = result.entry;
    const dueAtMs = Math.max(now + this.minIntervalMs, fetched.freshUntilMs);
    if (state.stored !== undefined && fetched.body === state.stored.body && state.kind !== undefined) {
      // 304, or the same bytes: the listing stands, and an entry that failed since has recovered.
      reportUsable(this.ctx, fetched);
      state.stored = fetched;
      state.dueAtMs = dueAtMs;
      state.failures = 0;
      state.error = undefined;
      state.diagnostics = state.readDiagnostics;
      return false;
    }
    try {
      const built = await readRegistryCard(this.ctx, this.directory, entry.text, fetched);
      reportUsable(this.ctx, fetched);
      state.kind = built.kind;
      state.card = built.card;
      state.thumbprints = built.thumbprints;
      state.diagnostics = state.readDiagnostics = built.diagnostics;
      state.stored = fetched;
      state.failures = 0;
      state.error = undefined;
      state.dueAtMs = dueAtMs;
      return true;
    } catch (error) {
      // A card refused now: the listing keeps the last good card (stale-if-error) until it is fixed.
      state.failures++;
      state.error = info(error, 'the card could not be read');
      state.dueAtMs = now + Math.min(this.maxIntervalMs, BACKOFF_BASE_MS * 2 ** Math.min(state.failures - 1, 16));
      state.diagnostics = failureDiagnostics(state);
      return false;
    }
  }
}

/** Why an entry failed (its error), placed at the entry by `status()`. */
function failureDiagnostics(state: CardState): readonly Diagnostic[] {
  const error = state.error!;
  return Object.freeze([
    {
      level: 'error',
      code: 'registry-entry-failed',
      message: `${error.code}: ${error.message}${state.kind === undefined ? '' : '; the last good copy is still listed'}`,
    } satisfies Diagnostic,
  ]);
}
