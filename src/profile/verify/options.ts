/**
 * Options of `verifyRequest`, validated and prepared once per options object: the
 * option lists, defaults and ranges, static keys (imported once per array), the
 * origin's authorities, the owned nonce store and Signature-Agent parse cache.
 */
import { checkOptionNames } from '../../core/options';
import { processWide } from '../../core/process-wide';
import { systemClock } from '../../core/time';
import { isVerifyingKey } from '../../crypto/keys/objects';
import { ALGORITHMS, isAlgorithmName } from '../../crypto/registry';
import type { AlgorithmName, Jwk, VerifyingKey } from '../../crypto/types';
import { parseComponentIdentifier, serializeComponentIdentifier } from '../../httpsig/components';
import { parseTargetUri } from '../../httpsig/message';
import { publicJwkProblem } from '../key-check';
import { WEB_BOT_AUTH_PROFILE } from '../profiles';
import type { SignatureAgentMember } from '../signature-agent/types';
import { WEB_BOT_AUTH_TAG } from '../types';
import type { ContentDigestRequirement, NoncePolicy, TagRules, VerifyProfile, VerifyRequestOptions } from '../types';
import { AgentCache } from './agent-cache';
import { DefaultNonceStore, importVerifyingKeyLazily } from './lazy-parts';
import { DEFAULT_NONCE_WINDOW_SECONDS } from '../nonce-store';
import { preparedOf, rememberPrepared } from './prepared';
import { NO_STRINGS, type Found, type Prepared, type TagPrepared } from './state';
import { DEFAULT_VERIFIED_MEMO_MAX_ENTRIES, MAX_VERIFIED_MEMO_ENTRIES, VerifiedMemo } from './verified-memo';

const DEFAULT_SKEW_SECONDS = 60;
const DEFAULT_MAX_VALIDITY_SECONDS = 86_400;
/** Longest nonce remembered by default; longer ones are refused before the store sees them. */
const DEFAULT_MAX_NONCE_LENGTH = 256;
/** Distinct directories (Signature-Agent members) one request may make the verifier look up. */
const DEFAULT_MAX_DIRECTORIES = 4;
/** Signatures judged per request (a Web Bot Auth request carries one or two; intermediaries may add a few). */
const DEFAULT_MAX_SIGNATURES = 16;
/** One deadline over all key discovery a request causes. */
const DEFAULT_DISCOVERY_TIMEOUT_MS = 5_000;
/** Content read to check a covered Content-Digest (Fastify's default body limit). */
export const DEFAULT_VERIFY_MAX_BODY_BYTES = 1024 * 1024;

const DEFAULT_ALGORITHMS: ReadonlySet<AlgorithmName> = /* @__PURE__ */ new Set(ALGORITHMS);

