/**
 * verifyBase / signBase (src/crypto/keys.ts): the hot-path helpers that sign and
 * verify a signature base given as text. They must give exactly what
 * `key.verify(utf8(base), sig)` / `key.sign(utf8(base))` give, whatever the provider.
 * node:crypto's row is in test/node/base-helpers.test.ts; this file stays isomorphic
 * (it runs in the runtime matrix), so the synchronous inner provider below is @noble.
 */
import { describe, expect, it } from 'vitest';
import { generateKeyPair, webCryptoProvider } from '../../src/index';
import type { AlgorithmName, CryptoProvider, Jwk } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { nobleEd25519Provider } from '../../src/sync';
import { signBase, verifyBase } from '../../src/crypto/keys/base';
import { BASE, baseHelperSuite } from './base-helpers.suite';
import { countingProvider, enc } from './helpers';
import { expectCode } from '../helpers/errors';

baseHelperSuite([
  ['@noble (synchronous)', nobleEd25519Provider],
  ['WebCrypto (asynchronous)', webCryptoProvider],
]);

describe('signBase / verifyBase with keys botsig did not make', () => {
  it('go through the key object itself', async () => {
    const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
    const sk = await importSigningKey(privateJwk);
    const vk = await importVerifyingKey(publicJwk);
    const seen: Uint8Array[] = [];
    const wrappedVk = { alg: vk.alg, thumbprint: vk.thumbprint, jwk: vk.jwk, verify: (d: Uint8Array, s: Uint8Array) => (seen.push(d), vk.verify(d, s)) };
    const wrappedSk = { alg: sk.alg, thumbprint: sk.thumbprint, publicJwk: sk.publicJwk, sign: (d: Uint8Array) => (seen.push(d), sk.sign(d)) };
    const signature = await signBase(wrappedSk, BASE);
    expect(await verifyBase(wrappedVk, BASE, signature)).toBe(true);
    expect(seen.map((d) => new TextDecoder().decode(d))).toEqual([BASE, BASE]);
  });

  it('refuse what is not a key or not a string (TypeError)', async () => {
    const { publicJwk, privateJwk } = await generateKeyPair('ed25519');
    const vk = await importVerifyingKey(publicJwk);
    const sk = await importSigningKey(privateJwk);
    expect(() => verifyBase({} as never, BASE, new Uint8Array(64))).toThrow(TypeError);
    expect(() => verifyBase(vk, 42 as never, new Uint8Array(64))).toThrow(TypeError);
    expect(() => signBase({} as never, BASE)).toThrow(TypeError);
    expect(() => signBase(sk, undefined as never)).toThrow(TypeError);
  });
});

describe('a provider that claims to be synchronous and is not', () => {
  // Its functions answer with promises, and read the data only after a turn of the
  // event loop: reusing the buffer under it would sign or verify the wrong bytes.
  function lyingProvider(): CryptoProvider {
    const late = <T>(f: () => T) => new Promise<T>((resolve) => setTimeout(() => resolve(f()), 1));
    return {
      name: 'lying',
      synchronous: true,
      async importVerify(jwk: Jwk, alg: AlgorithmName) {
        const inner = await nobleEd25519Provider.importVerify(jwk, alg);
        return (data, signature) => late(() => inner(data.slice(), signature) as boolean);
      },
      async importSign(jwk: Jwk, alg: AlgorithmName) {
        const inner = await nobleEd25519Provider.importSign(jwk, alg);
        return (data) => late(() => inner(data.slice()) as Uint8Array);
      },
    };
  }

  it('still gets the right answers, each time', async () => {
    const provider = countingProvider(lyingProvider());
    const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
    const sk = await importSigningKey(privateJwk, { provider });
    const vk = await importVerifyingKey(publicJwk, { provider });
    const reference = await importSigningKey(privateJwk, { provider: nobleEd25519Provider });
    for (let i = 0; i < 3; i++) {
      const base = BASE + ';n=' + i;
      const pending = signBase(sk, base);
      // Another base goes through the shared buffer while the first is in flight.
      const other = signBase(reference, 'other');
      const signature = await pending;
      await other;
      expect(signature).toEqual(await reference.sign(enc(base)));
      const check = verifyBase(vk, base, signature);
      const otherBase = verifyBase(vk, 'other', signature);
      expect(await check).toBe(true);
      expect(await otherBase).toBe(false);
    }
  });
});

describe('signBase errors', () => {
  it('wraps a provider failure as ERR_CRYPTO_UNSUPPORTED, like key.sign', async () => {
    const failing: CryptoProvider = {
      name: 'failing',
      synchronous: true,
      importVerify: (jwk, alg) => nobleEd25519Provider.importVerify(jwk, alg),
      async importSign(jwk, alg) {
        const inner = await nobleEd25519Provider.importSign(jwk, alg);
        let calls = 0;
        // Passes the import self-test, then fails.
        return (data) => {
          if (calls++ > 0) throw new Error('device gone');
          return inner(data);
        };
      },
    };
    const { privateJwk } = await generateKeyPair('ed25519');
    const sk = await importSigningKey(privateJwk, { provider: failing });
    await expectCode(() => signBase(sk, BASE), 'ERR_CRYPTO_UNSUPPORTED');
  });
});
