/**
 * What the gate builds from its configuration. Two lifetimes:
 *
 * - {@link GateResources}, made once per process: the nonce store (memory, or
 *   Redis for a fleet), the Redis connection, the directory cache, the metrics and
 *   the live page's state. A reload keeps them, so a `SIGHUP` forgets no nonce (a
 *   replay stays a replay) and no cached directory.
 * - {@link GateRuntime}, made at start-up and again on each reload: the verifier
 *   (options, static keys read again from their files, a new `DirectoryClient` over
 *   the kept cache) and the forwarding rules. Requests hold the runtime they started
 *   with, so swapping it drops nothing.
 */
import { readFile } from 'node:fs/promises';
import { MemoryDirectoryCache } from '../directory/cache';
import type { CoordinatedDirectoryCache, DirectoryCache, DirectoryCacheEntry } from '../directory/cache';
import { DirectoryClient } from '../directory/client';
import type { DirectoryClientOptions, FetchLike } from '../directory/client';
import type { Jwk, VerifyingKey } from '../crypto/types';
import { createGuardedFetch } from '../node/guarded-fetch';
import { createNodeVerifier } from '../node/http';
import { RegistryClient } from '../directory/registry/client';
import type { RegistryStatus } from '../directory/registry/types';
import { MemoryNonceStore } from '../profile/memory-nonce-store';
import { trustedAgentProtocolProfile } from '../profile/profiles';
import type { NonceStore } from '../profile/nonce-store';
import { RedisDirectoryCache } from '../stores/redis/directory-cache';
import { RedisNonceStore } from '../stores/redis/nonce-store';
import type { NodeRedisClientLike } from '../stores/redis/client';
import type { OriginNonceOptions, Verifier, VerifierOptions } from '../verifier';
import { registryPolicy } from '../verifier/registry-policy';
import { configRelative } from './config';
import type { GateConfig } from './config';
import { GateConfigError } from './errors';
import { servedAuthorities } from './forward';
import type { ForwardRules } from './forward';
import { LiveState } from './live';
import type { Logger } from './log';
import { throttled } from './log';
import type { GateMetrics } from './metrics';
import { trustedPeers } from './peers';

/** Reads a key file (JWK, JWK Set or PEM) into verifying keys; the CLI passes its own reader. */
export type KeyFileReader = (path: string) => Promise<VerifyingKey[]>;

/** Process-lifetime state, kept across reloads. */
export interface GateResources {
  readonly metrics: GateMetrics;
  readonly live: LiveState | undefined;
  readonly logger: Logger;
  readonly nonceStore: NonceStore;
  /** `memory` or `redis`, for the live page and logs. */
  readonly nonceStoreName: string;
  readonly directoryCache: DirectoryCache;
  /** Origin-nonce key when the configuration names none: random, one per process, kept across reloads. */
  readonly originSecret: Uint8Array;
  /** Whether the stores can answer (Redis connected). */
  ready(): boolean;
  close(): Promise<void>;
}

/** One configuration's verifier and rules. */
export interface GateRuntime {
  readonly config: GateConfig;
  readonly verifier: Verifier;
  readonly rules: ForwardRules;
  readonly loadedAt: number;
  /** The registry the policy consults (`registry`), polling while this runtime is in use. */
  readonly registry: RegistryClient | undefined;
  /** Stops what this runtime started (the registry's polling); requests in flight still finish. */
  close(): void;
}

/** What {@link buildRuntime} may do besides building. */
export interface BuildOptions {
  /** Load the registry (first refresh, then polling). False for `--check`: nothing is fetched. Default true. */
  readonly network?: boolean;
}

