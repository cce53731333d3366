/**
 * The key directory document (SPEC 2.1, 2.2; NOTES "Keys and identity"): a JWK Set
 * (RFC 7517 §5) of public signing keys, parsed defensively and built
 * deterministically.
 *
 * Parsing rejects malformed entries one by one, with one diagnostic per rule an
 * entry breaks (`at: 'keys[i]'`); the rest of the set stays usable. A key is
 * dropped exactly when it has at least one `error` diagnostic; `warning`s never
 * drop a key (duplicates aside). The only throw is for a document that is not a
 * JSON object with a usable `keys` member (or a bare JWK).
 */
import { base64Decode, base64UrlDecode } from '../core/base64';
import type { Diagnostic } from '../core/diagnostics';
import { BotsigError, type BotsigErrorCode } from '../core/errors';
import type { Clock } from '../core/time';
import { tryParseUrl } from '../core/url';
import { ALGORITHMS, inferAlgorithm, joseAlgToHttpSig, jwkFitsAlgorithm, RSA_MAX_MODULUS_BITS, RSA_MIN_MODULUS_BITS } from '../crypto/registry';
import { jwkThumbprintSync } from '../crypto/thumbprint';
import type { AlgorithmName, Jwk } from '../crypto/types';
import { WELL_KNOWN_PATH } from '../profile/signature-agent';

export { DIRECTORY_MEDIA_TYPE, WELL_KNOWN_PATH } from '../profile/signature-agent';

/** The media type of the first directory revisions, without `+json` (SPEC 2.1 rule 5). */
export const LEGACY_DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory';

/** The JWK Set media type (RFC 7517 §8.5), which `jwks_uri` servers commonly send. */
export const JWK_SET_MEDIA_TYPE = 'application/jwk-set+json';

/**
 * Default cap on the entries of a directory that are examined. A directory holds
 * the keys in active use (SPEC 2.1 rule 4), a handful in practice; 64 leaves room
 * for generous rotation while bounding the work (one hash per entry) an attacker
 * can cause.
 */
export const DEFAULT_MAX_KEYS = 64;

// Far above any real certificate chain; keeps the per-key work bounded.
const MAX_X5C_CERTIFICATES = 16;

// Timestamps above this are read as milliseconds (NOTES "Keys and identity"):
// 10^11 seconds is the year 5138, 10^11 milliseconds is March 1973.
const MILLISECONDS_THRESHOLD = 1e11;

// Private JWK members (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2). A directory never carries them.
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** The public members kept on a parsed key, in this order. */
const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'alg', 'kid', 'use', 'key_ops', 'nbf', 'exp', 'x5c', 'x5u'] as const;

/** Where a directory document came from; decides whether `kid` must be the thumbprint. */
export type DirectorySource = 'well-known' | 'jwks_uri' | 'cimd' | 'inline';

/** Which shape the document had. */
export type DirectoryShape = 'jwks' | 'single-object-keys' | 'bare-jwk';

/** One accepted key of a directory. */
export interface DirectoryKey {
  /**
   * The key's public members only (kty, crv, x, y, n, e, alg, kid, use, key_ops,
   * nbf, exp, x5c, x5u), with `alg` rewritten to its RFC 9421 name and `nbf`/`exp`
   * in seconds, so that it imports as is.
   */
  readonly jwk: Jwk;
  /** RFC 7638 / RFC 8037 §A.3 thumbprint, base64url: the `keyid` signatures name. */
  readonly thumbprint: string;
  /** From `alg` (JOSE names mapped), else inferred from the key type; absent for an RSA key without `alg`. */
  readonly alg?: AlgorithmName;
  /** The `kid` as published (the thumbprint at the well-known path; any label in a `jwks_uri`/`cimd` set). */
  readonly kid?: string;
  /** Start of validity, seconds since the epoch. */
  readonly nbf?: number;
  /** End of validity, seconds since the epoch. */
  readonly exp?: number;
  /** Position of the entry in the document. */
  readonly index: number;
  readonly x5c?: string[];
  readonly x5u?: string;
}

