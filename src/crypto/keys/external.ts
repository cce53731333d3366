/**
 * Signing keys whose private half never leaves its signer (a KMS, an HSM through
 * PKCS#11, a non-extractable WebCrypto key): a public JWK plus an asynchronous
 * `sign(bytes)` function become a {@link SigningKey}. The public JWK is checked like any
 * other (algorithm, key type, members), its RFC 7638 thumbprint is the `keyid`, and the
 * signer's output is normalised to the RFC 9421 form and checked against that public key.
 *
 * ECDSA (RFC 9421 §3.3.4, §3.3.5) wants the raw `r || s` form, each integer left-padded to
 * the curve size (64 bytes for P-256, 96 for P-384). KMS and PKCS#11 signers answer either
 * that form or an ASN.1 DER `SEQUENCE { INTEGER r, INTEGER s }`; both are accepted
 * (`signatureFormat`), and DER is converted.
 */
import { BotsigError, isBotsigError } from '../../core/errors';
import { getCryptoProvider } from '../provider';
import { algorithmForJwk, keyShape } from '../registry';
import { materialThumbprint } from '../thumbprint';
import type { AlgorithmName, CryptoProvider, Jwk, SigningKey } from '../types';
import { checkMaterial, invalid, providerCall, publicJwkOf, SELF_TEST_MESSAGE } from './material';
import { makeSigningKey, toPlainBytes } from './objects';

/** How an ECDSA signer encodes its signatures. */
export type EcdsaSignatureFormat = 'raw' | 'der' | 'auto';

/** Options of {@link externalSigningKey}. */
export interface ExternalSigningKeyOptions {
  /** The public key of the signer as a JWK: public members only (`d` and the other private members are refused). */
  readonly publicJwk: Jwk;
  /**
   * Signs the bytes given (the RFC 9421 signature base as UTF-8), with the hash the
   * algorithm names applied by the signer: SHA-256 for `ecdsa-p256-sha256`, SHA-512 with
   * PSS and a 64-byte salt for `rsa-pss-sha512`, pure Ed25519 (no pre-hash) for `ed25519`.
   */
  readonly sign: (data: Uint8Array) => Promise<Uint8Array> | Uint8Array;
  /** The algorithm; required for an RSA key whose JWK names none (`rsa-pss-sha512`). Checked against the JWK. */
  readonly alg?: AlgorithmName;
  /**
   * ECDSA only: `raw` (`r || s`, as WebCrypto and Vault's `jws` marshaling give),
   * `der` (ASN.1, as AWS KMS, Google Cloud KMS and PKCS#11 wrappers often give), or
   * `auto` (default): raw when the length is exactly twice the curve size, DER otherwise;
   * with `verify` on, a length-ambiguous signature is taken in whichever form verifies.
   */
  readonly signatureFormat?: EcdsaSignatureFormat;
  /**
   * Check every signature against `publicJwk` before it is used (default `true`). Catches a
   * signer that was pointed at another key (an alias moved to a new KMS key version) before
   * origins see signatures that cannot verify. Costs one local verification per signature.
   */
  readonly verify?: boolean;
  /**
   * Sign and verify a probe message once when the key is made (default `true`), so that a
   * public JWK that does not belong to the signer is refused at start-up. Costs one call to the signer.
   */
  readonly probe?: boolean;
  /** Longest wait for one call to `sign`, in milliseconds (default 30 000); past it the signature fails. */
  readonly timeoutMs?: number;
  /** Backend for the local verification (default: {@link getCryptoProvider}). */
  readonly provider?: CryptoProvider;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 600_000;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * Makes a {@link SigningKey} from a public JWK and a signing function that holds the
 * private key elsewhere (KMS, HSM, `CryptoKey` with `extractable: false`). The key's
 * `thumbprint` (the `keyid` botsig signs with) is the RFC 7638 thumbprint of the public
 * JWK; a `kid` member that differs from it is refused, because Web Bot Auth verifiers look
 * keys up by thumbprint. The key works everywhere a `SigningKey` does (`signRequest`,
 * directory response signatures); it has no `signSync`.
 *
 * @throws BotsigError `ERR_KEY_INVALID` (private members present, bad members, a `kid` that
 *   is not the thumbprint, a probe that fails or does not verify), `ERR_ALG_MISMATCH`,
 *   `ERR_ALG_UNKNOWN` (an RSA JWK with neither `alg` nor `options.alg`), `ERR_ALG_NOT_ALLOWED`.
 *   The key's `sign` rejects with `ERR_CRYPTO_UNSUPPORTED` when the signer fails, times out
 *   or returns a signature that is malformed or (with `verify`) does not verify.
 * @throws TypeError for malformed options.
 * @example
 * const key = await externalSigningKey({
 *   publicJwk, // { kty: 'EC', crv: 'P-256', x, y }
 *   sign: async (data) => kmsSign(data), // DER or raw r||s
 * });
 * await signRequest(request, { key, signatureAgent: 'https://agent.example' });
 */
export async function externalSigningKey(options: ExternalSigningKeyOptions): Promise<SigningKey> {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const { publicJwk, sign } = options;
  if (typeof publicJwk !== 'object' || publicJwk === null || Array.isArray(publicJwk)) throw new TypeError('options.publicJwk must be a JWK object');
  if (typeof sign !== 'function') throw new TypeError('options.sign must be a function');
  const format = options.signatureFormat ?? 'auto';
  if (format !== 'raw' && format !== 'der' && format !== 'auto') throw new TypeError("options.signatureFormat must be 'raw', 'der' or 'auto'");
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)
    throw new TypeError(`options.timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  const verifyEach = options.verify ?? true;
  const probe = options.probe ?? true;
  if (typeof verifyEach !== 'boolean' || typeof probe !== 'boolean') throw new TypeError('options.verify and options.probe must be booleans');

  if (typeof publicJwk.kty !== 'string') throw invalid('JWK member "kty" is missing');
  for (const name of PRIVATE_MEMBERS) {
    if (publicJwk[name] !== undefined) throw invalid(`an external key takes the public JWK only (member "${name}" is private)`);
  }
  const alg = algorithmForJwk(publicJwk, options.alg);
  const { publicMaterial, signatureBytes } = checkMaterial(publicJwk, alg, false);
  const thumbprint = await materialThumbprint(publicMaterial);
  if (publicJwk.kid !== undefined && publicJwk.kid !== thumbprint) {
    throw invalid('the JWK "kid" is not its RFC 7638 thumbprint; Web Bot Auth names keys by thumbprint (remove "kid" or set it to the thumbprint)');
  }
  const provider = options.provider ?? getCryptoProvider();
  const verify = await providerCall(alg, () => provider.importVerify(publicMaterial, alg));
  const ecSize = keyShape(alg).kty === 'EC' ? signatureBytes / 2 : undefined;

  const checks = async (data: Uint8Array, signature: Uint8Array): Promise<boolean> => {
    try {
      return (await verify(data, signature)) === true;
    } catch {
      return false;
    }
  };

  const fn = async (data: Uint8Array): Promise<Uint8Array> => {
    const output = await withTimeout(() => sign(data), timeoutMs, alg);
    if (!(output instanceof Uint8Array)) throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `the external ${alg} signer returned no bytes`);
    const candidates = ecSize === undefined ? [exactLength(output, signatureBytes, alg)] : ecdsaCandidates(output, ecSize, format, alg);
    if (!verifyEach) return candidates[0]!;
    for (const candidate of candidates) {
      if (await checks(data, candidate)) return candidate;
    }
    throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `the external ${alg} signature does not verify with the public JWK (is the signer using another key?)`);
  };

  if (probe) {
    let signature: Uint8Array;
    try {
      signature = await fn(SELF_TEST_MESSAGE);
    } catch (cause) {
      throw invalid('the external signer could not sign a probe message', cause);
    }
    if (!verifyEach && !(await checks(SELF_TEST_MESSAGE, signature))) throw invalid('the external signer does not sign with the key of the public JWK');
  }
  const published = publicJwkOf({ ...publicJwk, kid: thumbprint });
  return makeSigningKey(alg, thumbprint, published, fn, false);
}

async function withTimeout(call: () => Promise<Uint8Array> | Uint8Array, timeoutMs: number, alg: AlgorithmName): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BotsigError('ERR_CRYPTO_UNSUPPORTED', `the external ${alg} signer did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(call), expired]);
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `the external ${alg} signer failed`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