/** The subset of a node-redis v5 client the gate uses. */
interface RedisConnection extends NodeRedisClientLike {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  destroy?(): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

async function connectRedis(url: string, logger: Logger): Promise<RedisConnection> {
  let redis: { createClient(options: unknown): unknown };
  try {
    redis = (await import('redis')) as unknown as typeof redis;
  } catch {
    throw new GateConfigError('ERR_GATE_CONFIG', 'config.redis needs the node-redis package: npm install redis', 'config.redis');
  }
  const warn = throttled(logger, 30_000);
  const client = redis.createClient({
    url,
    // Fail at once while disconnected (nonce checks then answer ERR_NONCE_STORE_UNAVAILABLE), never queue.
    disableOfflineQueue: true,
    socket: { connectTimeout: 5000, reconnectStrategy: (retries: number) => Math.min(100 * (retries + 1), 2000) },
  }) as RedisConnection;
  client.on('error', (error) => warn('warn', 'redis error', { error: error instanceof Error ? error.message : String(error) }));
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 10 s')), 10_000).unref());
  try {
    await Promise.race([client.connect(), timeout]);
  } catch (error) {
    client.destroy?.();
    throw new Error(`cannot connect to Redis at config.redis.url (${error instanceof Error ? error.message : String(error)})`);
  }
  return client;
}

/** A cache that tells the live page what it stores (and keeps fleet coordination when the cache has it). */
function observedCache(cache: DirectoryCache, live: LiveState | undefined): DirectoryCache {
  if (live === undefined) return cache;
  const wrapped: DirectoryCache & Partial<Pick<CoordinatedDirectoryCache, 'acquireRefresh'>> = {
    get: (key) => cache.get(key),
    delete: (key) => cache.delete(key),
    set(key: string, entry: DirectoryCacheEntry) {
      live.directoryStored(entry.url, entry.fetchedAtMs, entry.freshUntilMs);
      return cache.set(key, entry);
    },
  };
  const coordinated = cache as Partial<CoordinatedDirectoryCache>;
  if (typeof coordinated.acquireRefresh === 'function') wrapped.acquireRefresh = coordinated.acquireRefresh.bind(cache);
  return wrapped;
}

/** Makes the process-lifetime state. Connects to Redis when configured. */
export async function createResources(config: GateConfig, logger: Logger, metrics: GateMetrics): Promise<GateResources> {
  const live = config.live.enabled ? new LiveState(config.live.recent, config.live.agents) : undefined;
  const maxEntries = config.directory === false ? undefined : config.directory.maxEntries;
  const local = new MemoryDirectoryCache(maxEntries === undefined ? {} : { maxEntries });
  const { capacityBytes, siteFloorBytes } = config.nonce;
  const storeBounds = {
    ...(capacityBytes === undefined ? {} : { capacityBytes }),
    ...(siteFloorBytes === undefined ? {} : { siteFloorBytes }),
  };
  const deprecated = (['maxEntries', 'maxEntriesPerScope'] as const).filter((key) => config.nonce[key] !== undefined);
  if (deprecated.length > 0) {
    logger.log('warn', 'deprecated nonce settings (the store is bounded in bytes and sheds by site; see docs/replay.md)', {
      keys: deprecated.map((key) => `config.nonce.${key}`),
      note: 'maxEntriesPerScope has no effect; maxEntries counts typical nonces and yields to capacityBytes',
    });
  }
  let nonceStore: NonceStore;
  let cache: DirectoryCache = local;
  let client: RedisConnection | undefined;
  if (config.redis !== undefined) {
    const r = config.redis;
    client = await connectRedis(r.url, logger);
    nonceStore = new RedisNonceStore({
      client,
      ...(r.noncePrefix === undefined ? {} : { prefix: r.noncePrefix }),
      ...(r.timeoutMs === undefined ? {} : { timeoutMs: r.timeoutMs }),
      ...storeBounds,
    });
    if (r.directoryCache) {
      const warn = throttled(logger, 30_000);
      cache = new RedisDirectoryCache({
        client,
        localFallback: local,
        ...(r.directoryPrefix === undefined ? {} : { prefix: r.directoryPrefix }),
        ...(r.timeoutMs === undefined ? {} : { timeoutMs: r.timeoutMs }),
        onError: (error) =>
          warn('warn', 'redis directory cache error (using the local cache)', { error: error instanceof Error ? error.message : String(error) }),
      });
    }
  } else {
    nonceStore = new MemoryNonceStore({
      ...storeBounds,
      ...(config.nonce.maxEntries === undefined || config.nonce.capacityBytes !== undefined ? {} : { maxEntries: config.nonce.maxEntries }),
    });
  }
  return {
    metrics,
    live,
    logger,
    nonceStore,
    nonceStoreName: client === undefined ? 'memory (this process only)' : 'redis (shared)',
    directoryCache: observedCache(cache, live),
    originSecret: globalThis.crypto.getRandomValues(new Uint8Array(32)),
    ready: () => client === undefined || client.isReady,
    async close() {
      if (client === undefined) return;
      try {
        if (typeof client.close === 'function') await client.close();
        else await client.quit?.();
      } catch {
        client.destroy?.();
      }
    },
  };
}

/** The guarded fetch (as a `DirectoryClient` builds by default on Node), counted for metrics and the live page. */
function observedFetch(config: Exclude<GateConfig['directory'], false>, resources: GateResources): FetchLike {
  const allow = config.allow ?? {};
  const guarded = createGuardedFetch({
    allow: { loopback: allow.loopback === true, privateNetworks: allow.privateNetworks === true, hosts: (allow.hosts ?? []).map((h) => h.toLowerCase()) },
    timeoutMs: config.limits?.['timeoutMs'] ?? 5000,
    ...(config.userAgent === undefined ? {} : { userAgent: config.userAgent }),
  });
  const { metrics, live } = resources;
  return async (input, init) => {
    const start = performance.now();
    try {
      const response = await guarded(input, init);
      metrics.directoryFetch(response.status < 400 ? 'ok' : 'http_error', (performance.now() - start) / 1000);
      live?.directoryFetched(input, Date.now(), `HTTP ${response.status}`);
      return response;
    } catch (error) {
      metrics.directoryFetch('error', (performance.now() - start) / 1000);
      const code = (error as { code?: unknown }).code;
      live?.directoryFetched(input, Date.now(), typeof code === 'string' ? code : 'error');
      throw error;
    }
  };
}

/** A TypeError of createVerifier / DirectoryClient, with the configuration's key names. */
function configProblem(error: unknown, where: string): GateConfigError {
  const message = error instanceof Error ? error.message : String(error);
  let named = message.replace(/\boptions\./g, 'config.').replace(/^createVerifier options: /, 'config: ');
  // DirectoryClient names its options without a prefix: `limits.maxBytes must be …`.
  if (!named.startsWith('config') && /^[A-Za-z][A-Za-z0-9.]* (?:must|cannot|needs)\b/.test(named)) named = `${where}.${named}`;
  const key = /\b(config\.[A-Za-z0-9_.[\]]+)/.exec(named)?.[1];
  return new GateConfigError('ERR_GATE_CONFIG', named.startsWith('config') ? named : `${where}: ${named}`, key ?? where);
}

async function staticKeys(config: GateConfig, readKeyFile: KeyFileReader): Promise<Array<Jwk | VerifyingKey>> {
  const out: Array<Jwk | VerifyingKey> = [];
  for (const source of config.keys) {
    if ('jwk' in source) {
      out.push(source.jwk);
      continue;
    }
    try {
      out.push(...(await readKeyFile(configRelative(config, source.file))));
    } catch (error) {
      throw new GateConfigError('ERR_GATE_CONFIG', `${source.key}: ${error instanceof Error ? error.message : String(error)}`, source.key);
    }
  }
  return out;
}

async function originNonceOption(config: GateConfig, resources: GateResources): Promise<false | OriginNonceOptions> {
  const o = config.originNonce;
  if (o === false) return false;
  let secret: Uint8Array | string = resources.originSecret;
  if (o.secret !== undefined) secret = o.secret;
  if (o.secretFile !== undefined) {
    try {
      secret = (await readFile(configRelative(config, o.secretFile), 'utf8')).trim();
    } catch (error) {
      throw new GateConfigError(
        'ERR_GATE_CONFIG',
        `config.originNonce.secretFile: cannot read ${o.secretFile} (${(error as NodeJS.ErrnoException).code ?? 'I/O error'})`,
        'config.originNonce.secretFile',
      );
    }
  }
  return {
    secret,
    ...(o.maxAgeSeconds === undefined ? {} : { maxAgeSeconds: o.maxAgeSeconds }),
    ...(o.required === undefined ? {} : { required: o.required }),
  };
}

/**
 * Builds the verifier and forwarding rules of one configuration over the kept resources.
 * @throws GateConfigError naming the key at fault (values createVerifier or DirectoryClient refuse, unreadable key files).
 */
export async function buildRuntime(config: GateConfig, resources: GateResources, readKeyFile: KeyFileReader, build: BuildOptions = {}): Promise<GateRuntime> {
  const keys = await staticKeys(config, readKeyFile);
  let directory: DirectoryClient | false = false;
  if (config.directory !== false) {
    const d = config.directory;
    const options: DirectoryClientOptions = {
      ...(d as Omit<typeof d, 'limits'>),
      cache: resources.directoryCache,
      fetch: observedFetch(d, resources),
    };
    try {
      directory = new DirectoryClient(options);
    } catch (error) {
      throw configProblem(error, 'config.directory');
    }
  }
  const { metrics, live } = resources;
  const options: VerifierOptions = {
    ...(config.verify as Partial<VerifierOptions>),
    authorities: config.authorities,
    mode: config.mode,
    directory,
    nonce: {
      policy: config.nonce.policy,
      store: resources.nonceStore,
      ...(config.nonce.maxLength === undefined ? {} : { maxLength: config.nonce.maxLength }),
      ...(config.nonce.windowSeconds === undefined ? {} : { windowSeconds: config.nonce.windowSeconds }),
    },
    originNonce: await originNonceOption(config, resources),
    onVerification: (event) => metrics.onVerification(event),
    onDirectoryLookup: (event) => {
      metrics.onDirectoryLookup(event);
      live?.lookup(event.result);
    },
    onNonceCheck: (event) => metrics.onNonceCheck(event),
  };
  const extra = options as { -readonly [K in keyof VerifierOptions]: VerifierOptions[K] };
  if (keys.length > 0) extra.keys = keys;
  if (config.challenge !== undefined) extra.challenge = config.challenge;
  if (config.profile !== 'web-bot-auth') {
    try {
      extra.profile = trustedAgentProtocolProfile(config.profile.trustedAgentProtocol);
    } catch (error) {
      throw configProblem(error, 'config.profile.trustedAgentProtocol');
    }
  }
  const registry = config.registry === undefined ? undefined : registryClient(config, directory, resources);
  if (registry !== undefined) {
    const r = config.registry!;
    extra.policy = registryPolicy({
      registry,
      ...(r.purposes === undefined ? {} : { purposes: r.purposes }),
      ...(r.triggers === undefined ? {} : { triggers: r.triggers }),
      ...(r.unsigned === undefined ? {} : { unsigned: r.unsigned }),
      ...(r.whileLoading === undefined ? {} : { whileLoading: r.whileLoading }),
    });
  }
  let verifier: Verifier;
  try {
    verifier = createNodeVerifier(options);
  } catch (error) {
    registry?.close();
    throw configProblem(error, 'config');
  }
  if (registry !== undefined && build.network !== false) {
    // The first load, bounded: until it succeeds the policy answers whileLoading (503 by default).
    let timer: NodeJS.Timeout | undefined;
    const first = await Promise.race([
      registry.refresh(),
      new Promise<undefined>((r) => (timer = globalThis.setTimeout(() => r(undefined), 10_000) as NodeJS.Timeout)),
    ]);
    clearTimeout(timer);
    if (first === undefined || !first.loaded) {
      resources.logger.log('warn', 'registry not loaded yet (requests get the whileLoading answer until it is)', {
        url: registry.url,
        ...(first?.lastError === undefined ? {} : { code: first.lastError.code }),
      });
    }
    registry.start();
  }
  return {
    config,
    verifier,
    rules: { trusted: trustedPeers(config.trustedRanges), proxyHops: config.proxyHops, served: servedAuthorities(config.authorities) },
    loadedAt: Date.now(),
    registry,
    close: () => registry?.close(),
  };
}

function registryClient(config: GateConfig, directory: DirectoryClient | false, resources: GateResources): RegistryClient {
  const r = config.registry!;
  const warn = throttled(resources.logger, 60_000);
  try {
    return new RegistryClient({
      url: r.url,
      // The verifier's client when there is one: one outbound budget, the same address rules.
      directory: directory === false ? {} : directory,
      ...(r.minIntervalSeconds === undefined ? {} : { minIntervalSeconds: r.minIntervalSeconds }),
      ...(r.maxIntervalSeconds === undefined ? {} : { maxIntervalSeconds: r.maxIntervalSeconds }),
      onRefresh: (status: RegistryStatus) => {
        if (status.lastError !== undefined) warn('warn', 'registry refresh failed', { url: status.url, code: status.lastError.code, stale: status.stale });
      },
    });
  } catch (error) {
    throw configProblem(error, 'config.registry');
  }
}
