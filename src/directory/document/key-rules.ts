/**
 * The rules one directory entry must meet (SPEC 2.1, 2.2; RFC 7517, 7518,
 * 8037), shared by parsing and building: public key material of a supported
 * type and size, `use`/`key_ops` for verification, an allowed `alg`, `kid`
 * equal to the thumbprint where required, a sane validity window, and
 * well-formed delegation members. One diagnostic per broken rule.
 */
import { base64Decode, base64UrlDecode } from '../../core/base64';
import type { Diagnostic } from '../../core/diagnostics';
import { tryParseUrl } from '../../core/url';
import { ALGORITHMS, inferAlgorithm, joseAlgToHttpSig, jwkFitsAlgorithm, RSA_MAX_MODULUS_BITS, RSA_MIN_MODULUS_BITS } from '../../crypto/registry';
import { jwkThumbprintSync } from '../../crypto/thumbprint';
import type { AlgorithmName, Jwk } from '../../crypto/types';

// Far above any real certificate chain; keeps the per-key work bounded.
const MAX_X5C_CERTIFICATES = 16;

// Timestamps above this are read as milliseconds (NOTES "Keys and identity"):
// 10^11 seconds is the year 5138, 10^11 milliseconds is March 1973.
const MILLISECONDS_THRESHOLD = 1e11;

// Private JWK members (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2). A directory never carries them.
export const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** The public members kept on a parsed key, in this order. */
const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'alg', 'kid', 'use', 'key_ops', 'nbf', 'exp', 'x5c', 'x5u'] as const;

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

/** How strict the rules are: `kid` as the thumbprint (well-known, inline, building), timestamps in seconds only. */
export interface KeyContext {
  readonly kidMustBeThumbprint: boolean;
  readonly strictTimestamps: boolean;
}

type KeyVerdict = { key: DirectoryKey; diagnostics: Diagnostic[] } | { key: undefined; diagnostics: Diagnostic[] };

export function own(o: object, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, name) ? (o as Record<string, unknown>)[name] : undefined;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
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
function readTimestamp(o: Record<string, unknown>, name: 'nbf' | 'exp', at: string, ctx: KeyContext, diagnostics: Diagnostic[]): number | undefined | null {
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
export function checkKey(entry: unknown, index: number, ctx: KeyContext): KeyVerdict {
  const at = `keys[${index}]`;
  const diagnostics: Diagnostic[] = [];
  const error = (code: Diagnostic['code'], message: string): void => {
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
