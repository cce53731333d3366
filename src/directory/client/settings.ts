/**
 * The options of a `DirectoryClient` and their validation: the public option
 * types, the defaults, and {@link settingsFrom}, which checks every option once
 * (in the constructor) and turns them into the {@link Settings} the other
 * client modules read.
 */
import type { AddressPolicy } from '../../core/ip';
import { systemClock } from '../../core/time';
import type { Clock } from '../../core/time';
import { tryParseUrl } from '../../core/url';
import { MemoryDirectoryCache } from '../cache';
import type { DirectoryCache } from '../cache';
import { prepareDelegation } from '../delegation/options';
import type { PreparedDelegation } from '../delegation/options';
import { DEFAULT_MAX_KEYS } from '../document/parse';
import { OUTBOUND_DEFAULTS } from '../outbound';
import { checkDirectoryClientOptionNames } from './option-names';
import type { OutboundSettings } from '../outbound';

export type { DirectoryClientAllow, DirectoryClientLimits, DirectoryClientOptions, FetchLike } from './options';
import type { DirectoryClientOptions, FetchLike } from './options';

export const DIRECTORY_CLIENT_DEFAULTS = Object.freeze({
  maxBytes: 65_536,
  maxKeys: DEFAULT_MAX_KEYS,
  timeoutMs: 5_000,
  maxRedirects: 0,
  defaultTtlSeconds: 300,
  minTtlSeconds: 0,
  maxTtlSeconds: 86_400,
  negativeTtlSeconds: 300,
  clockSkewSeconds: 60,
  maxEntries: 1_000,
});

/** NOTES "Discovery": negative results are kept at most five minutes. */
const NEGATIVE_TTL_CAP_SECONDS = 300;

/** Every option after validation: what the client modules read. */
export interface Settings {
  readonly fetch: FetchLike | undefined;
  readonly cache: DirectoryCache;
  readonly now: Clock;
  readonly maxBytes: number;
  readonly maxKeys: number;
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  readonly allowHttp: boolean;
  readonly policy: AddressPolicy;
  readonly hosts: ReadonlySet<string>;
  readonly ports: ReadonlySet<number>;
  readonly outbound: OutboundSettings;
  readonly inlineUnverified: boolean;
  readonly requireProof: boolean;
  readonly delegation: PreparedDelegation | undefined;
  readonly requireDelegation: boolean;
  readonly defaultTtlSeconds: number;
  readonly minTtlSeconds: number;
  readonly maxTtlSeconds: number;
  readonly negativeTtlMs: number;
  readonly skewSeconds: number;
  readonly userAgent: string | undefined;
  readonly maxEntries: number;
  readonly random: () => number;
}

