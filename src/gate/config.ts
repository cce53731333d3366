/**
 * The gate's configuration file (JSON): read, every key checked, and turned into a
 * {@link GateConfig}. A mistake is a {@link GateConfigError} that names the key
 * (`config.nonce.policy must be "none", "optional" or "required"`; an unknown key
 * gets the closest known one, as `createVerifier` does). Values that
 * `createVerifier` and `DirectoryClient` range-check themselves are type-checked
 * here and range-checked when the verifier is built (`runtime.ts`), with the same
 * key names in the message.
 *
 * The verifier options sit at the top level with their `createVerifier` names
 * (`authorities`, `clockSkewSeconds`, `nonce`, `challenge`, …; `profile` by name); the
 * gate's own sections are `listen`, `trustedProxies`, `proxyHops`, `redis`, `registry`
 * (a `registryPolicy`), `envoy`, `admin`, `metrics`, `live`, `log` and
 * `shutdownTimeoutSeconds`.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { checkOptionNames } from '../core/options';
import type { Jwk } from '../crypto/types';
import type { DirectoryClientAllow } from '../directory/client/options';
import type { VerifierChallengeOptions, VerifierMode } from '../verifier';
import { ALLOW_KEYS, DIRECTORY_KEYS, LIMIT_KEYS, TOP_LEVEL, VERIFY_PASS_THROUGH } from './config-keys';
import { GateConfigError } from './errors';
import { parseTrustedProxy } from './peers';
import type { TrustedRange } from './peers';

/** A `host:port` to listen on. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** A static key: a file (JWK, JWK Set or PEM; relative to the configuration file) or an inline public JWK. */
export type GateKeySource = { readonly file: string; readonly key: string } | { readonly jwk: Jwk; readonly key: string };

/** The `directory` section: `DirectoryClient` options that can be written in JSON. */
export interface GateDirectoryConfig {
  readonly limits?: Readonly<Record<string, number>>;
  /** As `DirectoryClient`'s `allow`. */
  readonly allow?: DirectoryClientAllow;
  readonly requireProof?: boolean;
  readonly defaultTtlSeconds?: number;
  readonly minTtlSeconds?: number;
  readonly maxTtlSeconds?: number;
  readonly negativeTtlSeconds?: number;
  readonly clockSkewSeconds?: number;
  readonly userAgent?: string;
  readonly maxEntries?: number;
}

export interface GateNonceConfig {
  readonly policy: 'none' | 'optional' | 'required';
  readonly maxLength?: number;
  /** Replay window, seconds (the verifier's `nonce.windowSeconds`). Default 300. */
  readonly windowSeconds?: number;
  /** Store capacity in bytes (memory store, or Redis's budget). Default 32 MiB. */
  readonly capacityBytes?: number;
  /** Bytes a site keeps when sites are shed under pressure. Default capacityBytes / 32. */
  readonly siteFloorBytes?: number;
  /** @deprecated Memory store only: capacity in typical nonces; `capacityBytes` wins. */
  readonly maxEntries?: number;
  /** @deprecated No effect (the per-agent quota is gone); accepted so old files still load. */
  readonly maxEntriesPerScope?: number;
}

export interface GateRedisConfig {
  /** `redis://` or `rediss://` URL. */
  readonly url: string;
  readonly noncePrefix?: string;
  readonly directoryPrefix?: string;
  /** Longest wait for Redis per command, milliseconds. Default 1,000. */
  readonly timeoutMs?: number;
  /** Share fetched directories through Redis too. Default true. */
  readonly directoryCache: boolean;
}

export interface GateOriginNonceConfig {
  readonly secret?: string;
  readonly secretFile?: string;
  readonly maxAgeSeconds?: number;
  readonly required?: boolean;
}