/** The result of {@link parseDirectory}. */
export interface ParsedDirectory {
  readonly keys: DirectoryKey[];
  readonly diagnostics: Diagnostic[];
  readonly shape: DirectoryShape;
}

export interface ParseDirectoryOptions {
  /** Where the document was fetched from. A path ending in the well-known path makes `kid` checks strict when `source` is not given. */
  readonly url?: string;
  /**
   * `well-known` and `inline` (a `data:` member of type `directory`) require
   * `kid` to equal the thumbprint; `jwks_uri` and `cimd` treat `kid` as a label.
   * Default: `well-known`, unless `url` is given and does not end in the well-known path.
   */
  readonly source?: DirectorySource;
  /** Entries examined; the rest are dropped with an error. Default {@link DEFAULT_MAX_KEYS}. */
  readonly maxKeys?: number;
  /** Reject `nbf`/`exp` written in milliseconds instead of converting them with a warning. */
  readonly strictTimestamps?: boolean;
  /** When given, keys outside their validity window at this time get a warning (they are kept: see {@link isKeyUsableAt}). */
  readonly now?: Clock;
}

interface KeyContext {
  readonly kidMustBeThumbprint: boolean;
  readonly strictTimestamps: boolean;
}

type KeyVerdict = { key: DirectoryKey; diagnostics: Diagnostic[] } | { key: undefined; diagnostics: Diagnostic[] };

function own(o: object, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, name) ? (o as Record<string, unknown>)[name] : undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

const CURVES: Readonly<Record<string, readonly string[]>> = { OKP: ['Ed25519'], EC: ['P-256', 'P-384'] };
const COORDINATE_BYTES: Readonly<Record<string, number>> = { Ed25519: 32, 'P-256': 32, 'P-384': 48 };

function rsaModulusBits(n: Uint8Array): number {
  let i = 0;
  while (i < n.length && n[i] === 0) i++;
  if (i === n.length) return 0;
  return (n.length - i - 1) * 8 + (32 - Math.clz32(n[i]!));
}

/** Reads `nbf`/`exp`: integer seconds, or milliseconds above 10^11 (converted unless strict). */
function readTimestamp(
  o: Record<string, unknown>,
  name: 'nbf' | 'exp',
  at: string,
  ctx: KeyContext,
  diagnostics: Diagnostic[],
): number | undefined | null {
  const v = own(o, name);
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    diagnostics.push({ level: 'error', code: 'timestamp-invalid', message: `${name} is not a non-negative integer number of seconds`, at });
    return null;
  }
  if (v > MILLISECONDS_THRESHOLD) {
    if (ctx.strictTimestamps) {
      diagnostics.push({ level: 'error', code: 'timestamp-milliseconds', message: `${name} looks like milliseconds, not seconds (strict timestamps)`, at });
      return null;
    }
    diagnostics.push({ level: 'warning', code: 'timestamp-milliseconds', message: `${name} looks like milliseconds; read as ${name}/1000 seconds`, at });
    return Math.floor(v / 1000);
  }
  return v;
}

/**
 * Applies every SPEC 2.1/2.2 rule to one entry. Synchronous on purpose: the only
 * hashing (the thumbprint) is a few hundred bytes through @noble/hashes.
 */
