/**
 * Key files on Node: PEM (PKCS #8, SPKI, and the older PKCS #1 / SEC 1 forms) and
 * KeyObjects, mapped onto the same SigningKey / VerifyingKey shapes as JWKs by
 * exporting them to JWK with node:crypto.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { BotsigError, isBotsigError } from '../core/errors';
import { importSigningKey } from '../crypto/keys/signing';
import { importVerifyingKey } from '../crypto/keys/verifying';
import type { AlgorithmName, CryptoProvider, Jwk, SigningKey, VerifyingKey } from '../crypto/types';
import { nodeCryptoProvider } from './crypto-provider';

/** Options for PEM and KeyObject imports. */
export interface NodeKeyOptions {
  /**
   * Required to sign with an RSA key (except RSASSA-PSS keys, which imply
   * `rsa-pss-sha512`). A public RSA key imported without it serves whichever RSA
   * algorithm a signature names (see `keyForAlgorithm`).
   */
  alg?: AlgorithmName;
  /** Default: {@link nodeCryptoProvider}. */
  provider?: CryptoProvider;
  /** For encrypted PKCS #8 PEM. */
  passphrase?: string;
}

function invalid(message: string, cause?: unknown): BotsigError {
  return new BotsigError('ERR_KEY_INVALID', message, cause === undefined ? undefined : { cause });
}

// Minimal DER reader: enough to unwrap an RSASSA-PSS key into the PKCS #1 structure
// that node can export to JWK (node refuses JWK export for 'rsa-pss' KeyObjects).
function readTlv(der: Uint8Array, offset: number, tag: number): { start: number; end: number } {
  if (offset + 2 > der.length || der[offset] !== tag) throw invalid('unexpected DER structure in RSASSA-PSS key');
  let length = der[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || start + count > der.length) throw invalid('unexpected DER length in RSASSA-PSS key');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + der[start + i]!;
    start += count;
  }
  const end = start + length;
  if (end > der.length) throw invalid('truncated DER in RSASSA-PSS key');
  return { start, end };
}

function rsaPssToRsa(key: KeyObject): KeyObject {
  try {
    if (key.type === 'private') {
      const der = new Uint8Array(key.export({ format: 'der', type: 'pkcs8' }));
      const outer = readTlv(der, 0, 0x30);
      const version = readTlv(der, outer.start, 0x02);
      const algorithm = readTlv(der, version.end, 0x30);
      const inner = readTlv(der, algorithm.end, 0x04);
      return createPrivateKey({ key: Buffer.from(der.subarray(inner.start, inner.end)), format: 'der', type: 'pkcs1' });
    }
    const der = new Uint8Array(key.export({ format: 'der', type: 'spki' }));
    const outer = readTlv(der, 0, 0x30);
    const algorithm = readTlv(der, outer.start, 0x30);
    const bits = readTlv(der, algorithm.end, 0x03);
    if (der[bits.start] !== 0) throw invalid('unexpected BIT STRING padding in RSASSA-PSS key');
    return createPublicKey({ key: Buffer.from(der.subarray(bits.start + 1, bits.end)), format: 'der', type: 'pkcs1' });
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw invalid('the RSASSA-PSS key could not be read', error);
  }
}

/**
 * Exports a KeyObject as a JWK (private members included for private keys).
 * RSASSA-PSS keys (OID 1.2.840.113549.1.1.10) come out as plain RSA JWKs.
 *
 * @throws BotsigError `ERR_ALG_NOT_ALLOWED` for secret keys, `ERR_KEY_INVALID`
 *   for key types JWK cannot express.
 */
export function keyObjectToJwk(key: KeyObject): Jwk {
  if (key.type === 'secret') throw new BotsigError('ERR_ALG_NOT_ALLOWED', 'symmetric (shared-secret) keys are not allowed');
  const source = key.asymmetricKeyType === 'rsa-pss' ? rsaPssToRsa(key) : key;
  try {
    return source.export({ format: 'jwk' }) as Jwk;
  } catch (error) {
    throw invalid('this key type cannot be expressed as a JWK', error);
  }
}

