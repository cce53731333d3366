/**
 * The outbound budget of a `DirectoryClient`: how many fetches strangers can make
 * an origin send, to whom, and how fast. Every directory, card, JWK Set and
 * certificate fetch is admitted here first; a fetch that is not admitted is not
 * sent, and the caller reports `ERR_DISCOVERY_LIMITED` at once (nothing waits in a
 * queue that an attacker could fill).
 *
 * Layers, each bounding what the previous cannot:
 * - global concurrency and a global rate (token bucket): the origin's total;
 * - per host: concurrency (a tarpit host holds at most that many sockets) and a
 *   negative cache (after consecutive failures the host backs off, so cycling
 *   many URLs on one host stops after the first failures);
 * - per site (registrable domain, approximated without a public-suffix list): how
 *   many hosts never seen before may be fetched per minute, so wildcard DNS
 *   (`<random>.evil.example`) cannot mint fresh hosts without bound.
 * Hosts that already answered well are unaffected by another host's failures.
 * All state is bounded (least recently used hosts and sites are forgotten).
 */
import { BoundedMap } from '../core/bounded-map';
import { BotsigError } from '../core/errors';
import type { Clock } from '../core/time';

/** Limits on what a `DirectoryClient` sends (see {@link DirectoryClientLimits}). */
export interface OutboundSettings {
  readonly maxConcurrent: number;
  readonly maxConcurrentPerHost: number;
  readonly fetchesPerSecond: number;
  readonly newHostsPerSitePerMinute: number;
  /** Consecutive failures after which a host backs off. */
  readonly hostFailureThreshold: number;
  /** Longest back-off of a failing host, ms (the negative TTL). */
  readonly maxBackoffMs: number;
  /** Hosts (and sites) remembered. */
  readonly maxHosts: number;
}

export const OUTBOUND_DEFAULTS = Object.freeze({
  maxConcurrent: 16,
  maxConcurrentPerHost: 2,
  fetchesPerSecond: 20,
  newHostsPerSitePerMinute: 16,
  hostFailureThreshold: 2,
  maxHosts: 10_000,
});

const HOST_BACKOFF_BASE_MS = 5_000;

interface HostState {
  inFlight: number;
  failures: number;
  retryAtMs: number;
  /** Exchanges waiting for one of this host's slots, first come first served (bounded). */
  readonly waiting: Array<() => void>;
}

/** Most exchanges that wait for a slot of one host; more fail at once. */
const MAX_WAITING_PER_HOST = 16;

interface SiteState {
  /** Start of the current one-minute window, and how many new hosts it admitted. */
  windowStartMs: number;
  newHosts: number;
}

/** A granted admission: call it when the exchange (including its body) is over; later calls do nothing. */
export type Release = () => void;

export class OutboundLimiter {
  readonly #s: OutboundSettings;
  readonly #now: Clock;
  /** Least recently admitted hosts forgotten beyond `maxHosts`, never one with an exchange in flight or waiting. */
  readonly #hosts: BoundedMap<string, HostState>;
  /** Least recently counted sites forgotten beyond `maxHosts`. */
  readonly #sites: BoundedMap<string, SiteState>;
  #inFlight = 0;
  #tokens: number;
  #refilledAtMs: number;

  constructor(settings: OutboundSettings, now: Clock) {
    this.#s = settings;
    this.#now = now;
    this.#hosts = new BoundedMap(settings.maxHosts, (h) => h.inFlight === 0 && h.waiting.length === 0);
    this.#sites = new BoundedMap(settings.maxHosts);
    this.#tokens = this.#burst();
    this.#refilledAtMs = now();
  }

