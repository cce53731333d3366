/**
 * The outbound budget of a `DirectoryClient`: how many fetches strangers can make
 * an origin send, to whom, and how fast. Every directory, card, JWK Set and
 * certificate fetch is admitted here first; a fetch that is not admitted is not
 * sent, and the caller reports `ERR_DISCOVERY_LIMITED` at once (nothing waits in a
 * queue that an attacker could fill).
 *
 * Layers, each bounding what the previous cannot:
 * - global concurrency and a global rate (token bucket): the origin's total;
 * - per site (registrable domain, {@link siteOf}): its own share of both, a rate
 *   (token bucket, default a fifth of the global rate) and a concurrency, so a
 *   stranger who mints URLs on hosts it controls spends its own site's share and
 *   never the whole budget; and only a site never fetched before may take the
 *   last quarter of the global tokens and slots, which thus stay for a new
 *   agent's first fetch even while several known sites flood at once;
 * - per site, how many hosts never seen before may be fetched per minute, so
 *   wildcard DNS (`<random>.evil.example`) cannot mint fresh hosts without bound;
 * - per host: concurrency (a tarpit host holds at most that many sockets) and a
 *   negative cache (after consecutive failures of the host itself it backs off,
 *   so cycling many URLs on a failing or tarpit host stops after the first
 *   failures). What one URL answers does not count ({@link OutboundLimiter.report}):
 *   a stranger chooses the URL, and must not back off an honest agent's host by
 *   naming bad URLs on it; the client backs such a URL off on its own.
 * Hosts that already answered well are unaffected by another host's failures.
 *
 * Who asks ({@link Access}): a `trusted` host (the operator's own) counts against the
 * global limits only. A `known` URL (one that answered usably before, now revalidated)
 * may use all of its site's and host's share. A `new` URL, which anyone can name on any
 * host, leaves part of them to known URLs: half of the site's tokens, a quarter of its
 * slots and one of the host's slots (where there is more than one), and it waits behind known URLs for a
 * slot. A stranger who names URLs on an honest agent's host therefore spends only the
 * part of that site's share that new URLs may take, and the agent's own directory is
 * still refreshed (after a key rotation, say) while it does.
 * All state is bounded (least recently used hosts and sites are forgotten, never
 * one with a fetch in flight).
 */
import { BoundedMap } from '../core/bounded-map';
import { BotsigError } from '../core/errors';
import { registrableDomain } from '../core/site';
import type { Clock } from '../core/time';

/** Limits on what a `DirectoryClient` sends (see {@link DirectoryClientLimits}). */
export interface OutboundSettings {
  readonly maxConcurrent: number;
  readonly maxConcurrentPerHost: number;
  readonly fetchesPerSecond: number;
  readonly newHostsPerSitePerMinute: number;
  /** Consecutive failures of a host itself (network, timeout, 5xx, 408, 429) after which it backs off. */
  readonly hostFailureThreshold: number;
  /** Longest back-off of a failing host, ms (the negative TTL). */
  readonly maxBackoffMs: number;
  /** Hosts (and sites) remembered. */
  readonly maxHosts: number;
  /**
   * Sustained fetches per second to the hosts of one site (bursts of twice that).
   * Default: a fifth of `fetchesPerSecond`, at least 1.
   */
  readonly fetchesPerSitePerSecond?: number;
  /** Fetches in flight at once to the hosts of one site. Default: a quarter of `maxConcurrent`, at least `maxConcurrentPerHost`. */
  readonly maxConcurrentPerSite?: number;
}

export const OUTBOUND_DEFAULTS = /* @__PURE__ */ Object.freeze({
  maxConcurrent: 16,
  maxConcurrentPerHost: 2,
  fetchesPerSecond: 20,
  newHostsPerSitePerMinute: 16,
  hostFailureThreshold: 2,
  maxHosts: 10_000,
});

const HOST_BACKOFF_BASE_MS = 5_000;

/**
 * Who asks for a fetch: the operator's own host (`trusted`), a URL that answered usably
 * before (`known`: a revalidation), or any other URL (`new`).
 */
export type Access = 'trusted' | 'known' | 'new';

interface HostState {
  inFlight: number;
  /** Of them, fetches of `new` URLs. */
  inFlightNew: number;
  failures: number;
  retryAtMs: number;
  /** Exchanges waiting for one of this host's slots, first come first served (bounded), known URLs first. */
  readonly waitingKnown: Array<() => void>;
  readonly waiting: Array<() => void>;
}

/** Most exchanges that wait for a slot of one host; more fail at once. */
const MAX_WAITING_PER_HOST = 16;

interface SiteState {
  /** Start of the current one-minute window, and how many new hosts it admitted. */
  windowStartMs: number;
  newHosts: number;
  /** The site's own token bucket (its share of the rate). */
  tokens: number;
  refilledAtMs: number;
  /** Its fetches in flight. */
  inFlight: number;
}

/** A granted admission: call it when the exchange (including its body) is over; later calls do nothing. */
export type Release = () => void;

