/**
 * Building the directory document a signer serves (SPEC 2.1, 2.2, 4.1):
 * public members only, `kid` set to the thumbprint, validity windows applied,
 * every key held to the parser's rules, deterministic output.
 */
import { BotsigError, type BotsigErrorCode } from '../../core/errors';
import type { Clock } from '../../core/time';
import { inferAlgorithm, joseAlgToHttpSig } from '../../crypto/registry';
import { jwkThumbprintSync } from '../../crypto/thumbprint';
import type { Jwk } from '../../crypto/types';
import { checkKey, isPlainObject, own, PRIVATE_MEMBERS } from './key-rules';
import type { KeyContext } from './key-rules';

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
      // An own "__proto__" member (JSON.parse makes one) stays a member: assigning it would set
      // the prototype, and jwk.nbf/jwk.exp below would read the inherited values.
      Object.defineProperty(jwk, name, { value: v, enumerable: true, writable: true, configurable: true });
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