// The prepared state hangs off the options object (and the static keys off their
// array): it lives exactly as long as the caller keeps them, and is never shared
// with another options object.
// (The table of prepared options is process-wide, in prepared.ts; so is this one, for the same reason.)
const staticKeysByArray = /* @__PURE__ */ processWide(
  'verify.static-keys.v1',
  () => new WeakMap<ReadonlyArray<Jwk | VerifyingKey>, Promise<Map<string, Found>>>(),
);

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
const DISCOVERY_OPTION_NAMES: readonly string[] = ['maxDirectories', 'timeoutMs'];
/** @internal */
export const VERIFIED_MEMO_OPTION_NAMES: readonly string[] = ['maxEntries'];

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
  const { keys, resolveKey, directory, nonce, now, clockSkewSeconds, maxValiditySeconds, requiredComponents, algorithms } = options;
  if (nonce !== undefined) {
    if (typeof nonce !== 'object' || nonce === null) throw new TypeError('options.nonce must be an object');
    checkOptionNames(nonce, NONCE_OPTION_NAMES, 'options.nonce');
  }
  if (options.discovery !== undefined && typeof options.discovery === 'object' && options.discovery !== null) {
    checkOptionNames(options.discovery, DISCOVERY_OPTION_NAMES, 'options.discovery');
  }

  let pendingKeys: Promise<Map<string, Found>> | undefined;
  if (keys !== undefined) {
    if (!Array.isArray(keys)) throw new TypeError('options.keys must be an array of JWKs or verifying keys');
    keys.forEach((k: unknown, i) => {
      if (isVerifyingKey(k)) return;
      const problem = publicJwkProblem(k as Jwk);
      if (problem !== undefined) throw new TypeError(`options.keys[${i}] ${problem}`);
    });
    pendingKeys = staticKeysByArray.get(keys);
    if (pendingKeys === undefined) {
      // Each key's lookup answer is built here once; a hit allocates nothing.
      pendingKeys = Promise.all(keys.map((k: Jwk | VerifyingKey) => importVerifyingKeyLazily(k))).then(
        (list) => new Map(list.map((key): [string, Found] => [key.thumbprint, Object.freeze({ key, agent: key.thumbprint, source: 'static' })])),
        (error: unknown) => {
          throw new TypeError('options.keys: a key cannot be imported', { cause: error });
        },
      );
      // Handled in loadStaticKeys; keep an early rejection from being "unhandled".
      pendingKeys.catch(() => undefined);
      staticKeysByArray.set(keys, pendingKeys);
    }
  }
  if (resolveKey !== undefined && typeof resolveKey !== 'function') throw new TypeError('options.resolveKey must be a function');
  if (directory !== undefined && (typeof directory !== 'object' || directory === null || typeof directory.resolve !== 'function')) {
    throw new TypeError('options.directory must have a resolve(member) method');
  }
  if (now !== undefined && typeof now !== 'function') throw new TypeError('options.now must be a function returning milliseconds');
  const skewSeconds = clockSkewSeconds ?? DEFAULT_SKEW_SECONDS;
  if (typeof skewSeconds !== 'number' || !Number.isFinite(skewSeconds) || skewSeconds < 0) {
    throw new TypeError('options.clockSkewSeconds must be a non-negative number');
  }
  const maxValidity = maxValiditySeconds ?? DEFAULT_MAX_VALIDITY_SECONDS;
  if (typeof maxValidity !== 'number' || Number.isNaN(maxValidity) || maxValidity <= 0) {
    throw new TypeError('options.maxValiditySeconds must be a positive number');
  }
  const policy = nonce?.policy ?? 'optional';
  if (policy !== 'none' && policy !== 'optional' && policy !== 'required') throw new TypeError('options.nonce.policy must be none, optional or required');
  // No store given: one owned by this options object (keep one object per verifier),
  // never a process-wide one that unrelated callers would share and could exhaust.
  const store = nonce?.store ?? new DefaultNonceStore(now === undefined ? {} : { now });
  const maxNonceLength = nonce?.maxLength ?? DEFAULT_MAX_NONCE_LENGTH;
  if (!Number.isSafeInteger(maxNonceLength) || maxNonceLength < 1) throw new TypeError('options.nonce.maxLength must be a positive integer');
  const nonceWindowSeconds = nonce?.windowSeconds ?? DEFAULT_NONCE_WINDOW_SECONDS;
  if (typeof nonceWindowSeconds !== 'number' || !Number.isFinite(nonceWindowSeconds) || nonceWindowSeconds <= 0) {
    throw new TypeError('options.nonce.windowSeconds must be a positive number of seconds');
  }
  const discovery = options.discovery ?? {};
  if (typeof discovery !== 'object' || discovery === null) throw new TypeError('options.discovery must be an object');
  const maxSignatures = options.maxSignatures ?? DEFAULT_MAX_SIGNATURES;
  if (!Number.isSafeInteger(maxSignatures) || maxSignatures < 1 || maxSignatures > 100_000) {
    throw new TypeError('options.maxSignatures must be an integer from 1 to 100,000');
  }
  const maxDirectories = discovery.maxDirectories ?? DEFAULT_MAX_DIRECTORIES;
  if (!Number.isSafeInteger(maxDirectories) || maxDirectories < 0 || maxDirectories > 64) {
    throw new TypeError('options.discovery.maxDirectories must be an integer from 0 to 64');
  }
  const discoveryTimeoutMs = discovery.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS;
  if (!Number.isSafeInteger(discoveryTimeoutMs) || discoveryTimeoutMs < 1 || discoveryTimeoutMs > 300_000) {
    throw new TypeError('options.discovery.timeoutMs must be an integer number of milliseconds from 1 to 300,000');
  }
  if (typeof store !== 'object' || store === null || typeof store.checkAndRecord !== 'function') {
    throw new TypeError('options.nonce.store must have a checkAndRecord method');
  }
  let algorithmSet = DEFAULT_ALGORITHMS;
  if (algorithms !== undefined) {
    if (!Array.isArray(algorithms) || !algorithms.every(isAlgorithmName)) throw new TypeError('options.algorithms must list RFC 9421 algorithm names');
    algorithmSet = new Set(algorithms);
  }
  let required = NO_STRINGS;
  if (requiredComponents !== undefined) {
    if (!Array.isArray(requiredComponents)) throw new TypeError('options.requiredComponents must be an array of component identifiers');
    required = requiredComponents.map((text: string) => {
      try {
        return serializeComponentIdentifier(parseComponentIdentifier(text));
      } catch (error) {
        throw new TypeError('options.requiredComponents has an invalid component identifier', { cause: error });
      }
    });
  }
  const profile = prepareProfile(options.profile, { required, strict: options.strictAuthority === true, maxValidity, policy }, directory);
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
    store,
    maxNonceLength,
    nonceWindowSeconds,
    authorities: prepareAuthorities(options.authorities),
    maxDirectories,
    maxSignatures,
    discoveryTimeoutMs,
    now: now ?? systemClock,
    agents: new AgentCache({
      allowHttp: options.allowHttpSignatureAgent === true,
      bareOriginDirectory: flag(options.bareOriginDirectory, 'bareOriginDirectory') !== false,
      typedSignatureAgent: flag(options.typedSignatureAgent, 'typedSignatureAgent') === true,
    }),
    verifiedMemo: prepareVerifiedMemo(options.verifiedSignatureMemo),
    requireContentDigest: checkContentDigestRequirement(options.requireContentDigest),
    maxBodyBytes: checkMaxBodyBytes(options.maxBodyBytes),
    headersOnly: checkHeadersOnly(options.headersOnly),
    tags: profile.tags,
    profileName: profile.name,
  };
  rememberPrepared(options, prepared);
  return prepared;
}