/** The `registry` section: let through only the verified agents a registry of Signature Agent Cards lists (`registryPolicy`). */
export interface GateRegistryConfig {
  readonly url: string;
  readonly purposes?: readonly string[];
  readonly triggers?: ReadonlyArray<'fetcher' | 'crawler'>;
  readonly unsigned?: 'challenge' | 'allow';
  readonly whileLoading?: 'deny' | 'allow-verified';
  readonly minIntervalSeconds?: number;
  readonly maxIntervalSeconds?: number;
}

/** The `profile` section: `web-bot-auth` (the default) or Visa's Trusted Agent Protocol rules (`trustedAgentProtocolProfile`). */
export type GateProfileConfig =
  'web-bot-auth' | { readonly trustedAgentProtocol: { readonly jwksUri: string; readonly matchKid?: boolean; readonly maxValiditySeconds?: number } };

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The configuration, checked. */
export interface GateConfig {
  /** The file it came from (relative key files are read from its folder), if any. */
  readonly file: string | undefined;
  readonly listen: ListenAddress | undefined;
  readonly authorities: readonly string[];
  readonly trustedProxies: readonly string[];
  readonly trustedRanges: readonly TrustedRange[];
  readonly proxyHops: number;
  readonly mode: VerifierMode;
  readonly keys: readonly GateKeySource[];
  readonly directory: GateDirectoryConfig | false;
  readonly nonce: GateNonceConfig;
  readonly redis: GateRedisConfig | undefined;
  readonly challenge: VerifierChallengeOptions | undefined;
  readonly originNonce: GateOriginNonceConfig | false;
  readonly registry: GateRegistryConfig | undefined;
  readonly profile: GateProfileConfig;
  /** The other `createVerifier` options, as written (range-checked when the verifier is built). */
  readonly verify: Readonly<Record<string, unknown>>;
  readonly envoy: { readonly pathPrefix: string } | false;
  readonly admin: { readonly listen: ListenAddress } | undefined;
  readonly metrics: { readonly enabled: boolean; readonly path: string };
  readonly live: { readonly enabled: boolean; readonly path: string; readonly recent: number; readonly agents: number };
  readonly log: { readonly level: LogLevel; readonly urls: 'none' | 'path' | 'full' };
  readonly shutdownTimeoutMs: number;
}

/** Largest configuration file read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

function fail(key: string, message: string): never {
  throw new GateConfigError('ERR_GATE_CONFIG', `${key} ${message}`, key);
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function object(value: unknown, key: string, known: readonly string[]): Json {
  if (!isObject(value)) fail(key, 'must be an object');
  try {
    checkOptionNames(value, known, key);
  } catch (error) {
    // checkOptionNames: `<where>: unknown option "x" (did you mean "y"?)`
    const message = (error as Error).message.slice(key.length + 2);
    const name = /"([^"]*)"/.exec(message)?.[1];
    throw new GateConfigError('ERR_GATE_CONFIG', `${key}: ${message.replace('option', 'key')}`, name === undefined ? key : `${key}.${name}`);
  }
  return value;
}

function optionalBoolean(value: unknown, key: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') fail(key, 'must be true or false');
  return value;
}

function optionalNumber(value: unknown, key: string, min: number, max: number, integer = false): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    fail(key, `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  }
  return value;
}

/** True when `text` has a C0 control character (a line break would end a header or a log line). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x20) return true;
  return false;
}

function optionalString(value: unknown, key: string, maxLength = 1024): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength || hasControl(value)) {
    fail(key, `must be a non-empty single-line string (at most ${maxLength} characters)`);
  }
  return value;
}

function stringArray(value: unknown, key: string): string[] {
  if (!Array.isArray(value)) fail(key, 'must be an array of strings');
  return value.map((v, i) => optionalString(v, `${key}[${i}]`) ?? fail(`${key}[${i}]`, 'must be a string'));
}

function oneOf<T extends string>(value: unknown, key: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) fail(key, `must be ${allowed.map((a) => `"${a}"`).join(', ')}`);
  return value as T;
}

/**
 * Parses `host:port` (`127.0.0.1:9000`, `[::1]:9000`, `localhost:0`).
 * @throws GateConfigError naming `key`.
 */