function checkKey(entry: unknown, index: number, ctx: KeyContext): KeyVerdict {
  const at = `keys[${index}]`;
  const diagnostics: Diagnostic[] = [];
  const error = (code: string, message: string): void => {
    diagnostics.push({ level: 'error', code, message, at });
  };
  if (!isPlainObject(entry)) {
    error('key-not-object', 'entry is not a JSON object');
    return { key: undefined, diagnostics };
  }

  const privateFound = PRIVATE_MEMBERS.filter((m) => own(entry, m) !== undefined);
  if (privateFound.length > 0) {
    error('private-key-material', `entry carries private member(s) ${privateFound.join(', ')}; a directory publishes public keys only`);
  }

  // Key type, curve and material (RFC 7518 §6, RFC 8037 §2).
  let materialOk = false;
  let typeOk = false;
  const kty = own(entry, 'kty');
  const crv = own(entry, 'crv');
  if (kty !== 'OKP' && kty !== 'EC' && kty !== 'RSA') {
    error(
      'kty-unsupported',
      kty === 'oct' ? 'kty "oct" is a shared secret, which is not allowed (SPEC 1 rule 7)' : 'kty is missing or not one of OKP, EC, RSA',
    );
  } else if (kty === 'RSA') {
    const n = own(entry, 'n');
    const e = own(entry, 'e');
    typeOk = true;
    if (typeof n !== 'string' || n === '' || typeof e !== 'string' || e === '') {
      error('key-material-missing', 'an RSA key needs string members n and e');
    } else {
      const nBytes = base64UrlDecode(n);
      const eBytes = base64UrlDecode(e);
      if (nBytes === undefined || eBytes === undefined || eBytes.length === 0) {
        error('key-material-invalid', 'n or e is not valid base64url');
      } else {
        const bits = rsaModulusBits(nBytes);
        if (bits < RSA_MIN_MODULUS_BITS || bits > RSA_MAX_MODULUS_BITS) {
          error('key-material-invalid', `RSA modulus of ${bits} bits is outside ${RSA_MIN_MODULUS_BITS}–${RSA_MAX_MODULUS_BITS}`);
        } else materialOk = true;
      }
    }
  } else if (typeof crv !== 'string' || !CURVES[kty]!.includes(crv)) {
    error('crv-unsupported', kty === 'OKP' ? 'an OKP key must have crv Ed25519' : 'an EC key must have crv P-256 or P-384');
  } else {
    typeOk = true;
    const names = kty === 'EC' ? ['x', 'y'] : ['x'];
    const values = names.map((m) => own(entry, m));
    if (values.some((v) => typeof v !== 'string' || v === '')) {
      error('key-material-missing', kty === 'EC' ? 'an EC key needs string members x and y' : 'an OKP key needs a string member x');
    } else {
      const size = COORDINATE_BYTES[crv]!;
      if (values.every((v) => base64UrlDecode(v as string)?.length === size)) materialOk = true;
      else error('key-material-invalid', `${names.join(' and ')} must be base64url of ${size} bytes for ${crv}`);
    }
  }

  // use / key_ops (RFC 7517 §4.2, §4.3).
  const use = own(entry, 'use');
  if (use !== undefined && use !== 'sig') error('use-not-sig', 'use is not "sig"');
  const keyOps = own(entry, 'key_ops');
  if (keyOps !== undefined && !(Array.isArray(keyOps) && keyOps.includes('verify'))) {
    error('key-ops-not-verify', 'key_ops does not include "verify"');
  }

  // alg (SPEC 2.1 rule 2): RFC 9421 names; JOSE names mapped with a warning.
  let alg: AlgorithmName | undefined;
  const algValue = own(entry, 'alg');
  if (algValue !== undefined) {
    if (typeof algValue !== 'string') error('alg-unknown', 'alg is not a string');
    else if ((ALGORITHMS as readonly string[]).includes(algValue)) alg = algValue as AlgorithmName;
    else if (algValue === 'hmac-sha256' || algValue.startsWith('HS')) {
      error('alg-not-allowed', 'shared-secret (HMAC) algorithms are not allowed (SPEC 5)');
    } else {
      alg = joseAlgToHttpSig(algValue);
      if (alg === undefined) error('alg-unknown', 'alg is not in the HTTP Signature Algorithms registry (RFC 9421 §6.2)');
      else {
        diagnostics.push({
          level: 'warning',
          code: 'alg-jose-name',
          message: `alg uses the JOSE name ${algValue}; read as ${alg}`,
          at,
        });
      }
    }
    // Only a supported key type can mismatch; an unsupported one already has its diagnostic.
    if (alg !== undefined && typeOk && !jwkFitsAlgorithm(entry as Jwk, alg)) {
      error('alg-key-mismatch', `the key type does not fit alg ${alg}`);
      alg = undefined;
    }
  } else if (materialOk) {
    alg = inferAlgorithm({ kty: kty as string, ...(typeof crv === 'string' ? { crv } : {}) });
  }

  // kid (SPEC 2.2; NOTES: strict at the well-known path only).
  const kid = own(entry, 'kid');
  let thumbprint: string | undefined;
  if (kid !== undefined && typeof kid !== 'string') error('kid-invalid', 'kid is not a string');
  if (materialOk) {
    try {
      thumbprint = jwkThumbprintSync(entry as Jwk);
    } catch {
      error('key-material-invalid', 'cannot compute the JWK thumbprint');
    }
    if (thumbprint !== undefined && typeof kid === 'string' && kid !== thumbprint && ctx.kidMustBeThumbprint) {
      error('kid-not-thumbprint', 'kid is not the JWK SHA-256 thumbprint of the key (RFC 7638, SPEC 2.2)');
    }
  }

  // Validity window (SPEC 2.2).
  const nbf = readTimestamp(entry, 'nbf', at, ctx, diagnostics);
  const exp = readTimestamp(entry, 'exp', at, ctx, diagnostics);
  if (typeof nbf === 'number' && typeof exp === 'number' && nbf > exp) error('validity-inverted', 'nbf is after exp');

  // Delegation members (RFC 7517 §4.6, §4.7; SPEC 5.5), checked for shape only.
  const x5c = own(entry, 'x5c');
  if (
    x5c !== undefined &&
    !(
      Array.isArray(x5c) &&
      x5c.length > 0 &&
      x5c.length <= MAX_X5C_CERTIFICATES &&
      x5c.every((c) => typeof c === 'string' && c !== '' && base64Decode(c) !== undefined)
    )
  ) {
    error('x5c-invalid', `x5c is not a list of 1–${MAX_X5C_CERTIFICATES} base64 DER certificates`);
  }
  const x5u = own(entry, 'x5u');
  if (x5u !== undefined && !(typeof x5u === 'string' && tryParseUrl(x5u)?.protocol === 'https:')) {
    error('x5u-invalid', 'x5u is not an absolute https URL');
  }

  if (diagnostics.some((d) => d.level === 'error') || thumbprint === undefined) return { key: undefined, diagnostics };

  const jwk: Jwk = { kty: kty as string };
  for (const name of PUBLIC_MEMBERS) {
    if (name === 'kty') continue;
    let v: unknown = own(entry, name);
    if (v === undefined) continue;
    if (name === 'alg') v = alg;
    else if (name === 'nbf') v = nbf;
    else if (name === 'exp') v = exp;
    else if (Array.isArray(v)) v = v.slice();
    if (v !== undefined) (jwk as Record<string, unknown>)[name] = v;
  }
  const key: DirectoryKey = {
    jwk,
    thumbprint,
    ...(alg === undefined ? {} : { alg }),
    ...(typeof kid === 'string' ? { kid } : {}),
    ...(typeof nbf === 'number' ? { nbf } : {}),
    ...(typeof exp === 'number' ? { exp } : {}),
    index,
    ...(Array.isArray(x5c) ? { x5c: (x5c as string[]).slice() } : {}),
    ...(typeof x5u === 'string' ? { x5u } : {}),
  };
  return { key, diagnostics };
}

