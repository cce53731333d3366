/**
 * Options of `verifyRequest`, validated and prepared once per options object: one
 * table of the numeric options (default, range, what a bad value is told), the checks
 * of the rest, static keys (imported once per array), the origin's authorities, the
 * owned nonce store and Signature-Agent parse cache.
 */
import { checkOptionNames } from '../../core/options';
import { systemClock } from '../../core/time';
import { isVerifyingKey } from '../../crypto/keys/objects';
import { importVerifyingKey } from '../../crypto/keys/verifying';
import { ALGORITHMS, isAlgorithmName } from '../../crypto/registry';
import type { AlgorithmName, Jwk, VerifyingKey } from '../../crypto/types';
import { componentIdentities } from '../../httpsig/cover-chain';
import { parseTargetUri } from '../../httpsig/message';
import { publicJwkProblem } from '../key-check';
import { MemoryNonceStore } from '../memory-nonce-store';
import { DEFAULT_NONCE_WINDOW_SECONDS } from '../nonce-store';
import { WEB_BOT_AUTH_PROFILE } from '../profiles';
import type { SignatureAgentMember } from '../signature-agent/types';
import { WEB_BOT_AUTH_TAG } from '../types';
import type { NoncePolicy, TagRules, VerifyProfile, VerifyRequestOptions } from '../types';
import { AgentCache } from './agent-cache';
import { preparedOf, rememberPrepared } from './prepared';
import { NO_STRINGS, type Found, type Prepared, type TagPrepared } from './state';
import { DEFAULT_VERIFIED_MEMO_MAX_ENTRIES, MAX_VERIFIED_MEMO_ENTRIES, VerifiedMemo } from './verified-memo';

/** Content read to check a covered Content-Digest (Fastify's default body limit). */
export const DEFAULT_VERIFY_MAX_BODY_BYTES = 1024 * 1024;

/**
 * The numeric options: default, least and greatest value, whether it is an integer, and
 * what the TypeError says it must be. `Number.MIN_VALUE` as the least value means
 * "greater than 0"; `Number.MAX_VALUE` as the greatest, "finite".
 */
const NUMBERS = {
  clockSkewSeconds: [60, 0, Number.MAX_VALUE, false, 'a non-negative number'],
  /** SPEC 8: a day at most by default. */
  maxValiditySeconds: [86_400, Number.MIN_VALUE, Number.POSITIVE_INFINITY, false, 'a positive number'],
  /** Signatures judged per request (a Web Bot Auth request carries one or two; intermediaries may add a few). */
  maxSignatures: [16, 1, 100_000, true, 'an integer from 1 to 100,000'],
  maxBodyBytes: [DEFAULT_VERIFY_MAX_BODY_BYTES, 0, Number.MAX_SAFE_INTEGER, true, 'a non-negative integer'],
  /** Longest nonce remembered by default; longer ones are refused before the store sees them. */
  'nonce.maxLength': [256, 1, Number.MAX_SAFE_INTEGER, true, 'a positive integer'],
  'nonce.windowSeconds': [DEFAULT_NONCE_WINDOW_SECONDS, Number.MIN_VALUE, Number.MAX_VALUE, false, 'a positive number of seconds'],
  /** Distinct directories (Signature-Agent members) one request may make the verifier look up. */
  'discovery.maxDirectories': [4, 0, 64, true, 'an integer from 0 to 64'],
  /** One deadline over all key discovery a request causes. */
  'discovery.timeoutMs': [5_000, 1, 300_000, true, 'an integer number of milliseconds from 1 to 300,000'],
  'verifiedSignatureMemo.maxEntries': [DEFAULT_VERIFIED_MEMO_MAX_ENTRIES, 1, MAX_VERIFIED_MEMO_ENTRIES, true, 'an integer from 1 to 1,000,000'],
} as const satisfies Record<string, readonly [number, number, number, boolean, string]>;

/** The numeric option `name` (a path below `where`): its default when `undefined` or `null`, else the value when in range. */
function numberOption(value: unknown, name: keyof typeof NUMBERS, where = 'options'): number {
  const [fallback, least, most, integer, what] = NUMBERS[name];
  if (value === undefined || value === null) return fallback;
  // NaN fails both comparisons.
  if (typeof value !== 'number' || !(value >= least && value <= most) || (integer && !Number.isSafeInteger(value))) {
    throw new TypeError(`${where}.${name} must be ${what}`);
  }
  return value;
}

