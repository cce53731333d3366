/**
 * `createVerifier` options, checked once at creation: the frozen options every
 * `verifyRequest` call gets (its directory and nonce store built here), the
 * challenge's `Accept-Signature`, and the origin's transport rules.
 */
import { isBotsigError } from '../core/errors';
import { checkOptionNames } from '../core/options';
import { DirectoryClient } from '../directory/client';
import { checkHook, observedDirectory, observedNonceStore } from './events';
import { acceptSignatureValue } from '../profile/challenge';
import type { ChallengeOptions } from '../profile/challenge';
import { MemoryNonceStore } from '../profile/memory-nonce-store';
import type { KeyDirectory, VerifyRequestOptions } from '../profile/types';
import { NONCE_OPTION_NAMES, prepareVerifyOptions, VERIFY_OPTION_NAMES } from '../profile/verify/options';
import type { TrustProxy, VerifierOptions } from './types';

export function checkTrustProxy(value: unknown): asserts value is TrustProxy {
  if (typeof value === 'boolean' || typeof value === 'function') return;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= 64) return;
  throw new TypeError('options.trustProxy must be a boolean, a number of proxies (0–64) or a function');
}

function checkFlag(
  options: VerifierOptions,
  name: 'allowInsecure' | 'allowTestKeys' | 'allowHttpSignatureAgent' | 'strictAuthority' | 'bareOriginDirectory' | 'typedSignatureAgent',
): void {
  const value = options[name];
  if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`options.${name} must be a boolean`);
}

function isKeyDirectory(value: unknown): value is KeyDirectory {
  return typeof value === 'object' && value !== null && typeof (value as KeyDirectory).resolve === 'function';
}

// concat under a pure annotation (a spread is a side effect to a bundler, which would keep both lists).
const VERIFIER_OPTION_NAMES: readonly (keyof VerifierOptions)[] = /* @__PURE__ */ (VERIFY_OPTION_NAMES as readonly (keyof VerifierOptions)[]).concat([
  'mode',
  'policy',
  'trustProxy',
  'challenge',
  'originNonce',
  'onVerification',
  'onDirectoryLookup',
  'onNonceCheck',
]);

