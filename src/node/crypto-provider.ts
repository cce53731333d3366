/**
 * The node:crypto provider: one-shot `crypto.sign`/`crypto.verify` over KeyObjects
 * created once per key. The fastest path on Node; byte-compatible with the
 * WebCrypto provider (raw r‖s ECDSA, PSS with a 64-byte salt).
 */
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { BotsigError, isBotsigError } from '../core/errors';
import { algorithmSpec, type NodeSignatureOptions } from '../crypto/registry';
import { setCryptoProvider } from '../crypto/provider';
import type { AlgorithmName, CryptoProvider, Jwk } from '../crypto/types';

type NodeCrypto = typeof import('node:crypto');
let nodeCrypto: NodeCrypto | undefined;

/**
 * `node:crypto`, loaded on first use rather than when botsig is imported: loading it
 * is a few milliseconds of a cold start that a process which never signs or verifies
 * should not pay. `process.getBuiltinModule` (Node 20.16+) returns it synchronously.
 */
function crypto(): NodeCrypto {
  if (nodeCrypto === undefined) {
    const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
    if (typeof load !== 'function')
      throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', 'the node:crypto provider needs Node 20.16 or later (process.getBuiltinModule)');
    nodeCrypto = load('node:crypto') as NodeCrypto;
  }
  return nodeCrypto;
}

type KeyArgument = KeyObject | { key: KeyObject; dsaEncoding?: 'ieee-p1363'; padding?: number; saltLength?: number };

// Built once per key so the hot path passes a ready object to crypto.verify.
function keyArgument(key: KeyObject, options: NodeSignatureOptions): KeyArgument {
  if (options.dsaEncoding === undefined && options.padding === undefined) return key;
  const arg: { key: KeyObject; dsaEncoding?: 'ieee-p1363'; padding?: number; saltLength?: number } = { key };
  if (options.dsaEncoding !== undefined) arg.dsaEncoding = options.dsaEncoding;
  if (options.padding !== undefined) arg.padding = options.padding === 'pss' ? crypto().constants.RSA_PKCS1_PSS_PADDING : crypto().constants.RSA_PKCS1_PADDING;
  if (options.saltLength !== undefined) arg.saltLength = options.saltLength;
  return arg;
}

function rejected(error: unknown, alg: AlgorithmName): BotsigError {
  if (isBotsigError(error)) return error;
  return new BotsigError('ERR_KEY_INVALID', `node:crypto rejected the key material for ${alg}`, { cause: error });
}

/** A verify function over an existing public KeyObject. */
export function nodeVerifier(key: KeyObject, alg: AlgorithmName): (data: Uint8Array, signature: Uint8Array) => boolean {
  const options = algorithmSpec(alg).node;
  const arg = keyArgument(key, options);
  const hash = options.hash;
  const verify = crypto().verify;
  return (data, signature) => verify(hash, data, arg, signature);
}

/** A sign function over an existing private KeyObject. */
export function nodeSigner(key: KeyObject, alg: AlgorithmName): (data: Uint8Array) => Uint8Array {
  const options = algorithmSpec(alg).node;
  const arg = keyArgument(key, options);
  const hash = options.hash;
  const sign = crypto().sign;
  return (data) => {
    const out = sign(hash, data, arg);
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  };
}

/**
 * {@link CryptoProvider} over node:crypto. Install it as the default with
 * {@link installNodeCryptoProvider} (the `botsig/node` entry point does).
 */
export const nodeCryptoProvider: CryptoProvider = /* @__PURE__ */ Object.freeze({
  name: 'node',
  synchronous: true,
  async importVerify(jwk: Jwk, alg: AlgorithmName) {
    let key: KeyObject;
    try {
      key = crypto().createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch (error) {
      throw rejected(error, alg);
    }
    return nodeVerifier(key, alg);
  },
  async importSign(jwk: Jwk, alg: AlgorithmName) {
    let key: KeyObject;
    try {
      key = crypto().createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch (error) {
      throw rejected(error, alg);
    }
    return nodeSigner(key, alg);
  },
});

/**
 * Makes {@link nodeCryptoProvider} the process-wide default for key imports.
 *
 * @example
 * installNodeCryptoProvider();
 * const key = await importVerifyingKey(jwk); // verifies through node:crypto
 */
export function installNodeCryptoProvider(): void {
  setCryptoProvider(nodeCryptoProvider);
}