function refuse(name: string, what: string): never {
  throw new TypeError(`options.${name} must ${what}`);
}

const DEFAULT_ALGORITHMS: ReadonlySet<AlgorithmName> = /* @__PURE__ */ new Set(ALGORITHMS);

// The prepared state hangs off the options object (and the static keys off their
// array): it lives exactly as long as the caller keeps them, and is never shared
// with another options object.
const staticKeysByArray = /* @__PURE__ */ new WeakMap<ReadonlyArray<Jwk | VerifyingKey>, Promise<Map<string, Found>>>();

/** Every option of `verifyRequest` (the verifier extends the list with its own). @internal */
export const VERIFY_OPTION_NAMES: readonly (keyof VerifyRequestOptions)[] = [
  'keys',
  'resolveKey',
  'directory',
  'nonce',
  'now',
  'clockSkewSeconds',
  'maxValiditySeconds',
  'requiredComponents',
  'strictAuthority',
  'algorithms',
  'allowInsecure',
  'allowTestKeys',
  'allowHttpSignatureAgent',
  'bareOriginDirectory',
  'typedSignatureAgent',
  'label',
  'authorities',
  'discovery',
  'maxSignatures',
  'verifiedSignatureMemo',
  'requireContentDigest',
  'maxBodyBytes',
  'headersOnly',
  'profile',
];
/** @internal */
export const NONCE_OPTION_NAMES: readonly string[] = ['policy', 'store', 'maxLength', 'windowSeconds'];

/** An object option's value (`undefined`, and `null` where `nullable`: none), its member names checked. */
function objectOption<T extends object>(value: T | null | undefined, name: string, names: readonly string[], nullable = true): Partial<T> | undefined {
  if (value === undefined || (value === null && nullable)) return undefined;
  if (typeof value !== 'object' || value === null) refuse(name, 'be an object');
  checkOptionNames(value, names, `options.${name}`);
  return value;
}

function policyOf(value: unknown, where: string): NoncePolicy {
  if (value !== 'none' && value !== 'optional' && value !== 'required') throw new TypeError(`${where} must be none, optional or required`);
  return value;
}

/** Public JWKs or verifying keys: each JWK's structure checked now (the import runs once, later). */
function checkKeys(keys: readonly unknown[], name: string): void {
  keys.forEach((k, i) => {
    const problem = isVerifyingKey(k) ? undefined : publicJwkProblem(k as Jwk);
    if (problem !== undefined) throw new TypeError(`${name}[${i}] ${problem}`);
  });
}

/** Keys imported once, in a lookup table by thumbprint (a hit allocates nothing). */
async function importKeys(keys: ReadonlyArray<Jwk | VerifyingKey>, name: string): Promise<[VerifyingKey, Found][]> {
  try {
    const list = await Promise.all(keys.map((k) => importVerifyingKey(k)));
    return list.map((key) => [key, Object.freeze({ key, agent: key.thumbprint, source: 'static' })]);
  } catch (error) {
    throw new TypeError(`${name}: a key cannot be imported`, { cause: error });
  }
}

/**
 * Validates `options` and prepares what every verification with them reuses (static
 * keys start importing), once per options object. `verifyRequest` does this on first
 * use; `createVerifier` calls it at creation so that configuration mistakes surface
 * there and not per request.
 *
 * @throws TypeError for malformed options: an unknown option name (with the closest
 *   known one), a value of the wrong type or out of range, a static JWK that can
 *   never be imported.
 * @internal
 */
export function prepareVerifyOptions(options: VerifyRequestOptions): void {
  prepare(options);
}