function invalid(message: string, cause?: unknown): BotsigError {
  return new BotsigError('ERR_DIRECTORY_INVALID', message, cause === undefined ? undefined : { cause });
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

function toJson(input: unknown): unknown {
  let text: string;
  if (typeof input === 'string') text = input;
  else if (input instanceof Uint8Array) {
    try {
      text = utf8Decoder.decode(input);
    } catch (error) {
      throw invalid('directory is not UTF-8', error);
    }
  } else return input;
  // RFC 8259 §8.1: a parser MAY ignore a byte order mark.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw invalid('directory is not JSON', error);
  }
}

function endsWithWellKnown(url: string): boolean {
  const parsed = tryParseUrl(url);
  return parsed !== undefined && parsed.pathname.endsWith(WELL_KNOWN_PATH);
}

function checkOptions(options: ParseDirectoryOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) throw new TypeError('parseDirectory options must be an object');
  const { maxKeys, source, url, now } = options;
  if (maxKeys !== undefined && (!Number.isSafeInteger(maxKeys) || maxKeys < 1)) throw new TypeError('maxKeys must be a positive integer');
  if (source !== undefined && source !== 'well-known' && source !== 'jwks_uri' && source !== 'cimd' && source !== 'inline') {
    throw new TypeError('source must be well-known, jwks_uri, cimd or inline');
  }
  if (url !== undefined && typeof url !== 'string') throw new TypeError('url must be a string');
  if (now !== undefined && typeof now !== 'function') throw new TypeError('now must be a function returning milliseconds');
}