  /** In-flight fetches, all hosts together. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Admits one fetch to `host` (a lowercase host name or IP literal). While the
   * host's own slots are taken the exchange waits (at most 16 per host, and no
   * longer than `signal` allows); every other limit answers at once.
   * `trusted` hosts (the operator's allow-list, loopback in development) skip the
   * failure back-off and the new-host allowance, not the concurrency and rate.
   *
   * @throws BotsigError `ERR_DISCOVERY_LIMITED` (as a rejection) when a limit is
   *   reached or the host is backing off after failures.
   */
  async admit(host: string, trusted: boolean, signal?: AbortSignal): Promise<Release> {
    const s = this.#s;
    for (let state = this.#hosts.get(host); state !== undefined && state.inFlight >= s.maxConcurrentPerHost; state = this.#hosts.get(host)) {
      if (state.waiting.length >= MAX_WAITING_PER_HOST) throw limited(`${MAX_WAITING_PER_HOST} fetches already wait for this host`);
      await waitForSlot(state, signal);
    }
    return this.#take(host, trusted);
  }

  #take(host: string, trusted: boolean): Release {
    const now = this.#now();
    const s = this.#s;
    let state = this.#hosts.get(host);
    if (state !== undefined && !trusted && now < state.retryAtMs) {
      throw limited(`the host failed ${state.failures} times in a row and is backing off`);
    }
    if (this.#inFlight >= s.maxConcurrent) throw limited(`${s.maxConcurrent} directory fetches are already in flight`);
    this.#refill(now);
    if (this.#tokens < 1) throw limited(`more than ${s.fetchesPerSecond} directory fetches per second`);
    if (state === undefined && !trusted) {
      // A host never seen (or forgotten): counted against its site's allowance.
      const site = siteOf(host);
      let siteState = this.#sites.get(site);
      if (siteState === undefined || now - siteState.windowStartMs >= 60_000) {
        siteState = { windowStartMs: now, newHosts: 0 };
      }
      if (siteState.newHosts >= s.newHostsPerSitePerMinute) {
        throw limited(`more than ${s.newHostsPerSitePerMinute} new hosts of one site per minute`);
      }
      siteState.newHosts++;
      this.#sites.set(site, siteState);
    }
    state ??= { inFlight: 0, failures: 0, retryAtMs: 0, waiting: [] };
    this.#hosts.set(host, state);
    this.#tokens -= 1;
    this.#inFlight++;
    state.inFlight++;
    const held = state;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight--;
      held.inFlight--;
      held.waiting.shift()?.();
    };
  }

  /**
   * Records how an exchange with `host` ended: a usable answer resets the host's
   * failure count; a failure (network, timeout, status, oversize, or a body that
   * is not a usable directory) counts towards its back-off.
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

  #refill(now: number): void {
    const elapsed = now - this.#refilledAtMs;
    if (elapsed <= 0) return;
    this.#tokens = Math.min(this.#burst(), this.#tokens + (elapsed * this.#s.fetchesPerSecond) / 1000);
    this.#refilledAtMs = now;
  }
}

/** Resolves when a slot of `state` is handed over, rejects when `signal` aborts first. */
function waitForSlot(state: HostState, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      const i = state.waiting.indexOf(wake);
      if (i >= 0) state.waiting.splice(i, 1);
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
    state.waiting.push(wake);
  });
}

function limited(message: string): BotsigError {
  return new BotsigError('ERR_DISCOVERY_LIMITED', `${message}; not fetched`);
}

// Second-level labels under which country-code registries sell names (co.uk, com.au, …).
const SECOND_LEVEL = new Set(['co', 'com', 'net', 'org', 'gov', 'edu', 'ac', 'or', 'ne', 'go', 'mil', 'gv', 'nic']);

/**
 * The site a host belongs to, approximating its registrable domain (RFC 6265's
 * "public suffix + one label") without a public-suffix list: the last two labels,
 * or three under a two-letter country code with a common second-level label
 * (`example.co.uk`). IP literals are their own site. An approximation errs towards
 * grouping more hosts together (`a.github.io` and `b.github.io` share a site),
 * which only matters for how many *new* hosts of a site are fetched per minute.
 */
export function siteOf(host: string): string {
  if (host.startsWith('[') || /^[0-9.]+$/.test(host)) return host;
  const labels = host.split('.');
  const n = labels.length;
  if (n <= 2) return host;
  const take = labels[n - 1]!.length === 2 && SECOND_LEVEL.has(labels[n - 2]!) ? 3 : 2;
  return labels.slice(n - take).join('.');
}
