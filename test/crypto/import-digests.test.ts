/**
 * What the asynchronous key imports use in place of botsig's own SHA-256 and of the Byte
 * Sequence decoder, each held to the code it stands in for: the thumbprint of checked key
 * material hashed by crypto.subtle (crypto/thumbprint.ts), the character-at-a-time base64url
 * and either-alphabet decoders (core/base64.ts), the bounded least-recently-used material
 * caches (crypto/keys/cache.ts), and the private-key identity that keeps two JWKs with one
 * public key apart.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateKeyPair, jwkThumbprint, jwkThumbprintSync, webCryptoProvider } from '../../src/index';
import type { Jwk } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { importSigningKeySync } from '../../src/sync';
import { nobleEd25519Provider } from '../../src/noble';
import { base64AnyDecode, base64Decode, base64UrlDecode } from '../../src/core/base64';
import { cached, KEY_CACHE_MAX_ENTRIES, remember } from '../../src/crypto/keys/cache';
import { materialThumbprint } from '../../src/crypto/thumbprint';
import { base64UrlEncode } from '../helpers/bytes';
import { expectCode } from '../helpers/errors';
import { countingProvider } from './helpers';

describe('base64url and either-alphabet decoders: the Byte Sequence decoder’s rules', () => {
  const toStandard = (text: string): string => text.replace(/-/g, '+').replace(/_/g, '/');
  const text = fc.string({ unit: fc.constantFrom(...'AQgwEIMZz09-_+/=\u00e9\u0100'), maxLength: 14 });

  it('base64UrlDecode accepts exactly what base64Decode accepts with -_ for +/, and nothing with + or /', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(base64UrlDecode(t)).toEqual(/[+/]/.test(t) ? undefined : base64Decode(toStandard(t)));
      }),
      { numRuns: 5000 },
    );
  });

  it('base64AnyDecode accepts either alphabet, and mixed, by the same rules', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(base64AnyDecode(t)).toEqual(base64Decode(toStandard(t)));
      }),
      { numRuns: 5000 },
    );
  });

  it('round-trips any bytes, padded or not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const url = base64UrlEncode(bytes);
        expect(base64UrlDecode(url)).toEqual(bytes);
        expect(base64AnyDecode(url)).toEqual(bytes);
        expect(base64AnyDecode(toStandard(url) + '='.repeat((4 - (url.length % 4)) % 4))).toEqual(bytes);
      }),
      { numRuns: 500 },
    );
  });
});

describe('materialThumbprint: RFC 7638 over checked key material, by crypto.subtle', () => {
  const member = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map(base64UrlEncode);
  const material = fc.oneof(
    member(32).map((x): Jwk => ({ kty: 'OKP', crv: 'Ed25519', x })),
    fc.tuple(member(32), member(32)).map(([x, y]): Jwk => ({ kty: 'EC', crv: 'P-256', x, y })),
    fc.tuple(member(48), member(48)).map(([x, y]): Jwk => ({ kty: 'EC', crv: 'P-384', x, y })),
    fc.tuple(member(256), member(3)).map(([n, e]): Jwk => ({ kty: 'RSA', n, e })),
  );

  it('equals jwkThumbprintSync, whatever order the members were set in', async () => {
    await fc.assert(
      fc.asyncProperty(material, async (jwk) => {
        const reversed = Object.fromEntries(Object.entries(jwk).reverse()) as Jwk;
        expect(await materialThumbprint(jwk)).toBe(jwkThumbprintSync(jwk));
        expect(await materialThumbprint(reversed)).toBe(jwkThumbprintSync(jwk));
      }),
      { numRuns: 200 },
    );
  });
});

describe('material caches: bounded, least recently used first out', () => {
  it(`keep ${KEY_CACHE_MAX_ENTRIES} entries; a looked-up entry outlives those filed before it`, () => {
    const cache = new Map<string, number>();
    for (let i = 0; i < KEY_CACHE_MAX_ENTRIES; i++) remember(cache, `k${i}`, i);
    expect(cached(cache, 'k0')).toBe(0);
    remember(cache, 'new', -1);
    expect(cache.size).toBe(KEY_CACHE_MAX_ENTRIES);
    expect(cache.has('k0'), 'looked up: the most recent').toBe(true);
    expect(cache.has('k1'), 'the least recently used went').toBe(false);
    remember(cache, 'new', -2);
    expect(cache.size, 'filing a key again adds nothing').toBe(KEY_CACHE_MAX_ENTRIES);
    expect(cached(cache, 'absent')).toBeUndefined();
  });
});

describe('signing imports: one per private key, never one per public key', () => {
  it('copies of one private JWK imported at once share one provider import', async () => {
    const provider = countingProvider(webCryptoProvider);
    const { privateJwk } = await generateKeyPair('ed25519');
    const keys = await Promise.all(Array.from({ length: 20 }, () => importSigningKey({ ...privateJwk }, { provider })));
    expect(provider.imports.sign).toBe(1);
    expect(new Set(keys.map((k) => k.thumbprint)).size).toBe(1);
  });

  it('a JWK with the public members of a key already imported and another d is imported, probed and refused', async () => {
    const provider = countingProvider(webCryptoProvider);
    const a = await generateKeyPair('ecdsa-p256-sha256');
    const b = await generateKeyPair('ecdsa-p256-sha256');
    await importSigningKey(a.privateJwk, { provider });
    await expectCode(() => importSigningKey({ ...a.privateJwk, d: b.privateJwk.d! }, { provider }), 'ERR_KEY_INVALID');
    expect(provider.imports.sign).toBe(2);
  });
});

describe('a runtime without crypto.subtle', () => {
  // Where the runtime lets the global be replaced (Node does; the runtime matrix may not).
  const own = Object.getOwnPropertyDescriptor(globalThis, 'crypto');

  it.skipIf(own?.configurable !== true)(
    'asynchronous imports are ERR_CRYPTO_UNSUPPORTED (they hash with it); jwkThumbprint and the synchronous import still work',
    async () => {
      const { privateJwk, publicJwk, thumbprint } = await generateKeyPair('ed25519');
      Object.defineProperty(globalThis, 'crypto', { value: {}, configurable: true, writable: true });
      try {
        expect(globalThis.crypto.subtle).toBeUndefined();
        await expectCode(() => importVerifyingKey({ ...publicJwk }, { provider: nobleEd25519Provider }), 'ERR_CRYPTO_UNSUPPORTED');
        await expectCode(() => importSigningKey({ ...privateJwk }, { provider: nobleEd25519Provider }), 'ERR_CRYPTO_UNSUPPORTED');
        expect(await jwkThumbprint(publicJwk)).toBe(thumbprint);
        expect(importSigningKeySync({ ...privateJwk }).thumbprint).toBe(thumbprint);
      } finally {
        Object.defineProperty(globalThis, 'crypto', own!);
      }
    },
  );
});
