import { isBotsigError } from '../../src/index';
import type { AlgorithmName, CryptoProvider, Jwk } from '../../src/index';

/** Runs `fn`; passes when it returns/resolves, or fails with a BotsigError (any code). */
export async function onlyBotsigErrors(fn: () => unknown): Promise<void> {
  try {
    await fn();
  } catch (error) {
    if (!isBotsigError(error)) throw new Error(`expected only BotsigError, got ${String(error)}`, { cause: error });
  }
}

/** A provider that counts imports and delegates to another one. */
export function countingProvider(inner: CryptoProvider, name = `counting-${inner.name}`): CryptoProvider & { imports: { verify: number; sign: number } } {
  const imports = { verify: 0, sign: 0 };
  return {
    name,
    ...(inner.synchronous === undefined ? {} : { synchronous: inner.synchronous }),
    imports,
    importVerify(jwk: Jwk, alg: AlgorithmName) {
      imports.verify++;
      return inner.importVerify(jwk, alg);
    },
    importSign(jwk: Jwk, alg: AlgorithmName) {
      imports.sign++;
      return inner.importSign(jwk, alg);
    },
  };
}

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

export function b64urlToBytes(s: string): Uint8Array {
  const std = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(std + '='.repeat((4 - (std.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

export function b64ToBytes(s: string): Uint8Array {
  const bin = atob(s);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The value of a one-member Signature field (`label=:base64:`), decoded. */
export function signatureBytes(field: string): Uint8Array {
  const start = field.indexOf(':');
  return b64ToBytes(field.slice(start + 1, field.lastIndexOf(':')));
}

const isEd25519Param = (algorithm: unknown): boolean =>
  (typeof algorithm === 'string' ? algorithm : (algorithm as { name?: unknown } | null)?.name) === 'Ed25519';

/**
 * Runs `fn` in a runtime whose WebCrypto has no Ed25519, as browsers before Chrome 137,
 * Firefox 129 and Safari 17: `importKey`, `generateKey`, `sign` and `verify` refuse the
 * algorithm name with a `NotSupportedError`, as those browsers do; everything else is the real
 * WebCrypto.
 */
export async function withoutWebCryptoEd25519<T>(fn: () => Promise<T>): Promise<T> {
  const subtle = globalThis.crypto.subtle;
  const refuse = () => Promise.reject(new DOMException('Unrecognized algorithm name', 'NotSupportedError'));
  const saved = { importKey: subtle.importKey, generateKey: subtle.generateKey, sign: subtle.sign, verify: subtle.verify };
  const patch = <K extends keyof typeof saved>(name: K, index: number) => {
    const original = saved[name] as (...args: unknown[]) => unknown;
    Object.defineProperty(subtle, name, {
      configurable: true,
      writable: true,
      value: (...args: unknown[]) => (isEd25519Param(args[index]) ? refuse() : original.apply(subtle, args)),
    });
  };
  patch('importKey', 2);
  patch('generateKey', 0);
  patch('sign', 0);
  patch('verify', 0);
  try {
    return await fn();
  } finally {
    // The methods live on SubtleCrypto.prototype: removing the own properties restores them.
    for (const name of Object.keys(saved)) delete (subtle as unknown as Record<string, unknown>)[name];
  }
}