/**
 * Parses a key directory (SPEC 2.1, 2.2): a JWK Set, or the earlier shapes (`keys`
 * as a single object, or a bare JWK) with a warning. Each entry is checked
 * against every rule; a failing entry is dropped with one `error` diagnostic per
 * broken rule (`at: 'keys[i]'`), and the others stay usable.
 *
 * Diagnostics: `key-not-object`, `private-key-material`, `kty-unsupported`,
 * `crv-unsupported`, `key-material-missing`, `key-material-invalid`, `use-not-sig`,
 * `key-ops-not-verify`, `alg-unknown`, `alg-not-allowed`, `alg-key-mismatch`,
 * `kid-invalid`, `kid-not-thumbprint`, `timestamp-invalid`, `validity-inverted`,
 * `x5c-invalid`, `x5u-invalid`, `too-many-keys` (errors); `alg-jose-name`,
 * `timestamp-milliseconds` (error when `strictTimestamps`), `key-duplicate`,
 * `keys-object`, `bare-jwk`, `no-keys`, `key-expired`, `key-not-yet-valid` (warnings).
 *
 * @param input JSON text, its UTF-8 bytes, or an already-parsed JSON value.
 * @throws BotsigError `ERR_DIRECTORY_INVALID` when the input is not JSON, not an
 *   object, or has no `keys` array/object and is not a bare JWK.
 * @throws TypeError for invalid options.
 * @example
 * const { keys } = await parseDirectory(body, { url: 'https://agent.example/.well-known/http-message-signatures-directory' });
 * keys[0]?.thumbprint; // the keyid signatures use
 */
export async function parseDirectory(input: string | Uint8Array | unknown, options?: ParseDirectoryOptions): Promise<ParsedDirectory> {
  return parseDirectorySync(input, options);
}

/**
 * The synchronous core of {@link parseDirectory} (same rules, same result).
 *
 * @throws BotsigError `ERR_DIRECTORY_INVALID` (see {@link parseDirectory}).
 */
