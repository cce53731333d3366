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
 */
import type { Diagnostic } from '../../core/diagnostics';
import { BotsigError, isBotsigError } from '../../core/errors';
import { systemClock } from '../../core/time';
import type { Clock } from '../../core/time';
import { normalizeUrl, tryParseUrl } from '../../core/url';
import { importVerifyingKey } from '../../crypto/keys/verifying';
import type { VerifyingKey } from '../../crypto/types';
import type { SignatureAgentCard } from '../../profile/card';
import type { ErrorInfo, VerificationResult } from '../../profile/types';
import type { DirectoryCacheEntry } from '../cache';
import { parseSignatureAgentCard } from '../card/parse';
import { cardResponseFailure, carriesCardProof } from '../card/signatures';
import { DirectoryClient, fetchContextOf } from '../client';
import type { DirectoryClientOptions } from '../client';
import { fetchEntry } from '../client/fetch-step';
import type { FetchContext } from '../client/types';
import { parseRegistry, REGISTRY_DEFAULTS } from './parse';
import type { ParsedRegistry, RegistryEntry } from './parse';

/** Bounds of a {@link RegistryClient}. */
export interface RegistryClientLimits {
  /** Largest registry, in bytes. Default 1 MiB. */
  readonly maxBytes?: number;
  /** Most entries kept. Default 10,000. */
  readonly maxEntries?: number;
  /** Most lines read. Default 100,000. */
  readonly maxLines?: number;
  /** Longest line, in characters. Default 16,384. */
  readonly maxLineLength?: number;
  /** Cards fetched at once. Default 4. */
  readonly cardConcurrency?: number;
}

/** Options of {@link RegistryClient}. */
export interface RegistryClientOptions {
  /** The registry's URL (`https`; `http` or a private host only when the directory client allows it). */
  readonly url: string;
  /**
   * The `DirectoryClient` whose guards and outbound budget every fetch uses (pass the
   * verifier's, so both share one budget), or options for a new one. Default: a new
   * `DirectoryClient` with its defaults.
   */
  readonly directory?: DirectoryClient | DirectoryClientOptions;
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly now?: Clock;
  /** Shortest time between two fetches of the registry (and of one card), whatever `Cache-Control` says. Default 60. */
  readonly minIntervalSeconds?: number;
  /** Longest time between two fetches of the registry. Default 3,600. */
  readonly maxIntervalSeconds?: number;
  readonly limits?: RegistryClientLimits;
  /** Aborting it closes the client (as {@link RegistryClient.close}). */
  readonly signal?: AbortSignal;
  /** Called after each refresh with the status, for logs and metrics. Errors it throws are ignored. */
  readonly onRefresh?: (status: RegistryStatus) => void;
}

/** What became of one entry. */
export interface RegistryEntryStatus {
  readonly entry: RegistryEntry;
  /**
   * `card`: a card (fetched, or inline); `directory`: the URL serves a key directory, not a
   * card (the draft's example lists such URLs): listed by its URL, without a card;
   * `pending`: not fetched yet; `failed`: never fetched successfully (see `error`).
   */
  readonly state: 'card' | 'directory' | 'pending' | 'failed';
  readonly card?: SignatureAgentCard;
  /** The last failure (also set while an older card is still served). */
  readonly error?: ErrorInfo;
}

/** The registry as the client holds it. */
export interface RegistryStatus {
  readonly url: string;
  /** A registry has been loaded at least once (the listing answers). */
  readonly loaded: boolean;
  /** The last registry fetch failed; the last good registry is in use. */
  readonly stale: boolean;
  /** When the registry was last fetched or revalidated successfully (ms). */
  readonly fetchedAtMs?: number;
  readonly lastError?: ErrorInfo;
  /** When the next poll is due (ms); absent once closed. */
  readonly nextRefreshAtMs?: number;
  readonly entries: number;
  /** Entries with a card or a directory in the listing. */
  readonly resolved: number;
  /** The registry's line diagnostics, then each entry's (`at: 'line N …'`). */
  readonly diagnostics: readonly Diagnostic[];
}

