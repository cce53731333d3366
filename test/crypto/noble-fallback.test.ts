import { afterEach, describe, expect, it } from 'vitest';
import { isBotsigError, generateKeyPair, getCryptoProvider, setCryptoProvider, signRequest, verifyRequest, webCryptoProvider } from '../../src/index';
import type { CryptoProvider } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { nobleEd25519Provider, withNobleFallback } from '../../src/noble';
import * as nobleEntry from '../../src/noble';
import { enc, withoutWebCryptoEd25519 } from './helpers';
import { expectCode } from '../helpers/errors';

afterEach(() => {
  setCryptoProvider(webCryptoProvider);
});

async function rejection(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('Ed25519 without WebCrypto support: the fallback is opt-in (botsig/noble)', () => {
  it('the WebCrypto provider refuses Ed25519 with ERR_CRYPTO_UNSUPPORTED naming botsig/noble, for signing and verifying', async () => {
    const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
    await withoutWebCryptoEd25519(async () => {
      for (const attempt of [
        () => importSigningKey(privateJwk),
        () => importVerifyingKey(publicJwk),
        () => webCryptoProvider.importSign(privateJwk, 'ed25519'),
      ]) {
        const error = await rejection(attempt);
        expect(isBotsigError(error) && error.code).toBe('ERR_CRYPTO_UNSUPPORTED');
        expect((error as Error).message).toContain('botsig/noble');
      }
      // signRequest says the same, before signing anything.
      const error = await rejection(() => signRequest(new Request('https://origin.example/'), { key: privateJwk, signatureAgent: 'https://agent.example' }));
      expect(isBotsigError(error) && error.code).toBe('ERR_CRYPTO_UNSUPPORTED');
      expect((error as Error).message).toContain('botsig/noble');
    });
  });

  it('with Ed25519 present, a bad key is still ERR_KEY_INVALID (the probe names only a missing algorithm)', async () => {
    const { privateJwk } = await generateKeyPair('ed25519');
    await expectCode(() => webCryptoProvider.importSign({ ...privateJwk, d: 'AAAA' }, 'ed25519'), 'ERR_KEY_INVALID');
  });

  it('setCryptoProvider(withNobleFallback()): signRequest and verifyRequest work, through @noble', async () => {
    const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
    const fallback = withNobleFallback();
    expect(fallback.name).toBe('webcrypto+noble');
    setCryptoProvider(fallback);
    expect(getCryptoProvider()).toBe(fallback);
    const request = { method: 'GET', url: 'https://origin.example/a', headers: {} };
    const { signed, result, syncSign } = await withoutWebCryptoEd25519(async () => {
      const headers = await signRequest(request, { key: privateJwk, signatureAgent: 'https://agent.example' });
      const signed = { ...request, headers: { ...headers } };
      const result = await verifyRequest(signed, { keys: [publicJwk], nonce: { policy: 'none' }, authorities: ['origin.example'] });
      // The fallback's Ed25519 is @noble's: synchronous functions.
      const sign = await fallback.importSign(privateJwk, 'ed25519');
      return { signed, result, syncSign: sign(enc('x')) };
    });
    expect(result.outcome).toBe('verified');
    expect(syncSign).toBeInstanceOf(Uint8Array);
    // And the same request verifies with WebCrypto's own Ed25519.
    setCryptoProvider(webCryptoProvider);
    const again = await verifyRequest(signed, { keys: [publicJwk], nonce: { policy: 'none' }, authorities: ['origin.example'] });
    expect(again.outcome).toBe('verified');
  });

  it('withNobleFallback uses the inner provider when it can, and leaves other algorithms and failures to it', async () => {
    const calls: string[] = [];
    const inner: CryptoProvider = {
      name: 'inner',
      importSign: async (jwk, alg) => {
        calls.push(`sign ${alg}`);
        return webCryptoProvider.importSign(jwk, alg);
      },
      importVerify: async (jwk, alg) => {
        calls.push(`verify ${alg}`);
        return webCryptoProvider.importVerify(jwk, alg);
      },
    };
    const fallback = withNobleFallback(inner);
    const ed = await generateKeyPair('ed25519');
    const p256 = await generateKeyPair('ecdsa-p256-sha256');
    const web = await fallback.importSign(ed.privateJwk, 'ed25519');
    expect(web(enc('x'))).toBeInstanceOf(Promise); // WebCrypto's, not @noble's
    await fallback.importVerify(p256.publicJwk, 'ecdsa-p256-sha256');
    expect(calls).toEqual(['sign ed25519', 'verify ecdsa-p256-sha256']);
    await withoutWebCryptoEd25519(async () => {
      // P-256 still goes to WebCrypto; a bad Ed25519 key stays ERR_KEY_INVALID from @noble.
      await fallback.importSign(p256.privateJwk, 'ecdsa-p256-sha256');
      await expectCode(() => fallback.importSign({ ...ed.privateJwk, d: 'AAAA' }, 'ed25519'), 'ERR_KEY_INVALID');
    });
    // A failure other than ERR_CRYPTO_UNSUPPORTED is not retried with @noble.
    const broken = withNobleFallback({
      name: 'broken',
      importSign: () => Promise.reject(new Error('boom')),
      importVerify: () => Promise.reject(new Error('boom')),
    });
    expect(((await rejection(() => broken.importSign(ed.privateJwk, 'ed25519'))) as Error).message).toBe('boom');
    expect(() => withNobleFallback({} as CryptoProvider)).toThrow(TypeError);
  });

  it('the botsig/noble entry exports the fallback, the pure-JS provider and key generation', () => {
    expect(nobleEntry.withNobleFallback).toBe(withNobleFallback);
    expect(nobleEntry.nobleProvider).toBe(nobleEd25519Provider);
    expect(typeof nobleEntry.generateNobleKeyPair).toBe('function');
  });
});