export function parseListen(value: unknown, key: string): ListenAddress {
  if (typeof value !== 'string') fail(key, 'must be "host:port"');
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s/]+)):(\d{1,5})$/.exec(value);
  const port = m === null ? NaN : Number(m[3]);
  if (m === null || port > 65535) fail(key, `must be "host:port" (e.g. 127.0.0.1:9000 or [::1]:9000), not ${JSON.stringify(value)}`);
  return { host: m[1] ?? m[2]!, port };
}

function path(value: unknown, key: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(value) || value.length > 256) fail(key, 'must be a path starting with "/"');
  return value;
}

function keySource(value: unknown, key: string): GateKeySource {
  if (typeof value === 'string') return { file: optionalString(value, key, 4096)!, key };
  if (isObject(value) && typeof value['kty'] === 'string') {
    if ('d' in value) fail(key, 'is a private key: give the public JWK (the gate only verifies)');
    return { jwk: value as unknown as Jwk, key };
  }
  return fail(key, 'must be a key file path or a public JWK object');
}

function directory(value: unknown, hasKeys: boolean): GateDirectoryConfig | false {
  if (value === false) return false;
  // As createVerifier: discovery by default, none when static keys are given (say `"directory": {}` for both).
  if (value === undefined) return hasKeys ? false : {};
  const d = object(value, 'config.directory', DIRECTORY_KEYS);
  const out: { -readonly [K in keyof GateDirectoryConfig]: GateDirectoryConfig[K] } = {};
  if (d['limits'] !== undefined) {
    const limits = object(d['limits'], 'config.directory.limits', LIMIT_KEYS);
    for (const name of Object.keys(limits)) optionalNumber(limits[name], `config.directory.limits.${name}`, 0, Number.MAX_SAFE_INTEGER);
    out.limits = limits as Record<string, number>;
  }
  if (d['allow'] !== undefined) {
    const allow = object(d['allow'], 'config.directory.allow', ALLOW_KEYS);
    for (const name of ['http', 'loopback', 'privateNetworks']) optionalBoolean(allow[name], `config.directory.allow.${name}`);
    if (allow['hosts'] !== undefined) stringArray(allow['hosts'], 'config.directory.allow.hosts');
    if (allow['ports'] !== undefined) {
      if (!Array.isArray(allow['ports'])) fail('config.directory.allow.ports', 'must be an array of port numbers');
      allow['ports'].forEach(
        (p, i) => optionalNumber(p, `config.directory.allow.ports[${i}]`, 1, 65535, true) ?? fail(`config.directory.allow.ports[${i}]`, 'must be a port'),
      );
    }
    out.allow = allow as GateDirectoryConfig['allow'] & object;
  }
  if (d['requireProof'] !== undefined) out.requireProof = optionalBoolean(d['requireProof'], 'config.directory.requireProof')!;
  for (const name of ['defaultTtlSeconds', 'minTtlSeconds', 'maxTtlSeconds', 'negativeTtlSeconds', 'clockSkewSeconds'] as const) {
    const v = optionalNumber(d[name], `config.directory.${name}`, 0, 31_536_000);
    if (v !== undefined) out[name] = v;
  }
  const ua = optionalString(d['userAgent'], 'config.directory.userAgent');
  if (ua !== undefined) out.userAgent = ua;
  const max = optionalNumber(d['maxEntries'], 'config.directory.maxEntries', 1, 1_000_000, true);
  if (max !== undefined) out.maxEntries = max;
  return out;
}