function positiveInt(value: unknown, name: string, fallback: number, max: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new TypeError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** A limit whose default the outbound limiter derives from the others: left out when not given. */
function optionalLimit<K extends 'fetchesPerSitePerSecond' | 'maxConcurrentPerSite'>(value: unknown, name: K, max: number): { readonly [P in K]?: number } {
  return value === undefined ? {} : ({ [name]: positiveInt(value, `limits.${name}`, 1, max) } as { readonly [P in K]?: number });
}

function seconds(value: unknown, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
    throw new TypeError(`${name} must be a number of seconds from 0 to ${max}`);
  }
  return value;
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean`);
  return value;
}

/** Canonical form of a host for the allow-list: what `URL.hostname` gives, without a trailing dot. */
function canonicalHost(host: string): string | undefined {
  const bare = host.startsWith('[') ? host : host.indexOf(':') >= 0 ? `[${host}]` : host;
  const parsed = tryParseUrl(`http://${bare}/`);
  if (parsed === undefined || parsed.hostname === '') return undefined;
  const name = parsed.hostname;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

export function settingsFrom(options: DirectoryClientOptions): Settings {
  checkDirectoryClientOptionNames(options);
  const { limits = {}, allow = {} } = options;
  const ports = new Set<number>();
  if (allow.ports !== undefined) {
    if (!Array.isArray(allow.ports)) throw new TypeError('allow.ports must be an array of port numbers');
    for (const port of allow.ports as readonly unknown[]) {
      if (typeof port !== 'number' || !Number.isSafeInteger(port) || port < 1 || port > 65_535)
        throw new TypeError('allow.ports entries must be integers from 1 to 65535');
      ports.add(port);
    }
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new TypeError('fetch must be a function');
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('now must be a function returning milliseconds');
  if (options.random !== undefined && typeof options.random !== 'function') throw new TypeError('random must be a function');
  const cache = options.cache ?? new MemoryDirectoryCache();
  if (typeof cache !== 'object' || cache === null || typeof cache.get !== 'function' || typeof cache.set !== 'function' || typeof cache.delete !== 'function') {
    throw new TypeError('cache must implement get, set and delete');
  }
  if (options.userAgent !== undefined && (typeof options.userAgent !== 'string' || /[\r\n]/.test(options.userAgent))) {
    throw new TypeError('userAgent must be a single-line string');
  }
  const hosts = new Set<string>();
  if (allow.hosts !== undefined) {
    if (!Array.isArray(allow.hosts)) throw new TypeError('allow.hosts must be an array of host names');
    for (const h of allow.hosts as readonly unknown[]) {
      const canonical = typeof h === 'string' ? canonicalHost(h) : undefined;
      if (canonical === undefined) throw new TypeError('allow.hosts entries must be host names or IP literals');
      hosts.add(canonical);
    }
  }
  const d = DIRECTORY_CLIENT_DEFAULTS;
  const minTtlSeconds = seconds(options.minTtlSeconds, 'minTtlSeconds', d.minTtlSeconds, 31_536_000);
  const maxTtlSeconds = seconds(options.maxTtlSeconds, 'maxTtlSeconds', d.maxTtlSeconds, 31_536_000);
  if (minTtlSeconds > maxTtlSeconds) throw new TypeError('minTtlSeconds must not exceed maxTtlSeconds');
  const delegation = options.delegation === undefined ? undefined : prepareDelegation(options.delegation);
  const requireDelegation = flag(options.requireDelegation, 'requireDelegation');
  if (requireDelegation && delegation === undefined) throw new TypeError('requireDelegation needs delegation (trust anchors)');
  return {
    fetch: options.fetch,
    cache,
    now: options.now ?? systemClock,
    maxBytes: positiveInt(limits.maxBytes, 'limits.maxBytes', d.maxBytes, 16 * 1024 * 1024),
    maxKeys: positiveInt(limits.maxKeys, 'limits.maxKeys', d.maxKeys, 10_000),
    timeoutMs: positiveInt(limits.timeoutMs, 'limits.timeoutMs', d.timeoutMs, 300_000),
    maxRedirects: positiveInt(limits.maxRedirects, 'limits.maxRedirects', d.maxRedirects, 10, 0),
    allowHttp: flag(allow.http, 'allow.http'),
    policy: { loopback: flag(allow.loopback, 'allow.loopback'), privateNetworks: flag(allow.privateNetworks, 'allow.privateNetworks') },
    hosts,
    ports,
    outbound: {
      maxConcurrent: positiveInt(limits.maxConcurrent, 'limits.maxConcurrent', OUTBOUND_DEFAULTS.maxConcurrent, 10_000),
      maxConcurrentPerHost: positiveInt(limits.maxConcurrentPerHost, 'limits.maxConcurrentPerHost', OUTBOUND_DEFAULTS.maxConcurrentPerHost, 1_000),
      fetchesPerSecond: positiveInt(limits.fetchesPerSecond, 'limits.fetchesPerSecond', OUTBOUND_DEFAULTS.fetchesPerSecond, 100_000),
      ...optionalLimit(limits.fetchesPerSitePerSecond, 'fetchesPerSitePerSecond', 100_000),
      ...optionalLimit(limits.maxConcurrentPerSite, 'maxConcurrentPerSite', 10_000),
      newHostsPerSitePerMinute: positiveInt(
        limits.newHostsPerSitePerMinute,
        'limits.newHostsPerSitePerMinute',
        OUTBOUND_DEFAULTS.newHostsPerSitePerMinute,
        100_000,
      ),
      hostFailureThreshold: positiveInt(limits.hostFailureThreshold, 'limits.hostFailureThreshold', OUTBOUND_DEFAULTS.hostFailureThreshold, 1_000),
      maxBackoffMs: seconds(options.negativeTtlSeconds, 'negativeTtlSeconds', d.negativeTtlSeconds, NEGATIVE_TTL_CAP_SECONDS) * 1000,
      maxHosts: positiveInt(limits.maxHosts, 'limits.maxHosts', OUTBOUND_DEFAULTS.maxHosts, 10_000_000),
    },
    inlineUnverified: flag(allow.inlineUnverified, 'allow.inlineUnverified'),
    requireProof: flag(options.requireProof, 'requireProof'),
    delegation,
    requireDelegation,
    defaultTtlSeconds: seconds(options.defaultTtlSeconds, 'defaultTtlSeconds', d.defaultTtlSeconds, 31_536_000),
    minTtlSeconds,
    maxTtlSeconds,
    negativeTtlMs: seconds(options.negativeTtlSeconds, 'negativeTtlSeconds', d.negativeTtlSeconds, NEGATIVE_TTL_CAP_SECONDS) * 1000,
    skewSeconds: seconds(options.clockSkewSeconds, 'clockSkewSeconds', d.clockSkewSeconds, 3600),
    userAgent: options.userAgent,
    maxEntries: positiveInt(options.maxEntries, 'maxEntries', d.maxEntries, 1_000_000),
    random: options.random ?? Math.random,
  };
}