export function parseDirectorySync(input: string | Uint8Array | unknown, options?: ParseDirectoryOptions): ParsedDirectory {
  checkOptions(options);
  const maxKeys = options?.maxKeys ?? DEFAULT_MAX_KEYS;
  const source = options?.source;
  const ctx: KeyContext = {
    kidMustBeThumbprint:
      source === 'well-known' || source === 'inline' || (source === undefined && (options?.url === undefined || endsWithWellKnown(options.url))),
    strictTimestamps: options?.strictTimestamps === true,
  };

  const doc = toJson(input);
  if (!isPlainObject(doc)) throw invalid('directory is not a JSON object');
  const diagnostics: Diagnostic[] = [];
  let entries: readonly unknown[];
  let shape: DirectoryShape;
  const keysMember = own(doc, 'keys');
  if (Array.isArray(keysMember)) {
    shape = 'jwks';
    entries = keysMember;
  } else if (isPlainObject(keysMember)) {
    shape = 'single-object-keys';
    entries = [keysMember];
    diagnostics.push({ level: 'warning', code: 'keys-object', message: '"keys" is a single object (an early revision); read as a one-key set' });
  } else if (keysMember === undefined && own(doc, 'kty') !== undefined) {
    shape = 'bare-jwk';
    entries = [doc];
    diagnostics.push({ level: 'warning', code: 'bare-jwk', message: 'directory is a single JWK, not a JWK Set; read as a one-key set' });
  } else {
    throw invalid(keysMember === undefined ? 'directory has no "keys" member' : '"keys" is neither an array nor an object');
  }

  if (entries.length > maxKeys) {
    diagnostics.push({
      level: 'error',
      code: 'too-many-keys',
      message: `directory lists ${entries.length} keys; only the first ${maxKeys} are read`,
    });
  }
  const count = Math.min(entries.length, maxKeys);
  if (count === 0) diagnostics.push({ level: 'warning', code: 'no-keys', message: 'directory lists no keys' });

  const nowSeconds = options?.now === undefined ? undefined : Math.floor(options.now() / 1000);
  const keys: DirectoryKey[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const verdict = checkKey(entries[i], i, ctx);
    for (const d of verdict.diagnostics) diagnostics.push(d);
    const key = verdict.key;
    if (key === undefined) continue;
    if (seen.has(key.thumbprint)) {
      diagnostics.push({ level: 'warning', code: 'key-duplicate', message: 'the same key appears earlier in the directory; this entry is ignored', at: `keys[${i}]` });
      continue;
    }
    seen.add(key.thumbprint);
    if (nowSeconds !== undefined) {
      if (key.exp !== undefined && nowSeconds >= key.exp) {
        diagnostics.push({ level: 'warning', code: 'key-expired', message: 'key is past its exp (SPEC 2.2: remove expired keys)', at: `keys[${i}]` });
      } else if (key.nbf !== undefined && nowSeconds < key.nbf) {
        diagnostics.push({ level: 'warning', code: 'key-not-yet-valid', message: 'key is before its nbf', at: `keys[${i}]` });
      }
    }
    keys.push(key);
  }
  return { keys, diagnostics, shape };
}

/**
 * Whether a key may verify at `nowSeconds`: `nbf <= now < exp`, each bound
 * applying only when present (SPEC 2.2, RFC 7519 §4.1.4–4.1.5 semantics).
 * Callers apply their own clock-skew allowance to `nowSeconds`.
 */
export function isKeyUsableAt(key: Pick<DirectoryKey, 'nbf' | 'exp'>, nowSeconds: number): boolean {
  if (typeof key !== 'object' || key === null) throw new TypeError('key must be a DirectoryKey');
  if (typeof nowSeconds !== 'number' || Number.isNaN(nowSeconds)) throw new TypeError('nowSeconds must be a number');
  if (key.nbf !== undefined && nowSeconds < key.nbf) return false;
  if (key.exp !== undefined && nowSeconds >= key.exp) return false;
  return true;
}