function nonce(value: unknown, redis: boolean): GateNonceConfig {
  if (value === undefined) return { policy: 'optional' };
  const keys = ['policy', 'maxLength', 'windowSeconds', 'capacityBytes', 'siteFloorBytes', 'maxEntries', 'maxEntriesPerScope'] as const;
  const n = object(value, 'config.nonce', [...keys]);
  const out: { -readonly [K in keyof GateNonceConfig]: GateNonceConfig[K] } = {
    policy: oneOf(n['policy'], 'config.nonce.policy', ['none', 'optional', 'required'], 'optional'),
  };
  const limits = { maxLength: [1, 4096], windowSeconds: [1, 86_400], capacityBytes: [1024, 2 ** 40], siteFloorBytes: [1, 2 ** 40] } as const;
  for (const [key, [min, max]] of Object.entries(limits) as [keyof typeof limits, readonly [number, number]][]) {
    const v = optionalNumber(n[key], `config.nonce.${key}`, min, max, true);
    if (v !== undefined) out[key] = v;
  }
  if (out.siteFloorBytes !== undefined && out.siteFloorBytes > (out.capacityBytes ?? 32 * 1024 * 1024))
    fail('config.nonce.siteFloorBytes', 'must be at most capacityBytes (default 33554432)');
  const maxEntries = optionalNumber(n['maxEntries'], 'config.nonce.maxEntries', 1, 100_000_000, true);
  if (maxEntries !== undefined) {
    if (redis) fail('config.nonce.maxEntries', 'applies to the in-memory store only; with "redis", use capacityBytes');
    out.maxEntries = maxEntries;
  }
  const perScope = optionalNumber(n['maxEntriesPerScope'], 'config.nonce.maxEntriesPerScope', 1, 100_000_000, true);
  if (perScope !== undefined) out.maxEntriesPerScope = perScope;
  return out;
}

function redis(value: unknown): GateRedisConfig | undefined {
  if (value === undefined) return undefined;
  const r = object(value, 'config.redis', ['url', 'noncePrefix', 'directoryPrefix', 'timeoutMs', 'directoryCache']);
  const url = optionalString(r['url'], 'config.redis.url', 2048);
  if (url === undefined || !/^rediss?:\/\/[^\s]+$/.test(url)) fail('config.redis.url', 'must be a redis:// or rediss:// URL');
  const out: { -readonly [K in keyof GateRedisConfig]: GateRedisConfig[K] } = {
    url,
    directoryCache: optionalBoolean(r['directoryCache'], 'config.redis.directoryCache') ?? true,
  };
  const np = optionalString(r['noncePrefix'], 'config.redis.noncePrefix', 256);
  if (np !== undefined) out.noncePrefix = np;
  const dp = optionalString(r['directoryPrefix'], 'config.redis.directoryPrefix', 256);
  if (dp !== undefined) out.directoryPrefix = dp;
  const t = optionalNumber(r['timeoutMs'], 'config.redis.timeoutMs', 1, 60_000, true);
  if (t !== undefined) out.timeoutMs = t;
  return out;
}

function originNonce(value: unknown): GateOriginNonceConfig | false {
  if (value === undefined || value === false) return false;
  if (value === true) return {};
  const o = object(value, 'config.originNonce', ['secret', 'secretFile', 'maxAgeSeconds', 'required']);
  const out: { -readonly [K in keyof GateOriginNonceConfig]: GateOriginNonceConfig[K] } = {};
  const secret = optionalString(o['secret'], 'config.originNonce.secret', 4096);
  const file = optionalString(o['secretFile'], 'config.originNonce.secretFile', 4096);
  if (secret !== undefined && file !== undefined) fail('config.originNonce', 'takes "secret" or "secretFile", not both');
  if (secret !== undefined) out.secret = secret;
  if (file !== undefined) out.secretFile = file;
  const age = optionalNumber(o['maxAgeSeconds'], 'config.originNonce.maxAgeSeconds', 1, 86_400);
  if (age !== undefined) out.maxAgeSeconds = age;
  const required = optionalBoolean(o['required'], 'config.originNonce.required');
  if (required !== undefined) out.required = required;
  return out;
}

function challenge(value: unknown): VerifierChallengeOptions | undefined {
  if (value === undefined) return undefined;
  const c = object(value, 'config.challenge', ['label', 'components', 'keyid']);
  const out: { -readonly [K in keyof VerifierChallengeOptions]: VerifierChallengeOptions[K] } = {};
  const label = optionalString(c['label'], 'config.challenge.label', 64);
  if (label !== undefined) out.label = label;
  if (c['components'] !== undefined) out.components = stringArray(c['components'], 'config.challenge.components');
  const keyid = optionalString(c['keyid'], 'config.challenge.keyid', 512);
  if (keyid !== undefined) out.keyid = keyid;
  return out;
}