// RSASSA-PSS keys name their algorithm family; rsa-pss-sha512 is the only PSS entry in RFC 9421 §6.2.2.
function defaultAlg(key: KeyObject, alg: AlgorithmName | undefined): AlgorithmName | undefined {
  if (key.asymmetricKeyType !== 'rsa-pss') return alg;
  const details = key.asymmetricKeyDetails;
  const restricted =
    (details?.hashAlgorithm !== undefined && details.hashAlgorithm !== 'sha512') ||
    (details?.mgf1HashAlgorithm !== undefined && details.mgf1HashAlgorithm !== 'sha512') ||
    (details?.saltLength !== undefined && details.saltLength > 64);
  if (restricted || (alg !== undefined && alg !== 'rsa-pss-sha512')) {
    throw new BotsigError('ERR_ALG_MISMATCH', 'the RSASSA-PSS key parameters do not allow rsa-pss-sha512');
  }
  return 'rsa-pss-sha512';
}

function importOptions(key: KeyObject, options: NodeKeyOptions | undefined): { alg?: AlgorithmName; provider: CryptoProvider } {
  const alg = defaultAlg(key, options?.alg);
  const provider = options?.provider ?? nodeCryptoProvider;
  return alg === undefined ? { provider } : { alg, provider };
}

/**
 * Imports a KeyObject: private keys give a {@link SigningKey}, public keys a
 * {@link VerifyingKey}.
 *
 * @throws BotsigError as {@link importSigningKey} / {@link importVerifyingKey},
 *   and `ERR_ALG_NOT_ALLOWED` for secret keys.
 * @throws TypeError when `key` is not a KeyObject.
 */
export async function fromKeyObject(key: KeyObject, options?: NodeKeyOptions): Promise<SigningKey | VerifyingKey> {
  if (typeof key !== 'object' || key === null || typeof (key as KeyObject).export !== 'function') {
    throw new TypeError('key must be a node:crypto KeyObject');
  }
  const jwk = keyObjectToJwk(key);
  const opts = importOptions(key, options);
  return key.type === 'private' ? importSigningKey(jwk, opts) : importVerifyingKey(jwk, opts);
}

function parsePem(pem: string, options: NodeKeyOptions | undefined, wantPrivate: boolean): KeyObject {
  try {
    if (wantPrivate) {
      return options?.passphrase === undefined
        ? createPrivateKey({ key: pem, format: 'pem' })
        : createPrivateKey({ key: pem, format: 'pem', passphrase: options.passphrase });
    }
    return createPublicKey({ key: pem, format: 'pem' });
  } catch (error) {
    throw invalid(wantPrivate ? 'the PEM does not hold a readable private key' : 'the PEM does not hold a readable public key or certificate', error);
  }
}

function checkPem(pem: unknown): asserts pem is string {
  if (typeof pem !== 'string') throw new TypeError('pem must be a string');
}

/**
 * Imports a private key from PEM (PKCS #8 `PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`
 * with `passphrase`, PKCS #1 `RSA PRIVATE KEY`, SEC 1 `EC PRIVATE KEY`).
 *
 * @throws BotsigError `ERR_KEY_INVALID` when the PEM cannot be read, and as
 *   {@link importSigningKey}.
 * @example
 * const key = await importPrivatePem(await readFile('agent.pem', 'utf8'));
 */
export async function importPrivatePem(pem: string, options?: NodeKeyOptions): Promise<SigningKey> {
  checkPem(pem);
  const key = parsePem(pem, options, true);
  return importSigningKey(keyObjectToJwk(key), importOptions(key, options));
}

/**
 * Imports a public key from PEM (SPKI `PUBLIC KEY`, PKCS #1 `RSA PUBLIC KEY`, or
 * the subject key of a `CERTIFICATE`).
 *
 * @throws BotsigError `ERR_KEY_INVALID` when the PEM cannot be read, and as
 *   {@link importVerifyingKey}.
 */
export async function importPublicPem(pem: string, options?: NodeKeyOptions): Promise<VerifyingKey> {
  checkPem(pem);
  const key = parsePem(pem, options, false);
  return importVerifyingKey(keyObjectToJwk(key), importOptions(key, options));
}

/**
 * Imports a PEM key: a private key (any `… PRIVATE KEY` block) gives a
 * {@link SigningKey}, anything else a {@link VerifyingKey}.
 *
 * @throws BotsigError `ERR_KEY_INVALID` when the PEM cannot be read, and as
 *   {@link importSigningKey} / {@link importVerifyingKey}.
 * @throws TypeError when `pem` is not a string.
 * @example
 * const signer = await importPem(privatePem);          // SigningKey
 * const verifier = await importPem(publicPem);         // VerifyingKey
 */
export async function importPem(pem: string, options?: NodeKeyOptions): Promise<SigningKey | VerifyingKey> {
  checkPem(pem);
  return pem.includes('PRIVATE KEY-----') ? importPrivatePem(pem, options) : importPublicPem(pem, options);
}