/** The essence of a `Content-Type` value: parameters dropped, whitespace trimmed, lowercased. */
function mediaTypeEssence(contentType: string): string {
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** How a response's `Content-Type` relates to a directory (see {@link directoryMediaTypeKind}). */
export type DirectoryMediaTypeKind = 'directory' | 'legacy-directory' | 'jwk-set' | 'json' | 'other';

/**
 * Classifies a `Content-Type` (parameters ignored, case-insensitive): the current
 * directory type, the legacy one without `+json` (SPEC 2.1 rule 5), the JWK Set
 * type (RFC 7517 §8.5), plain `application/json`, or anything else (including absent).
 * A fetcher decides what to accept; plain JSON is common on static hosting.
 */
export function directoryMediaTypeKind(contentType: string | null | undefined): DirectoryMediaTypeKind {
  if (typeof contentType !== 'string') return 'other';
  switch (mediaTypeEssence(contentType)) {
    case 'application/http-message-signatures-directory+json':
      return 'directory';
    case LEGACY_DIRECTORY_MEDIA_TYPE:
      return 'legacy-directory';
    case JWK_SET_MEDIA_TYPE:
      return 'jwk-set';
    case 'application/json':
      return 'json';
    default:
      return 'other';
  }
}

/**
 * True for the directory media type, with or without the `+json` suffix
 * (SPEC 2.1 rule 5). Plain `application/json` and `application/jwk-set+json` are
 * not directory media types; `allowJson` accepts them too (a fetcher that does
 * so should report a warning of its own).
 *
 * @example
 * isDirectoryMediaType('Application/HTTP-Message-Signatures-Directory+JSON; charset=utf-8'); // true
 */
export function isDirectoryMediaType(contentType: string | null, options?: { readonly allowJson?: boolean }): boolean {
  const kind = directoryMediaTypeKind(contentType);
  if (kind === 'directory' || kind === 'legacy-directory') return true;
  return options?.allowJson === true && (kind === 'json' || kind === 'jwk-set');
}

/** A key to publish: a JWK (private or public), or one with a validity window. */
export type DirectoryKeyInput = Jwk | { readonly jwk: Jwk; readonly nbf?: number | undefined; readonly exp?: number | undefined };

export interface BuildDirectoryOptions {
  /** When given, keys already past their `exp` are left out (SPEC 2.2 rotation rule 4). */
  readonly now?: Clock;
}

/** The result of {@link buildDirectory}. */
export interface BuiltDirectory {
  /** The exact bytes to serve (as text): `JSON.stringify` of `document`, no whitespace. */
  readonly json: string;
  readonly document: { keys: Jwk[] };
}

const DIAGNOSTIC_TO_ERROR: Readonly<Record<string, BotsigErrorCode>> = {
  'alg-unknown': 'ERR_ALG_UNKNOWN',
  'alg-not-allowed': 'ERR_ALG_NOT_ALLOWED',
  'alg-key-mismatch': 'ERR_ALG_MISMATCH',
};

const PRIVATE_SET: ReadonlySet<string> = new Set(PRIVATE_MEMBERS);

function checkSeconds(v: unknown, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new TypeError(`${name} must be a non-negative integer number of seconds`);
  return v;
}

/**
 * Builds the directory document a signer serves (SPEC 2.1, 2.2, 4.1). For each key,
 * in the order given: private members are dropped (with `ext`, and `key_ops` when
 * the input was a private key: they describe the private key), every other member is kept in
 * the caller's order, `kid` is set to the thumbprint (in place, or appended), and
 * `nbf`/`exp` from the wrapper replace or extend the JWK's own. A given `alg` (RFC 9421
 * or JOSE name) is checked against the key, then left out where the key type fixes the
 * algorithm (Ed25519, P-256, P-384: jose and WebCrypto refuse the RFC 9421 names, and
 * verifiers infer the algorithm from the key) and written as its RFC 9421 name for RSA
 * (SPEC 2.1 rule 2). An RSA key without `alg` is published without one: it then serves
 * whichever RSA algorithm a signature names. `use` and `alg` are never added (keep what
 * the caller gave). The output is deterministic: the same input gives the same bytes,
 * so a server can digest and ETag them.
 *
 * @throws BotsigError `ERR_KEY_INVALID` when a key would be rejected by
 *   {@link parseDirectory} at the well-known path (or repeats an earlier key);
 *   `ERR_ALG_UNKNOWN` / `ERR_ALG_NOT_ALLOWED` / `ERR_ALG_MISMATCH` for a bad `alg`.
 * @throws TypeError when an entry is not a JWK or a window bound is not integer seconds.
 * @example
 * const { json } = await buildDirectory([{ jwk: privateJwk, nbf: 1735689600, exp: 1767225600 }]);
 */
export async function buildDirectory(keys: ReadonlyArray<DirectoryKeyInput>, options?: BuildDirectoryOptions): Promise<BuiltDirectory> {
  if (!Array.isArray(keys)) throw new TypeError('buildDirectory expects an array of keys');
  const now = options?.now;
  if (now !== undefined && typeof now !== 'function') throw new TypeError('now must be a function returning milliseconds');
  const nowSeconds = now === undefined ? undefined : Math.floor(now() / 1000);
  const ctx: KeyContext = { kidMustBeThumbprint: true, strictTimestamps: true };
  const out: Jwk[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < keys.length; i++) {
    const input: unknown = keys[i];
    if (!isPlainObject(input)) throw new TypeError(`keys[${i}] must be a JWK or { jwk, nbf?, exp? }`);
    let source: Record<string, unknown>;
    let nbf: number | undefined;
    let exp: number | undefined;
    if (own(input, 'kty') === undefined && isPlainObject(own(input, 'jwk'))) {
      source = own(input, 'jwk') as Record<string, unknown>;
      nbf = checkSeconds(own(input, 'nbf'), `keys[${i}].nbf`);
      exp = checkSeconds(own(input, 'exp'), `keys[${i}].exp`);
    } else {
      source = input;
    }
    if (typeof own(source, 'kty') !== 'string') throw new TypeError(`keys[${i}] is not a JWK (no kty)`);

    // A private JWK's key_ops/ext describe the private key (WebCrypto exports
    // key_ops: ["sign"], ext: true); they do not carry over to the published key.
    const fromPrivate = PRIVATE_MEMBERS.some((m) => own(source, m) !== undefined);
    const jwk: Jwk = { kty: source['kty'] as string };
    for (const name of Object.keys(source)) {
      if (PRIVATE_SET.has(name) || name === 'kty' || name === 'ext') continue;
      if (fromPrivate && name === 'key_ops') continue;
      let v = source[name];
      if (name === 'alg' && typeof v === 'string') v = joseAlgToHttpSig(v) ?? v;
      else if (name === 'nbf' && nbf !== undefined) v = nbf;
      else if (name === 'exp' && exp !== undefined) v = exp;
      else if (name === 'kid') v = '';
      jwk[name] = v;
    }
    if (nbf !== undefined && jwk.nbf === undefined) jwk.nbf = nbf;
    if (exp !== undefined && jwk.exp === undefined) jwk.exp = exp;

    let thumbprint: string;
    try {
      thumbprint = jwkThumbprintSync(jwk);
    } catch (error) {
      throw new BotsigError('ERR_KEY_INVALID', `keys[${i}]: the key material is missing or invalid`, { cause: error });
    }
    jwk.kid = thumbprint;

    const verdict = checkKey(jwk, i, ctx);
    const firstError = verdict.diagnostics.find((d) => d.level === 'error');
    if (firstError !== undefined) {
      throw new BotsigError(DIAGNOSTIC_TO_ERROR[firstError.code] ?? 'ERR_KEY_INVALID', `keys[${i}]: ${firstError.message}`);
    }
    if (seen.has(thumbprint)) throw new BotsigError('ERR_KEY_INVALID', `keys[${i}] is the same key as an earlier entry`);
    seen.add(thumbprint);
    // Checked above; redundant (and refused by jose and WebCrypto) where the key type fixes it.
    if (jwk.alg !== undefined && inferAlgorithm({ kty: jwk.kty, ...(typeof jwk.crv === 'string' ? { crv: jwk.crv } : {}) }) !== undefined) delete jwk.alg;
    if (nowSeconds !== undefined && typeof jwk.exp === 'number' && nowSeconds >= jwk.exp) continue;
    out.push(jwk);
  }
  const document = { keys: out };
  return { json: JSON.stringify(document), document };
}