const TAG_RULE_NAMES: readonly string[] = ['requiredComponents', 'strictAuthority', 'maxValiditySeconds', 'nonce', 'keys'];

/** The options-wide rules, each tag's defaults. */
interface BaseRules {
  readonly required: readonly string[];
  readonly strict: boolean;
  readonly maxValidity: number;
  readonly policy: NoncePolicy;
}

function requiredList(list: unknown, name: string): readonly string[] {
  if (!Array.isArray(list)) throw new TypeError(`${name} must be an array of component identifiers`);
  return list.map((text: unknown) => {
    try {
      return serializeComponentIdentifier(parseComponentIdentifier(text as string));
    } catch (error) {
      throw new TypeError(`${name} has an invalid component identifier`, { cause: error });
    }
  });
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
  if (typeof profile !== 'object' || profile === null) throw new TypeError('options.profile must be a VerifyProfile ({ name, tags })');
  checkOptionNames(profile, ['name', 'tags'], 'options.profile');
  if (typeof profile.name !== 'string' || profile.name === '') throw new TypeError('options.profile.name must be a non-empty string');
  const tagsGiven = profile.tags as unknown;
  if (typeof tagsGiven !== 'object' || tagsGiven === null || Array.isArray(tagsGiven)) {
    throw new TypeError('options.profile.tags must be an object of tag → rules');
  }
  const tags = new Map<string, TagPrepared>();
  const pending: Promise<void>[] = [];
  for (const [tag, rules] of Object.entries(tagsGiven as Record<string, TagRules>)) {
    const where = `options.profile.tags[${JSON.stringify(tag)}]`;
    if (tag === '' || !/^[\x20-\x7e]+$/.test(tag)) throw new TypeError(`${where}: a tag is a non-empty printable ASCII string`);
    if (typeof rules !== 'object' || rules === null) throw new TypeError(`${where} must be an object`);
    checkOptionNames(rules, TAG_RULE_NAMES, where);
    const maxValidity = rules.maxValiditySeconds ?? base.maxValidity;
    if (typeof maxValidity !== 'number' || Number.isNaN(maxValidity) || maxValidity <= 0) {
      throw new TypeError(`${where}.maxValiditySeconds must be a positive number`);
    }
    const policy = rules.nonce ?? base.policy;
    if (policy !== 'none' && policy !== 'optional' && policy !== 'required') throw new TypeError(`${where}.nonce must be none, optional or required`);
    const strict = rules.strictAuthority ?? base.strict;
    if (typeof strict !== 'boolean') throw new TypeError(`${where}.strictAuthority must be a boolean`);
    const required = rules.requiredComponents === undefined ? base.required : requiredList(rules.requiredComponents, `${where}.requiredComponents`);
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
        const url = typeof s.jwksUri === 'string' ? parseTargetUri(s.jwksUri) : undefined;
        if (url === undefined || typeof s.jwksUri !== 'string' || !/^https?:\/\//i.test(s.jwksUri)) {
          throw new TypeError(`${where}.keys.jwksUri must be an absolute https URL`);
        }
        if (directory === undefined) throw new TypeError(`${where}.keys.jwksUri needs options.directory (a DirectoryClient) to fetch it`);
        const scheme = s.jwksUri.slice(0, 5).toLowerCase() === 'https' ? 'https' : 'http';
        jwks = Object.freeze({ url: s.jwksUri, type: 'jwks_uri', scheme, index: 0 });
      } else {
        if (!Array.isArray(s.keys) || s.keys.length === 0) throw new TypeError(`${where}.keys.keys must be a non-empty array of public JWKs or verifying keys`);
        (s.keys as unknown[]).forEach((k, i) => {
          if (isVerifyingKey(k)) return;
          const problem = publicJwkProblem(k as Jwk);
          if (problem !== undefined) throw new TypeError(`${where}.keys.keys[${i}] ${problem}`);
        });
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
  if (tags.size === 0) throw new TypeError('options.profile.tags must name at least one tag');
  return { tags, name: profile.name, pending };
}

/** A tag's `{ keys }`, imported once: by thumbprint, and by `kid` (a JWK's own) with `matchKid`. */
async function loadTagKeys(tag: TagPrepared, keys: ReadonlyArray<Jwk | VerifyingKey>, where: string): Promise<void> {
  let imported: VerifyingKey[];
  try {
    imported = await Promise.all(keys.map((k) => importVerifyingKeyLazily(k)));
  } catch (error) {
    throw new TypeError(`${where}.keys: a key cannot be imported`, { cause: error });
  }
  const map = new Map<string, Found>();
  imported.forEach((key) => map.set(key.thumbprint, Object.freeze({ key, agent: key.thumbprint, source: 'static' })));
  if (tag.matchKid) {
    imported.forEach((key, i) => {
      const kid = isVerifyingKey(keys[i]) ? undefined : (keys[i] as Jwk).kid;
      if (typeof kid === 'string' && !map.has(kid)) map.set(kid, map.get(key.thumbprint)!);
    });
  }
  tag.staticKeys = map;
}

/** `requireContentDigest`: a boolean or a predicate; `undefined` and `false` require nothing. */
export function checkContentDigestRequirement(value: unknown): ContentDigestRequirement | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true || typeof value === 'function') return value as ContentDigestRequirement;
  throw new TypeError('options.requireContentDigest must be a boolean or a function (request) => boolean');
}