export function buildVerifyOptions(options: VerifierOptions): Readonly<VerifyRequestOptions> {
  checkOptionNames(options, VERIFIER_OPTION_NAMES, 'createVerifier options');
  checkFlag(options, 'allowInsecure');
  checkFlag(options, 'allowTestKeys');
  checkFlag(options, 'allowHttpSignatureAgent');
  checkFlag(options, 'bareOriginDirectory');
  checkFlag(options, 'typedSignatureAgent');
  checkFlag(options, 'strictAuthority');
  if (options.keys !== undefined && !Array.isArray(options.keys)) throw new TypeError('options.keys must be an array of public JWKs or verifying keys');
  if (options.resolveKey !== undefined && typeof options.resolveKey !== 'function') throw new TypeError('options.resolveKey must be a function');
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('options.now must be a function returning milliseconds');
  if (options.requiredComponents !== undefined && !Array.isArray(options.requiredComponents)) {
    throw new TypeError('options.requiredComponents must be an array of component identifiers');
  }
  if (options.algorithms !== undefined && !Array.isArray(options.algorithms)) throw new TypeError('options.algorithms must be an array');

  let directory: KeyDirectory | undefined;
  const given = options.directory;
  if (given === false) {
    directory = undefined;
  } else if (isKeyDirectory(given)) {
    directory = given;
  } else if (given === undefined) {
    directory =
      options.keys === undefined && options.resolveKey === undefined ? new DirectoryClient(options.now === undefined ? {} : { now: options.now }) : undefined;
  } else if (typeof given === 'object' && given !== null) {
    directory = new DirectoryClient(options.now === undefined || given.now !== undefined ? given : { ...given, now: options.now });
  } else {
    throw new TypeError('options.directory must be a DirectoryClient, DirectoryClient options or false');
  }

  const nonce = options.nonce;
  if (nonce !== undefined && (typeof nonce !== 'object' || nonce === null)) throw new TypeError('options.nonce must be an object');
  if (nonce !== undefined) checkOptionNames(nonce, NONCE_OPTION_NAMES, 'options.nonce');
  const noncePolicy = nonce?.policy ?? 'optional';
  if (noncePolicy !== 'none' && noncePolicy !== 'optional' && noncePolicy !== 'required') {
    throw new TypeError("options.nonce.policy must be 'none', 'optional' or 'required'");
  }
  let store = nonce?.store ?? new MemoryNonceStore(options.now === undefined ? {} : { now: options.now });
  if (typeof store.checkAndRecord !== 'function') throw new TypeError('options.nonce.store must be a NonceStore');
  // Event hooks: the directory and the store are wrapped only when a hook asks (no cost otherwise).
  checkHook(options.onVerification, 'onVerification');
  checkHook(options.onDirectoryLookup, 'onDirectoryLookup');
  checkHook(options.onNonceCheck, 'onNonceCheck');
  if (options.onDirectoryLookup !== undefined && directory !== undefined) directory = observedDirectory(directory, options.onDirectoryLookup);
  if (options.onNonceCheck !== undefined) store = observedNonceStore(store, options.onNonceCheck);

  const out: { -readonly [K in keyof VerifyRequestOptions]: VerifyRequestOptions[K] } = {
    nonce: Object.freeze({
      policy: noncePolicy,
      store,
      ...(nonce?.maxLength === undefined ? {} : { maxLength: nonce.maxLength }),
      ...(nonce?.windowSeconds === undefined ? {} : { windowSeconds: nonce.windowSeconds }),
    }),
  };
  if (directory !== undefined) out.directory = directory;
  // Copied, not referenced: later changes to the caller's arrays must not change this verifier.
  if (options.keys !== undefined) out.keys = Object.freeze([...options.keys]);
  if (options.resolveKey !== undefined) out.resolveKey = options.resolveKey;
  if (options.now !== undefined) out.now = options.now;
  if (options.clockSkewSeconds !== undefined) out.clockSkewSeconds = nonNegative(options.clockSkewSeconds, 'clockSkewSeconds');
  if (options.maxValiditySeconds !== undefined) out.maxValiditySeconds = nonNegative(options.maxValiditySeconds, 'maxValiditySeconds');
  if (options.requiredComponents !== undefined) out.requiredComponents = Object.freeze([...options.requiredComponents]);
  if (options.strictAuthority !== undefined) out.strictAuthority = options.strictAuthority;
  if (options.algorithms !== undefined) out.algorithms = Object.freeze([...options.algorithms]);
  if (options.allowInsecure !== undefined) out.allowInsecure = options.allowInsecure;
  if (options.allowTestKeys !== undefined) out.allowTestKeys = options.allowTestKeys;
  if (options.allowHttpSignatureAgent !== undefined) out.allowHttpSignatureAgent = options.allowHttpSignatureAgent;
  if (options.bareOriginDirectory !== undefined) out.bareOriginDirectory = options.bareOriginDirectory;
  if (options.typedSignatureAgent !== undefined) out.typedSignatureAgent = options.typedSignatureAgent;
  if (options.label !== undefined) {
    if (typeof options.label !== 'string') throw new TypeError('options.label must be a string');
    out.label = options.label;
  }
  if (options.authorities !== undefined) {
    if (!Array.isArray(options.authorities)) throw new TypeError('options.authorities must be an array of host or host:port strings');
    out.authorities = Object.freeze([...options.authorities]);
  }
  if (options.discovery !== undefined) {
    if (typeof options.discovery !== 'object' || options.discovery === null) throw new TypeError('options.discovery must be an object');
    out.discovery = Object.freeze({ ...options.discovery });
  }
  if (options.maxSignatures !== undefined) out.maxSignatures = options.maxSignatures;
  // Checked by prepareVerifyOptions below (a profile is a frozen value the caller keeps).
  if (options.profile !== undefined) out.profile = options.profile;
  // Checked by prepareVerifyOptions below.
  if (options.requireContentDigest !== undefined) out.requireContentDigest = options.requireContentDigest;
  if (options.maxBodyBytes !== undefined) out.maxBodyBytes = options.maxBodyBytes;
  if (options.headersOnly !== undefined) out.headersOnly = options.headersOnly;
  const memo = options.verifiedSignatureMemo;
  // Checked by prepareVerifyOptions below; an object is copied like the others.
  if (memo !== undefined) out.verifiedSignatureMemo = typeof memo === 'object' && memo !== null ? Object.freeze({ ...memo }) : memo;
  const frozen = Object.freeze(out);
  // Every verifyRequest rule checked now (option names, ranges, static keys), not per request.
  prepareVerifyOptions(frozen);
  return frozen;
}

export function nonNegative(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`options.${name} must be a non-negative number of seconds`);
  return value;
}

export function buildChallengeOptions(options: VerifierOptions): ChallengeOptions {
  const c = options.challenge;
  if (c !== undefined && (typeof c !== 'object' || c === null)) throw new TypeError('options.challenge must be an object');
  if (c !== undefined) checkOptionNames(c, ['label', 'components', 'keyid'], 'options.challenge');
  const components = c?.components ?? ['@authority', ...(options.requiredComponents ?? [])];
  if (!Array.isArray(components)) throw new TypeError('options.challenge.components must be an array');
  const out: { label?: string; components: readonly string[]; keyid?: string } = { components: Object.freeze([...components]) };
  if (c?.label !== undefined) out.label = c.label;
  if (c?.keyid !== undefined) out.keyid = c.keyid;
  try {
    // Serialising once proves the identifiers are well-formed, so a request never meets a bad option.
    acceptSignatureValue(out);
  } catch (error) {
    if (isBotsigError(error) || error instanceof TypeError)
      throw new TypeError('options.challenge does not make a valid Accept-Signature (check label, components, keyid)');
    throw error;
  }
  return Object.freeze(out);
}