export function prepare(options: VerifyRequestOptions): Prepared {
  const cached = preparedOf(options);
  if (cached !== undefined) return cached;
  if (typeof options !== 'object' || options === null) throw new TypeError('verifyRequest options must be an object');
  checkOptionNames(options, VERIFY_OPTION_NAMES, 'verifyRequest options');
  const { keys, resolveKey, directory, now, algorithms } = options;
  const nonce = objectOption(options.nonce, 'nonce', NONCE_OPTION_NAMES, false);
  const discovery = objectOption(options.discovery, 'discovery', ['maxDirectories', 'timeoutMs']);
  if (keys !== undefined) {
    if (!Array.isArray(keys)) refuse('keys', 'be an array of JWKs or verifying keys');
    checkKeys(keys, 'options.keys');
  }
  if (resolveKey !== undefined && typeof resolveKey !== 'function') refuse('resolveKey', 'be a function');
  if (directory !== undefined && (typeof directory !== 'object' || directory === null || typeof directory.resolve !== 'function')) {
    refuse('directory', 'have a resolve(member) method');
  }
  if (now !== undefined && typeof now !== 'function') refuse('now', 'be a function returning milliseconds');
  const skewSeconds = numberOption(options.clockSkewSeconds, 'clockSkewSeconds');
  const maxValidity = numberOption(options.maxValiditySeconds, 'maxValiditySeconds');
  const policy = policyOf(nonce?.policy ?? 'optional', 'options.nonce.policy');
  const maxNonceLength = numberOption(nonce?.maxLength, 'nonce.maxLength');
  const nonceWindowSeconds = numberOption(nonce?.windowSeconds, 'nonce.windowSeconds');
  const maxSignatures = numberOption(options.maxSignatures, 'maxSignatures');
  const maxDirectories = numberOption(discovery?.maxDirectories, 'discovery.maxDirectories');
  const discoveryTimeoutMs = numberOption(discovery?.timeoutMs, 'discovery.timeoutMs');
  const store = nonce?.store;
  if (store !== undefined && store !== null && (typeof store !== 'object' || typeof store.checkAndRecord !== 'function')) {
    refuse('nonce.store', 'have a checkAndRecord method');
  }
  let algorithmSet = DEFAULT_ALGORITHMS;
  if (algorithms !== undefined) {
    if (!Array.isArray(algorithms) || !algorithms.every(isAlgorithmName)) refuse('algorithms', 'list RFC 9421 algorithm names');
    algorithmSet = new Set(algorithms);
  }
  const required = options.requiredComponents === undefined ? NO_STRINGS : componentIdentities(options.requiredComponents, 'options.requiredComponents');
  const strict = options.strictAuthority === true;
  const profile = prepareProfile(options.profile, { required, strict, maxValidity, policy }, directory);
  const authorities = prepareAuthorities(options.authorities);
  const bareOriginDirectory = flag(options.bareOriginDirectory, 'bareOriginDirectory') !== false;
  const typedSignatureAgent = flag(options.typedSignatureAgent, 'typedSignatureAgent') === true;
  const verifiedMemo = prepareVerifiedMemo(options.verifiedSignatureMemo);
  const requireContentDigest = options.requireContentDigest;
  if (requireContentDigest !== undefined && typeof requireContentDigest !== 'boolean' && typeof requireContentDigest !== 'function') {
    refuse('requireContentDigest', 'be a boolean or a function (request) => boolean');
  }
  // `null` is no default here: it is refused, as any value that is not a number of bytes.
  const maxBodyBytes = numberOption(options.maxBodyBytes === null ? Number.NaN : options.maxBodyBytes, 'maxBodyBytes');
  const headersOnly = flag(options.headersOnly, 'headersOnly') === true;

  // Only valid options start imports. Static keys are imported once per array.
  let pendingKeys: Promise<Map<string, Found>> | undefined;
  if (keys !== undefined) {
    pendingKeys = staticKeysByArray.get(keys);
    if (pendingKeys === undefined) {
      pendingKeys = importKeys(keys, 'options.keys').then((list) => new Map(list.map(([key, found]) => [key.thumbprint, found])));
      // Handled in loadStaticKeys; keep an early rejection from being "unhandled".
      pendingKeys.catch(() => undefined);
      staticKeysByArray.set(keys, pendingKeys);
    }
  }
  if (profile.pending.length > 0) {
    // Tag keys load with the static keys: verifyRequest waits for both before the first request.
    pendingKeys = Promise.all([pendingKeys ?? Promise.resolve(new Map<string, Found>()), ...profile.pending]).then(([base]) => base);
    pendingKeys.catch(() => undefined);
  }
  const prepared: Prepared = {
    staticKeys: undefined,
    pendingKeys,
    algorithms: algorithmSet,
    required,
    skewSeconds,
    maxValiditySeconds: maxValidity,
    policy,
    // No store given: one owned by this options object (keep one object per verifier),
    // never a process-wide one that unrelated callers would share and could exhaust.
    store: store ?? new MemoryNonceStore(now === undefined ? {} : { now }),
    maxNonceLength,
    nonceWindowSeconds,
    authorities,
    maxDirectories,
    maxSignatures,
    discoveryTimeoutMs,
    now: now ?? systemClock,
    agents: new AgentCache({ allowHttp: options.allowHttpSignatureAgent === true, bareOriginDirectory, typedSignatureAgent }),
    verifiedMemo,
    requireContentDigest,
    maxBodyBytes,
    headersOnly,
    tags: profile.tags,
    profileName: profile.name,
  };
  rememberPrepared(options, prepared);
  return prepared;
}