/** `maxBodyBytes`: a non-negative integer, default 1 MiB. */
export function checkMaxBodyBytes(value: unknown): number {
  if (value === undefined) return DEFAULT_VERIFY_MAX_BODY_BYTES;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new TypeError('options.maxBodyBytes must be a non-negative integer');
  return value;
}

/** `headersOnly`: a boolean, default false (a covered digest whose content cannot be read fails). */
function checkHeadersOnly(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new TypeError('options.headersOnly must be a boolean');
  return value;
}

/** The memo `verifiedSignatureMemo` asks for: on by default, `false` turns it off. */
function prepareVerifiedMemo(option: VerifyRequestOptions['verifiedSignatureMemo']): VerifiedMemo | undefined {
  if (option === false) return undefined;
  if (option === undefined) return new VerifiedMemo(DEFAULT_VERIFIED_MEMO_MAX_ENTRIES);
  if (typeof option !== 'object' || option === null) throw new TypeError('options.verifiedSignatureMemo must be an object or false');
  checkOptionNames(option, VERIFIED_MEMO_OPTION_NAMES, 'options.verifiedSignatureMemo');
  const maxEntries = option.maxEntries ?? DEFAULT_VERIFIED_MEMO_MAX_ENTRIES;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_VERIFIED_MEMO_ENTRIES) {
    throw new TypeError('options.verifiedSignatureMemo.maxEntries must be an integer from 1 to 1,000,000');
  }
  return new VerifiedMemo(maxEntries);
}

/**
 * `authorities` as the set of `@authority` values they stand for: lowercase host,
 * port kept unless it is the default of the scheme the request arrives with.
 */
function prepareAuthorities(list: unknown): ReadonlySet<string> | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.length === 0) throw new TypeError('options.authorities must be a non-empty array of host or host:port strings');
  const out = new Set<string>();
  for (const entry of list as unknown[]) {
    const https = typeof entry === 'string' && /^[^/?#@\\\s]+$/.test(entry) ? parseTargetUri(`https://${entry}/`) : undefined;
    const http = https === undefined ? undefined : parseTargetUri(`http://${entry as string}/`);
    if (https === undefined || http === undefined || https.path !== '/') {
      throw new TypeError(`options.authorities: ${JSON.stringify(entry)} is not a host or host:port`);
    }
    out.add(https.authority);
    out.add(http.authority);
  }
  return out;
}

function flag(value: unknown, name: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`options.${name} must be a boolean`);
  return value as boolean | undefined;
}