/** A verified agent found in the registry. */
export interface RegistryMatch {
  readonly entry: RegistryEntry;
  /** The registry's copy of the card; `undefined` for a directory entry or a card not fetched yet. */
  readonly card: SignatureAgentCard | undefined;
  /**
   * `identifier`: the agent identifier is the entry's URL, its card's `client_id` or its
   * card's `jwks_uri`; `key`: the signature's key is one of the card's inline keys.
   */
  readonly by: 'identifier' | 'key';
}

interface CardState {
  readonly entry: RegistryEntry;
  kind: 'card' | 'directory' | undefined;
  card: SignatureAgentCard | undefined;
  thumbprints: readonly string[];
  stored: DirectoryCacheEntry | undefined;
  diagnostics: readonly Diagnostic[];
  /** When to fetch again (freshness, or the back-off after a failure). */
  dueAtMs: number;
  failures: number;
  error: ErrorInfo | undefined;
}

interface Index {
  readonly byIdentifier: ReadonlyMap<string, RegistryMatch>;
  readonly byKey: ReadonlyMap<string, RegistryMatch>;
}

const EMPTY_INDEX: Index = Object.freeze({ byIdentifier: new Map(), byKey: new Map() });
const NO_DIAGNOSTICS: readonly Diagnostic[] = Object.freeze([]);
/** First wait after a failure; doubles per failure, up to `maxIntervalSeconds`. */
const BACKOFF_BASE_MS = 30_000;
/** Wait after the outbound budget refused a fetch (not the URL's fault). */
const LIMITED_RETRY_MS = 5_000;
/** Shortest timer: a tick never reschedules itself in a tight loop. */
const MIN_TICK_MS = 1_000;
/** Members only a key directory has, and none of a card's. */
const CARD_MEMBERS = ['client_id', 'client_name', 'client_uri', 'logo_uri', 'contacts', 'jwks', 'jwks_uri', 'web_bot_auth'];

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

/** The identifier a verifier reports for a URL (NOTES "Keys and identity"), or undefined. */
function identifierOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const parsed = tryParseUrl(url);
  if (parsed === undefined) return undefined;
  parsed.hash = '';
  try {
    return normalizeUrl(parsed.href);
  } catch {
    return undefined;
  }
}

function entryKey(entry: RegistryEntry): string {
  return entry.kind === 'https' ? entry.url : `data ${entry.text}`;
}