/** The options-wide rules, each tag's defaults. */
interface BaseRules {
  readonly required: readonly string[];
  readonly strict: boolean;
  readonly maxValidity: number;
  readonly policy: NoncePolicy;
}

/**
 * `options.profile` prepared by tag (`undefined` for the default, `web-bot-auth` with the
 * options-wide rules, including `WEB_BOT_AUTH_PROFILE` given explicitly: it takes the
 * default path), with the imports its `{ keys }` sources start.
 */
function prepareProfile(
  profile: VerifyProfile | undefined,
  base: BaseRules,
  directory: VerifyRequestOptions['directory'],
): { tags: Map<string, TagPrepared> | undefined; name: string; pending: Promise<void>[] } {
  if (profile === undefined || profile === WEB_BOT_AUTH_PROFILE) return { tags: undefined, name: WEB_BOT_AUTH_TAG, pending: [] };
  if (typeof profile !== 'object' || profile === null) refuse('profile', 'be a VerifyProfile ({ name, tags })');
  checkOptionNames(profile, ['name', 'tags'], 'options.profile');
  if (typeof profile.name !== 'string' || profile.name === '') refuse('profile.name', 'be a non-empty string');
  const tagsGiven = profile.tags as unknown;
  if (typeof tagsGiven !== 'object' || tagsGiven === null || Array.isArray(tagsGiven)) refuse('profile.tags', 'be an object of tag → rules');
  const tags = new Map<string, TagPrepared>();
  const pending: Promise<void>[] = [];
  for (const [tag, rules] of Object.entries(tagsGiven as Record<string, TagRules>)) {
    const where = `options.profile.tags[${JSON.stringify(tag)}]`;
    if (tag === '' || !/^[\x20-\x7e]+$/.test(tag)) throw new TypeError(`${where}: a tag is a non-empty printable ASCII string`);
    if (typeof rules !== 'object' || rules === null) throw new TypeError(`${where} must be an object`);
    checkOptionNames(rules, ['requiredComponents', 'strictAuthority', 'maxValiditySeconds', 'nonce', 'keys'], where);
    const maxValidity = numberOption(rules.maxValiditySeconds ?? base.maxValidity, 'maxValiditySeconds', where);
    const policy = policyOf(rules.nonce ?? base.policy, `${where}.nonce`);
    const strict = rules.strictAuthority ?? base.strict;
    if (typeof strict !== 'boolean') throw new TypeError(`${where}.strictAuthority must be a boolean`);
    const required = rules.requiredComponents === undefined ? base.required : componentIdentities(rules.requiredComponents, `${where}.requiredComponents`);
    const source = rules.keys ?? 'signature-agent';
    let jwks: SignatureAgentMember | undefined;
    let matchKid = false;
    let keys: ReadonlyArray<Jwk | VerifyingKey> | undefined;
    if (source !== 'signature-agent') {
      if (typeof source !== 'object' || source === null) throw new TypeError(`${where}.keys must be 'signature-agent', { jwksUri } or { keys }`);
      const s = source as { jwksUri?: unknown; keys?: unknown; matchKid?: unknown };
      checkOptionNames(s, 'jwksUri' in s ? ['jwksUri', 'matchKid'] : ['keys', 'matchKid'], `${where}.keys`);
      if (s.matchKid !== undefined && typeof s.matchKid !== 'boolean') throw new TypeError(`${where}.keys.matchKid must be a boolean`);
      matchKid = s.matchKid === true;
      if ('jwksUri' in s) {
        const uri = s.jwksUri;
        if (typeof uri !== 'string' || !/^https?:\/\//i.test(uri) || parseTargetUri(uri) === undefined) {
          throw new TypeError(`${where}.keys.jwksUri must be an absolute https URL`);
        }
        if (directory === undefined) throw new TypeError(`${where}.keys.jwksUri needs options.directory (a DirectoryClient) to fetch it`);
        jwks = Object.freeze({ url: uri, type: 'jwks_uri', scheme: uri[4] === ':' ? 'http' : 'https', index: 0 });
      } else {
        if (!Array.isArray(s.keys) || s.keys.length === 0) throw new TypeError(`${where}.keys.keys must be a non-empty array of public JWKs or verifying keys`);
        checkKeys(s.keys, `${where}.keys.keys`);
        keys = s.keys as ReadonlyArray<Jwk | VerifyingKey>;
      }
    }
    const prepared: TagPrepared = {
      tag,
      required,
      strictAuthority: strict,
      maxValiditySeconds: maxValidity,
      policy,
      jwks,
      staticKeys: undefined,
      matchKid,
      ownKeys: source !== 'signature-agent',
    };
    if (keys !== undefined) pending.push(loadTagKeys(prepared, keys, where));
    tags.set(tag, prepared);
  }
  if (tags.size === 0) refuse('profile.tags', 'name at least one tag');
  return { tags, name: profile.name, pending };
}