function registry(value: unknown, mode: string): GateRegistryConfig | undefined {
  if (value === undefined) return undefined;
  const r = object(value, 'config.registry', ['url', 'purposes', 'triggers', 'unsigned', 'whileLoading', 'minIntervalSeconds', 'maxIntervalSeconds']);
  if (mode !== 'enforce') fail('config.registry', 'decides who gets through: it needs "mode": "enforce"');
  const url = optionalString(r['url'], 'config.registry.url', 2048);
  if (url === undefined || !/^https?:\/\/\S+$/.test(url)) fail('config.registry.url', 'must be an http(s) URL of the registry');
  const out: { -readonly [K in keyof GateRegistryConfig]: GateRegistryConfig[K] } = { url };
  if (r['purposes'] !== undefined) out.purposes = stringArray(r['purposes'], 'config.registry.purposes');
  if (r['triggers'] !== undefined) {
    out.triggers = stringArray(r['triggers'], 'config.registry.triggers').map((t, i) =>
      oneOf(t, `config.registry.triggers[${i}]`, ['fetcher', 'crawler'] as const, 'crawler'),
    );
  }
  if (r['unsigned'] !== undefined) out.unsigned = oneOf(r['unsigned'], 'config.registry.unsigned', ['challenge', 'allow'], 'challenge');
  if (r['whileLoading'] !== undefined) out.whileLoading = oneOf(r['whileLoading'], 'config.registry.whileLoading', ['deny', 'allow-verified'], 'deny');
  const min = optionalNumber(r['minIntervalSeconds'], 'config.registry.minIntervalSeconds', 1, 86_400);
  if (min !== undefined) out.minIntervalSeconds = min;
  const max = optionalNumber(r['maxIntervalSeconds'], 'config.registry.maxIntervalSeconds', 1, 604_800);
  if (max !== undefined) out.maxIntervalSeconds = max;
  return out;
}

function profile(value: unknown): GateProfileConfig {
  if (value === undefined || value === 'web-bot-auth') return 'web-bot-auth';
  if (typeof value === 'string') fail('config.profile', 'must be "web-bot-auth" or { "trustedAgentProtocol": { "jwksUri": … } }');
  const p = object(value, 'config.profile', ['trustedAgentProtocol']);
  const t = object(p['trustedAgentProtocol'], 'config.profile.trustedAgentProtocol', ['jwksUri', 'matchKid', 'maxValiditySeconds']);
  const jwksUri = optionalString(t['jwksUri'], 'config.profile.trustedAgentProtocol.jwksUri', 2048);
  if (jwksUri === undefined || !/^https?:\/\/\S+$/.test(jwksUri))
    fail('config.profile.trustedAgentProtocol.jwksUri', "must be the URL of the network's JWK Set");
  const matchKid = optionalBoolean(t['matchKid'], 'config.profile.trustedAgentProtocol.matchKid');
  const maxValiditySeconds = optionalNumber(t['maxValiditySeconds'], 'config.profile.trustedAgentProtocol.maxValiditySeconds', 1, 86_400);
  return {
    trustedAgentProtocol: {
      jwksUri,
      ...(matchKid === undefined ? {} : { matchKid }),
      ...(maxValiditySeconds === undefined ? {} : { maxValiditySeconds }),
    },
  };
}