export class OutboundLimiter {
  readonly #s: OutboundSettings;
  readonly #now: Clock;
  /** Least recently admitted hosts forgotten beyond `maxHosts`, never one with an exchange in flight or waiting. */
  readonly #hosts: BoundedMap<string, HostState>;
  /** Least recently admitted sites forgotten beyond `maxHosts`, never one with a fetch in flight. */
  readonly #sites: BoundedMap<string, SiteState>;
  readonly #siteRate: number;
  readonly #siteConcurrency: number;
  /** Global tokens and slots kept for sites never fetched before. */
  readonly #tokenReserve: number;
  readonly #slotReserve: number;
  /** A site's tokens and slots, and a host's slots, beyond those `new` URLs may take (kept for `known` URLs; none when there is only one). */
  readonly #siteTokenReserve: number;
  readonly #siteSlotReserve: number;
  readonly #newPerHost: number;
  #inFlight = 0;
  #tokens: number;
  #refilledAtMs: number;

  constructor(settings: OutboundSettings, now: Clock) {
    this.#s = settings;
    this.#now = now;
    this.#hosts = new BoundedMap(settings.maxHosts, (h) => h.inFlight === 0 && h.waiting.length === 0 && h.waitingKnown.length === 0);
    this.#sites = new BoundedMap(settings.maxHosts, (site) => site.inFlight === 0);
    this.#siteRate = Math.min(settings.fetchesPerSecond, settings.fetchesPerSitePerSecond ?? Math.max(1, Math.ceil(settings.fetchesPerSecond / 5)));
    this.#siteConcurrency = Math.min(
      settings.maxConcurrent,
      settings.maxConcurrentPerSite ?? Math.max(settings.maxConcurrentPerHost, Math.ceil(settings.maxConcurrent / 4)),
    );
    this.#tokenReserve = Math.floor(this.#burst() / 4);
    this.#slotReserve = Math.floor(settings.maxConcurrent / 4);
    this.#siteTokenReserve = Math.floor(this.#siteBurst() / 2);
    this.#siteSlotReserve = Math.floor(this.#siteConcurrency / 4);
    this.#newPerHost = Math.max(1, settings.maxConcurrentPerHost - 1);
    this.#tokens = this.#burst();
    this.#refilledAtMs = now();
  }

  /** In-flight fetches, all hosts together. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Admits one fetch to `host` (a lowercase host name or IP literal). While the
   * host's own slots are taken the exchange waits (at most 16 per host and kind of
   * URL, and no longer than `signal` allows); every other limit answers at once.
   * `trusted` hosts (the operator's allow-list, loopback in development) skip the
   * failure back-off and every per-site limit (share, reserve, new-host
   * allowance), not the global concurrency and rate; `new` URLs leave part of the
   * site's and the host's share to `known` ones ({@link Access}).
   *
   * @throws BotsigError `ERR_DISCOVERY_LIMITED` (as a rejection) when a limit is
   *   reached or the host is backing off after failures.
   */
  async admit(host: string, access: Access, signal?: AbortSignal): Promise<Release> {
    const isNew = access === 'new';
    let wokenBy: HostState | undefined;
    for (let state = this.#hosts.get(host); state !== undefined && !this.#hasSlot(state, isNew); state = this.#hosts.get(host)) {
      const queue = isNew ? state.waiting : state.waitingKnown;
      if (queue.length >= MAX_WAITING_PER_HOST) throw limited(`${MAX_WAITING_PER_HOST} fetches already wait for this host`);
      await waitForSlot(queue, signal);
      wokenBy = state;
    }
    try {
      return this.#take(host, access);
    } catch (error) {
      // Woken to a slot that another limit keeps it from taking: the slot passes to the next
      // waiter, which would otherwise wait on a free host until its deadline.
      if (wokenBy !== undefined) this.#wake(wokenBy);
      throw error;
    }
  }

  /** Whether a fetch (of a `new` URL, or not) may take one of the host's slots now. */
  #hasSlot(state: HostState, isNew: boolean): boolean {
    return state.inFlight < this.#s.maxConcurrentPerHost && !(isNew && state.inFlightNew >= this.#newPerHost);
  }

  /** Hands a free slot of `state` to the first waiter that may take it: a known URL's, else a new URL's. */
  #wake(state: HostState): void {
    if (state.waitingKnown.length > 0) state.waitingKnown.shift()!();
    else if (state.inFlightNew < this.#newPerHost) state.waiting.shift()?.();
  }

  #take(host: string, access: Access): Release {
    const now = this.#now();
    const s = this.#s;
    const trusted = access === 'trusted';
    const isNew = access === 'new';
    let state = this.#hosts.get(host);
    if (state !== undefined && !trusted && now < state.retryAtMs) {
      throw limited(`the host failed ${state.failures} times in a row and is backing off`);
    }
    if (this.#inFlight >= s.maxConcurrent) throw limited(`${s.maxConcurrent} directory fetches are already in flight`);
    this.#refill(now);
    if (this.#tokens < 1) throw limited(`more than ${s.fetchesPerSecond} directory fetches per second`);
    let site: SiteState | undefined;
    if (!trusted) {
      const name = siteOf(host);
      site = this.#sites.get(name);
      if (site === undefined) {
        site = { windowStartMs: now, newHosts: 0, tokens: this.#siteBurst(), refilledAtMs: now, inFlight: 0 };
      } else {
        // A known site leaves the last of the global budget to sites never fetched before.
        if (this.#inFlight >= s.maxConcurrent - this.#slotReserve) throw limited('the last directory fetch slots are kept for sites never fetched before');
        if (this.#tokens < 1 + this.#tokenReserve) throw limited('the last of the directory fetch rate is kept for sites never fetched before');
        this.#refillSite(site, now);
      }
      if (site.inFlight >= this.#siteConcurrency) throw limited(`${this.#siteConcurrency} fetches to this site are already in flight`);
      if (site.tokens < 1) throw limited(`more than ${this.#siteRate} directory fetches per second to one site`);
      if (isNew && site.inFlight >= this.#siteConcurrency - this.#siteSlotReserve) {
        throw limited('the last fetch slots of this site are kept for URLs that answered before');
      }
      if (isNew && site.tokens < 1 + this.#siteTokenReserve) throw limited("the rest of this site's fetch rate is kept for URLs that answered before");
      if (state === undefined) {
        // A host never seen (or forgotten): counted against its site's allowance.
        if (now - site.windowStartMs >= 60_000) {
          site.windowStartMs = now;
          site.newHosts = 0;
        }
        if (site.newHosts >= s.newHostsPerSitePerMinute) {
          throw limited(`more than ${s.newHostsPerSitePerMinute} new hosts of one site per minute`);
        }
        site.newHosts++;
      }
      site.tokens -= 1;
      site.inFlight++;
      this.#sites.set(name, site);
    }
    state ??= { inFlight: 0, inFlightNew: 0, failures: 0, retryAtMs: 0, waitingKnown: [], waiting: [] };
    this.#hosts.set(host, state);
    this.#tokens -= 1;
    this.#inFlight++;
    state.inFlight++;
    if (isNew) state.inFlightNew++;
    const held = state;
    const heldSite = site;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight--;
      if (heldSite !== undefined) heldSite.inFlight--;
      held.inFlight--;
      if (isNew) held.inFlightNew--;
      this.#wake(held);
    };
  }

  /**
   * Records what an exchange said about the health of `host`: `ok`, a usable answer,
   * resets the host's failure count; not `ok`, a failure of the host itself (the fetch
   * or the body stream failed, the deadline expired, HTTP 5xx, 408 or 429), counts
   * towards its back-off. A failure that is a fact about the URL (another status, a
   * redirect not followed, a body over the cap, the wrong media type, a body that is
   * not a usable directory) is not reported at all: a stranger chooses the URL, so it
   * must neither back off an honest agent's host nor reset a failing host's run.
   */
  report(host: string, ok: boolean): void {
    const state = this.#hosts.get(host);
    if (state === undefined) return;
    if (ok) {
      state.failures = 0;
      state.retryAtMs = 0;
      return;
    }
    state.failures++;
    const s = this.#s;
    if (state.failures >= s.hostFailureThreshold) {
      const exponent = Math.min(state.failures - s.hostFailureThreshold, 16);
      state.retryAtMs = this.#now() + Math.min(s.maxBackoffMs, HOST_BACKOFF_BASE_MS * 2 ** exponent);
    }
  }

  #burst(): number {
    return Math.max(1, this.#s.fetchesPerSecond * 2);
  }

  #siteBurst(): number {
    return Math.max(1, this.#siteRate * 2);
  }

  #refill(now: number): void {
    const elapsed = now - this.#refilledAtMs;
    if (elapsed <= 0) return;
    this.#tokens = Math.min(this.#burst(), this.#tokens + (elapsed * this.#s.fetchesPerSecond) / 1000);
    this.#refilledAtMs = now;
  }

  #refillSite(site: SiteState, now: number): void {
    const elapsed = now - site.refilledAtMs;
    if (elapsed <= 0) return;
    site.tokens = Math.min(this.#siteBurst(), site.tokens + (elapsed * this.#siteRate) / 1000);
    site.refilledAtMs = now;
  }
}

/** Resolves when a slot is handed over through `queue`, rejects when `signal` aborts first. */
function waitForSlot(queue: Array<() => void>, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      const i = queue.indexOf(wake);
      if (i >= 0) queue.splice(i, 1);
      reject(limited('no slot of this host became free in time'));
    };
    const wake = (): void => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    if (signal?.aborted === true) {
      reject(limited('no slot of this host became free in time'));
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    queue.push(wake);
  });
}

function limited(message: string): BotsigError {
  return new BotsigError('ERR_DISCOVERY_LIMITED', `${message}; not fetched`);
}

/**
 * The site a host belongs to: its registrable domain (`registrableDomain` of
 * `core/site.ts`, the public suffix plus one label; an IPv4 literal is its own site, an
 * IPv6 literal's site is its /32).
 * What an attacker must buy to get a new share of the outbound budget.
 */
export function siteOf(host: string): string {
  return registrableDomain(host);
}