/** A tag's `{ keys }`, imported once: by thumbprint, and by `kid` (a JWK's own) with `matchKid`. */
async function loadTagKeys(tag: TagPrepared, keys: ReadonlyArray<Jwk | VerifyingKey>, where: string): Promise<void> {
  const imported = await importKeys(keys, `${where}.keys`);
  const map = new Map<string, Found>(imported.map(([key, found]) => [key.thumbprint, found]));
  if (tag.matchKid) {
    imported.forEach(([, found], i) => {
      const kid = isVerifyingKey(keys[i]) ? undefined : (keys[i] as Jwk).kid;
      if (typeof kid === 'string' && !map.has(kid)) map.set(kid, found);
    });
  }
  tag.staticKeys = map;
}

/** The memo `verifiedSignatureMemo` asks for: on by default, `false` turns it off. */
function prepareVerifiedMemo(option: VerifyRequestOptions['verifiedSignatureMemo']): VerifiedMemo | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (typeof option !== 'object' || option === null)) refuse('verifiedSignatureMemo', 'be an object or false');
  const given = objectOption(option, 'verifiedSignatureMemo', ['maxEntries']);
  return new VerifiedMemo(numberOption(given?.maxEntries, 'verifiedSignatureMemo.maxEntries'));
}

/**
 * `authorities` as the set of `@authority` values they stand for: lowercase host,
 * port kept unless it is the default of the scheme the request arrives with.
 */
function prepareAuthorities(list: unknown): ReadonlySet<string> | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.length === 0) refuse('authorities', 'be a non-empty array of host or host:port strings');
  const out = new Set<string>();
  for (const entry of list as unknown[]) {
    const ok = typeof entry === 'string' && /^[^/?#@\\\s]+$/.test(entry);
    const https = ok ? parseTargetUri(`https://${entry}/`) : undefined;
    const http = ok ? parseTargetUri(`http://${entry}/`) : undefined;
    if (https === undefined || http === undefined || https.path !== '/') {
      throw new TypeError(`options.authorities: ${JSON.stringify(entry)} is not a host or host:port`);
    }
    out.add(https.authority);
    out.add(http.authority);
  }
  return out;
}

function flag(value: unknown, name: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') refuse(name, 'be a boolean');
  return value as boolean | undefined;
}