function passThrough(raw: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of VERIFY_PASS_THROUGH) {
    const value = raw[name];
    if (value === undefined) continue;
    const key = `config.${name}`;
    switch (name) {
      case 'strictAuthority':
      case 'allowInsecure':
      case 'allowTestKeys':
      case 'allowHttpSignatureAgent':
      case 'headersOnly':
      case 'bareOriginDirectory':
      case 'typedSignatureAgent':
        optionalBoolean(value, key);
        break;
      case 'requiredComponents':
      case 'algorithms':
        stringArray(value, key);
        break;
      case 'label':
        optionalString(value, key, 64);
        break;
      case 'discovery':
        object(value, key, ['maxDirectories', 'timeoutMs']);
        break;
      case 'verifiedSignatureMemo':
        if (value !== false) object(value, key, ['maxEntries']);
        break;
      default:
        if (typeof value !== 'number') fail(key, 'must be a number');
    }
    out[name] = value;
  }
  return out;
}

/**
 * Checks a parsed configuration object.
 *
 * @param file where it came from (relative key files and secret files are read from its folder).
 * @throws GateConfigError naming the key at fault.
 */
export function parseGateConfig(raw: unknown, file?: string): GateConfig {
  const c = object(raw, 'config', TOP_LEVEL);
  if (c['authorities'] === undefined) fail('config.authorities', 'is required: the host names (host or host:port) this gate serves');
  const authorities = stringArray(c['authorities'], 'config.authorities');
  if (authorities.length === 0) fail('config.authorities', 'must name at least one host');

  const trustedProxies = c['trustedProxies'] === undefined ? ['127.0.0.1', '::1'] : stringArray(c['trustedProxies'], 'config.trustedProxies');
  const trustedRanges = trustedProxies.map((entry, i) => {
    const range = parseTrustedProxy(entry);
    return typeof range === 'string' ? fail(`config.trustedProxies[${i}]`, `(${JSON.stringify(entry)}) ${range}`) : range;
  });

  let keys: GateKeySource[] = [];
  if (c['keys'] !== undefined) {
    if (!Array.isArray(c['keys'])) fail('config.keys', 'must be an array of key file paths or public JWKs');
    keys = c['keys'].map((k, i) => keySource(k, `config.keys[${i}]`));
  }
  const dir = directory(c['directory'], keys.length > 0);
  if (dir === false && keys.length === 0) fail('config.keys', 'is empty and "directory" is false: the gate would have no way to find a key');
  const redisConfig = redis(c['redis']);

  const envoyRaw = c['envoy'];
  let envoy: GateConfig['envoy'] = { pathPrefix: '/envoy' };
  if (envoyRaw === false) envoy = false;
  else if (envoyRaw !== undefined) {
    const e = object(envoyRaw, 'config.envoy', ['pathPrefix']);
    const prefix = path(e['pathPrefix'], 'config.envoy.pathPrefix', '/envoy');
    if (prefix === '/' || prefix.endsWith('/')) fail('config.envoy.pathPrefix', 'must not be "/" or end with "/" (Envoy prepends it to the request path)');
    envoy = { pathPrefix: prefix };
  }

  let admin: GateConfig['admin'];
  if (c['admin'] !== undefined) {
    const a = object(c['admin'], 'config.admin', ['listen']);
    admin = { listen: parseListen(a['listen'], 'config.admin.listen') };
  }

  const m = c['metrics'];
  let metrics = { enabled: true, path: '/metrics' };
  if (m === false) metrics = { enabled: false, path: '/metrics' };
  else if (m !== undefined && m !== true)
    metrics = { enabled: true, path: path(object(m, 'config.metrics', ['path'])['path'], 'config.metrics.path', '/metrics') };

  const l = c['live'];
  let live = { enabled: true, path: '/', recent: 50, agents: 1000 };
  if (l === false) live = { ...live, enabled: false };
  else if (l !== undefined && l !== true) {
    const o = object(l, 'config.live', ['path', 'recent', 'agents']);
    live = {
      enabled: true,
      path: path(o['path'], 'config.live.path', '/'),
      recent: optionalNumber(o['recent'], 'config.live.recent', 1, 1000, true) ?? 50,
      agents: optionalNumber(o['agents'], 'config.live.agents', 1, 100_000, true) ?? 1000,
    };
  }

  let log: GateConfig['log'] = { level: 'info', urls: 'none' };
  if (c['log'] !== undefined) {
    const o = object(c['log'], 'config.log', ['level', 'urls']);
    log = {
      level: oneOf(o['level'], 'config.log.level', ['debug', 'info', 'warn', 'error'], 'info'),
      urls: oneOf(o['urls'], 'config.log.urls', ['none', 'path', 'full'], 'none'),
    };
  }

  const own = [metrics.enabled ? metrics.path : undefined, live.enabled ? live.path : undefined, '/auth', '/healthz', '/readyz'].filter((p) => p !== undefined);
  if (new Set(own).size !== own.length) fail('config.live.path', `and config.metrics.path must differ from each other and from /auth, /healthz and /readyz`);
  if (envoy !== false) {
    const prefix = envoy.pathPrefix;
    const clash = own.find((p) => p === prefix || p.startsWith(prefix + '/'));
    if (clash !== undefined) fail('config.envoy.pathPrefix', `must not cover the gate's own path ${clash}`);
  }

  const mode = oneOf(c['mode'], 'config.mode', ['enforce', 'observe'], 'enforce');
  return {
    file,
    listen: c['listen'] === undefined ? undefined : parseListen(c['listen'], 'config.listen'),
    authorities,
    trustedProxies,
    trustedRanges,
    proxyHops: optionalNumber(c['proxyHops'], 'config.proxyHops', 1, 16, true) ?? 1,
    mode,
    keys,
    directory: dir,
    nonce: nonce(c['nonce'], redisConfig !== undefined),
    redis: redisConfig,
    challenge: challenge(c['challenge']),
    originNonce: originNonce(c['originNonce']),
    registry: registry(c['registry'], mode),
    profile: profile(c['profile']),
    verify: passThrough(c),
    envoy,
    admin,
    metrics,
    live,
    log,
    shutdownTimeoutMs: (optionalNumber(c['shutdownTimeoutSeconds'], 'config.shutdownTimeoutSeconds', 0, 600) ?? 10) * 1000,
  };
}