/** A JSON object that is a key set rather than a card: `keys`, and no card member. */
function looksLikeDirectory(body: string): boolean {
  let doc: unknown;
  try {
    doc = JSON.parse(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
  } catch {
    return false;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return false;
  const o = doc as Record<string, unknown>;
  return Object.prototype.hasOwnProperty.call(o, 'keys') && !CARD_MEMBERS.some((m) => Object.prototype.hasOwnProperty.call(o, m));
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
  private index: Index = EMPTY_INDEX;
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
   * The entry listing the agent of a verified result, in O(1): by the agent identifier
   * (the entry's URL, its card's `client_id` or `jwks_uri`), else by the verified
   * signature's key (one of the card's inline keys). `undefined` when the result is not
   * verified or the agent is not listed. Allocates nothing.
   */
  lookup(result: VerificationResult): RegistryMatch | undefined {
    if (result.outcome !== 'verified') return undefined;
    const index = this.index;
    const agent = result.agent;
    if (agent !== undefined) {
      const hit = index.byIdentifier.get(agent);
      if (hit !== undefined) return hit;
    }
    if (index.byKey.size === 0) return undefined;
    const signatures = result.signatures;
    for (let i = 0; i < signatures.length; i++) {
      const s = signatures[i]!;
      if (s.outcome !== 'verified') continue;
      return s.keyid === undefined ? undefined : index.byKey.get(s.keyid);
    }
    return undefined;
  }

  /** The entry listing an agent identifier (a verifier's `result.agent`), or undefined. O(1). */
  lookupAgent(identifier: string): RegistryMatch | undefined {
    return this.index.byIdentifier.get(identifier);
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
      for (const d of state.diagnostics) diagnostics.push(d);
    }
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
    let changed = false;
    if (force || this.parsed === undefined || now >= this.registryDueAtMs) changed = await this.fetchRegistry();
    if (this.closedFlag) return;
    changed = (await this.fetchCards()) || changed;
    if (changed && !this.closedFlag) this.index = this.buildIndex();
  }

  /** One fetch of the registry; true when the entries changed. */
  private async fetchRegistry(): Promise<boolean> {
    const result = await fetchEntry(this.ctx, 'registry', this.url, this.stored, this.limits.maxBytes);
    if (this.closedFlag) return false;
    const now = this.now();
    if (!result.ok) {
      this.lastError = info(result.error, 'the registry could not be fetched');
      this.registryFailures++;
      const backoff = result.error.code === 'ERR_DISCOVERY_LIMITED' ? LIMITED_RETRY_MS : BACKOFF_BASE_MS * 2 ** Math.min(this.registryFailures - 1, 16);
      this.registryDueAtMs = now + Math.min(this.maxIntervalMs, Math.max(backoff, result.retryAfterMs ?? 0));
      return false;
    }
    const entry = result.entry;
    let parsed: ParsedRegistry;
    const unchanged = this.stored !== undefined && this.parsed !== undefined && entry.body === this.stored.body;
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
        return false;
      }
    }
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
    this.stored = entry;
    this.fetchedAtMs = now;
    this.lastError = undefined;
    this.registryFailures = 0;
    this.registryDueAtMs = Math.min(now + this.maxIntervalMs, Math.max(now + this.minIntervalMs, entry.freshUntilMs));
    if (unchanged) return false;
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
          dueAtMs: 0,
          failures: 0,
          error: undefined,
        });
      }
    }
    this.cards = next;
    return true;
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
    const at = `line ${entry.line}`;
    const result = await fetchEntry(this.ctx, 'cimd', entry.url, state.stored);
    const now = this.now();
    if (!result.ok) {
      const limited = result.error.code === 'ERR_DISCOVERY_LIMITED';
      if (!limited) state.failures++;
      state.error = info(result.error, 'the card could not be fetched');
      const backoff = limited ? LIMITED_RETRY_MS : BACKOFF_BASE_MS * 2 ** Math.min(state.failures - 1, 16);
      state.dueAtMs = now + Math.min(this.maxIntervalMs, Math.max(backoff, result.retryAfterMs ?? 0));
      state.diagnostics = this.failureDiagnostics(state, at);
      return false;
    }
    const fetched = result.entry;
    const dueAtMs = Math.max(now + this.minIntervalMs, fetched.freshUntilMs);
    if (state.stored !== undefined && fetched.body === state.stored.body && state.kind !== undefined) {
      // 304, or the same bytes: the listing stands.
      state.stored = fetched;
      state.dueAtMs = dueAtMs;
      return false;
    }
    try {
      const built = await this.readCard(entry.text, fetched);
      state.kind = built.kind;
      state.card = built.card;
      state.thumbprints = built.thumbprints;
      state.diagnostics = built.diagnostics.map((d) => ({ ...d, at: d.at === undefined ? at : `${at} ${d.at}` }));
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
      state.diagnostics = this.failureDiagnostics(state, at);
      return false;
    }
  }

  private failureDiagnostics(state: CardState, at: string): readonly Diagnostic[] {
    const error = state.error!;
    return Object.freeze([
      {
        level: 'error',
        code: 'registry-entry-failed',
        message: `${error.code}: ${error.message}${state.kind === undefined ? '' : '; the last good copy is still listed'}`,
        at,
      } satisfies Diagnostic,
    ]);
  }

  /** A fetched entry turned into its listing: a card (checked, signatures included) or a key directory. */
  private async readCard(
    text: string,
    fetched: DirectoryCacheEntry,
  ): Promise<{ kind: 'card' | 'directory'; card: SignatureAgentCard | undefined; thumbprints: readonly string[]; diagnostics: readonly Diagnostic[] }> {
    if (looksLikeDirectory(fetched.body)) {
      return {
        kind: 'directory',
        card: undefined,
        thumbprints: [],
        diagnostics: [{ level: 'warning', code: 'registry-entry-directory', message: 'the entry serves a key directory, not a card; listed by its URL' }],
      };
    }
    const parsed = parseSignatureAgentCard(fetched.body, { allowHttp: this.ctx.s.allowHttp, maxBytes: this.ctx.s.maxBytes, maxKeys: this.ctx.s.maxKeys });
    const diagnostics = [...parsed.diagnostics];
    const card = parsed.card;
    // Fetched from this URL: a client_id it carries must be that URL (simple string comparison).
    if (card.client_id === undefined) {
      diagnostics.push({ level: 'warning', code: 'card-client-id-missing', message: 'the card has no client_id; it is listed by the registry URL only' });
    } else if (card.client_id !== text && card.client_id !== fetched.url) {
      throw new BotsigError('ERR_CARD_INVALID', 'client_id must match the card URL (simple string comparison)');
    }
    if (carriesCardProof(fetched)) {
      // A signed card is checked with its own keys, inline or at its jwks_uri (the draft's
      // Security Considerations: "If signatures are present, clients MUST verify them").
      const keys = new Map<string, VerifyingKey>();
      if (parsed.keys.length === 0 && card.jwks_uri !== undefined) {
        const scheme = card.jwks_uri.startsWith('http:') ? 'http' : 'https';
        const resolution = await this.directory.resolve({ url: card.jwks_uri, type: 'jwks_uri', scheme, index: 0 });
        for (const { key } of resolution.keys) keys.set(key.thumbprint, key);
      }
      for (const k of parsed.keys) {
        try {
          const key = await importVerifyingKey(k.jwk, k.alg === undefined ? undefined : { alg: k.alg });
          keys.set(key.thumbprint, key);
        } catch {
          // A key that cannot be imported proves nothing; its signature is reported as unknown-key.
        }
      }
      const failure = await cardResponseFailure(fetched, keys, this.ctx.s);
      if (failure !== undefined) {
        throw new BotsigError('ERR_CARD_INVALID', `the card carries a signature that does not verify (${failure.code}); refused`);
      }
    }
    return { kind: 'card', card, thumbprints: parsed.keys.map((k) => k.thumbprint), diagnostics };
  }

  /** The listing: identifiers and keys to entries (the first entry wins a collision). */
  private buildIndex(): Index {
    const byIdentifier = new Map<string, RegistryMatch>();
    const byKey = new Map<string, RegistryMatch>();
    for (const state of this.cards.values()) {
      const entry = state.entry;
      // Listed by its URL even before its card is fetched: a verifier resolving it as a cimd member checks it itself.
      const byId: RegistryMatch = Object.freeze({ entry, card: state.card, by: 'identifier' });
      const ids = [entry.kind === 'https' ? identifierOf(entry.url) : undefined, identifierOf(state.card?.client_id), identifierOf(state.card?.jwks_uri)];
      for (const id of ids) if (id !== undefined && !byIdentifier.has(id)) byIdentifier.set(id, byId);
      if (state.thumbprints.length > 0) {
        const byK: RegistryMatch = Object.freeze({ entry, card: state.card, by: 'key' });
        for (const t of state.thumbprints) if (!byKey.has(t)) byKey.set(t, byK);
      }
    }
    return { byIdentifier, byKey };
  }
}