function exactLength(signature: Uint8Array, length: number, alg: AlgorithmName): Uint8Array {
  if (signature.length !== length)
    throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `an ${alg} signature is ${length} bytes, the external signer gave ${signature.length}`);
  return toPlainBytes(signature).slice();
}

/** The raw `r || s` forms an ECDSA signer's output may stand for, most likely first. */
function ecdsaCandidates(signature: Uint8Array, size: number, format: EcdsaSignatureFormat, alg: AlgorithmName): Uint8Array[] {
  const rawLength = signature.length === size * 2;
  if (format === 'raw') return [exactLength(signature, size * 2, alg)];
  const der = ecdsaDerToRaw(signature, size);
  if (format === 'der') {
    if (der === undefined) throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `the external ${alg} signer did not return a DER ECDSA signature`);
    return [der];
  }
  const out: Uint8Array[] = [];
  if (rawLength) out.push(toPlainBytes(signature).slice());
  if (der !== undefined) out.push(der);
  if (out.length === 0) throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `the external ${alg} signature is neither raw r||s (${size * 2} bytes) nor DER`);
  return out;
}

/**
 * Converts a DER ECDSA signature (`SEQUENCE { INTEGER r, INTEGER s }`, RFC 3279 §2.2.3)
 * to the raw `r || s` form of RFC 9421, each integer left-padded to `size` bytes.
 * Strict DER: definite short or one-byte long lengths, minimal positive non-zero
 * integers, nothing after the sequence. `undefined` when `der` is not such a signature
 * or an integer does not fit `size` bytes.
 */
export function ecdsaDerToRaw(der: Uint8Array, size: number): Uint8Array | undefined {
  if (!(der instanceof Uint8Array) || !Number.isInteger(size) || size < 1 || size > 66) return undefined;
  let at = 0;
  const length = (): number | undefined => {
    const first = der[at++];
    if (first === undefined) return undefined;
    if (first < 0x80) return first;
    if (first !== 0x81) return undefined; // ECDSA signatures up to P-521 need at most one length byte
    const value = der[at++];
    return value === undefined || value < 0x80 ? undefined : value;
  };
  if (der[at++] !== 0x30) return undefined;
  const total = length();
  if (total === undefined || at + total !== der.length) return undefined;
  const out = new Uint8Array(size * 2);
  for (let i = 0; i < 2; i++) {
    if (der[at++] !== 0x02) return undefined;
    const n = length();
    if (n === undefined || n === 0 || at + n > der.length) return undefined;
    let start = at;
    const end = at + n;
    if (der[start]! & 0x80) return undefined; // negative
    if (der[start] === 0) {
      // A leading zero only before a byte with the high bit set: anything else is zero or not minimal.
      if (n === 1 || (der[start + 1]! & 0x80) === 0) return undefined;
      start++;
    }
    const digits = end - start;
    if (digits > size) return undefined;
    out.set(der.subarray(start, end), (i + 1) * size - digits);
    at = end;
  }
  return at === der.length ? out : undefined;
}
