/**
 * Parsing a key directory (SPEC 2.1, 2.2): a JWK Set, or the earlier shapes
 * with a warning, each entry checked against the rules of key-rules.ts; a
 * failing entry is dropped with its diagnostics and the others stay usable.
 */
import type { Diagnostic } from '../../core/diagnostics';
import { BotsigError } from '../../core/errors';
import type { Clock } from '../../core/time';
import { normalizeUrl, tryParseUrl } from '../../core/url';
import { WELL_KNOWN_PATH } from '../../profile/signature-agent/types';
import { checkKey, isPlainObject, own } from './key-rules';
import type { DirectoryKey, KeyContext } from './key-rules';

/**
 * Default cap on the entries of a directory that are examined. A directory holds
 * the keys in active use (SPEC 2.1 rule 4), a handful in practice; 64 leaves room
 * for generous rotation while bounding the work (one hash per entry) an attacker
 * can cause.
 */
export const DEFAULT_MAX_KEYS = 64;

/** Where a directory document came from; decides whether `kid` must be the thumbprint. */
export type DirectorySource = 'well-known' | 'jwks_uri' | 'cimd' | 'inline';

/** Which shape the document had. */
export type DirectoryShape = 'jwks' | 'single-object-keys' | 'bare-jwk';

/** The result of {@link parseDirectory}. */
export interface ParsedDirectory {
  readonly keys: DirectoryKey[];
  readonly diagnostics: Diagnostic[];
  readonly shape: DirectoryShape;
}

export interface ParseDirectoryOptions {
  /** Where the document was fetched from. The well-known URI (`/.well-known/http-message-signatures-directory`) makes `kid` checks strict when `source` is not given. */
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

function invalid(message: string, cause?: unknown): BotsigError {
  return new BotsigError('ERR_DIRECTORY_INVALID', message, cause === undefined ? undefined : { cause });
}

const utf8Decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

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

/**
 * Whether `url` is the well-known URI of a key directory: an http(s) URL whose path is
 * exactly `/.well-known/http-message-signatures-directory` (RFC 8615 reserves it at the
 * root only; dot-segments resolved, any query ignored), compared as the verifier names
 * agents (`normalizeUrl`: `%2E` is `.`), so a URL identified as the well-known one is held
 * to its rules. There `kid` must be the thumbprint (draft-ietf-webbotauth-httpsig-protocol-01);
 * a JWK Set at any other URL labels `kid` freely.
 */
export function isWellKnownUrl(url: string): boolean {
  const parsed = tryParseUrl(url);
  if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return false;
  return new URL(normalizeUrl(parsed.href)).pathname === WELL_KNOWN_PATH;
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
export async function parseDirectory(input: unknown, options?: ParseDirectoryOptions): Promise<ParsedDirectory> {
  return parseDirectorySync(input, options);
}

/**
 * The synchronous core of {@link parseDirectory} (same rules, same result).
 *
 * @throws BotsigError `ERR_DIRECTORY_INVALID` (see {@link parseDirectory}).
 */
export function parseDirectorySync(input: unknown, options?: ParseDirectoryOptions): ParsedDirectory {
  checkOptions(options);
  const maxKeys = options?.maxKeys ?? DEFAULT_MAX_KEYS;
  const source = options?.source;
  const ctx: KeyContext = {
    kidMustBeThumbprint:
      source === 'well-known' || source === 'inline' || (source === undefined && (options?.url === undefined || isWellKnownUrl(options.url))),
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
      diagnostics.push({
        level: 'warning',
        code: 'key-duplicate',
        message: 'the same key appears earlier in the directory; this entry is ignored',
        at: `keys[${i}]`,
      });
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