/**
 * Reads and checks a configuration file.
 * @throws GateConfigError: `ERR_GATE_CONFIG_FILE` when it cannot be read or is not JSON, `ERR_GATE_CONFIG` for a bad key.
 */
export async function loadGateConfig(file: string): Promise<GateConfig> {
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.length > MAX_CONFIG_BYTES) throw new GateConfigError('ERR_GATE_CONFIG_FILE', `config file ${file} is larger than ${MAX_CONFIG_BYTES} bytes`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof GateConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new GateConfigError(
      'ERR_GATE_CONFIG_FILE',
      code === 'ENOENT' ? `config file ${file} does not exist` : `cannot read config file ${file} (${code ?? 'I/O error'})`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new GateConfigError('ERR_GATE_CONFIG_FILE', `config file ${file} is not JSON (${(error as Error).message})`);
  }
  return parseGateConfig(raw, resolve(file));
}

/** A path from the configuration, relative to the configuration file's folder. */
export function configRelative(config: GateConfig, file: string): string {
  return config.file === undefined ? resolve(file) : resolve(dirname(config.file), file);
}

/** The keys whose change a reload cannot apply (listeners and stores are made once). */
export function restartOnlyChanges(before: GateConfig, after: GateConfig): string[] {
  const changed: string[] = [];
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  if (!same(before.listen, after.listen)) changed.push('config.listen');
  if (!same(before.admin, after.admin)) changed.push('config.admin');
  if (!same(before.redis, after.redis)) changed.push('config.redis');
  for (const key of ['capacityBytes', 'siteFloorBytes', 'maxEntries', 'maxEntriesPerScope'] as const)
    if (before.nonce[key] !== after.nonce[key]) changed.push(`config.nonce.${key}`);
  if (before.live.recent !== after.live.recent || before.live.agents !== after.live.agents) changed.push('config.live');
  if (before.directory !== false && after.directory !== false && before.directory.maxEntries !== after.directory.maxEntries)
    changed.push('config.directory.maxEntries');
  return changed;
}
