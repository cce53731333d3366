import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import ed25519TestKey from '../../vectors/cloudflare-web-bot-auth/rfc9421-keys/ed25519.json';
import rfc8037 from '../../vectors/rfc8037.json';
import { base64UrlEncode } from '../helpers/bytes';
import { generateKeyPair, signRequest, verifyRequest, getCryptoProvider, setCryptoProvider, ALGORITHMS, webCryptoProvider } from '../../src/index';
import type { AlgorithmName, CryptoProvider, Jwk, SigningKey, VerifyingKey } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { importSigningKeySync } from '../../src/sync';
import { nobleEd25519Provider, withNobleFallback } from '../../src/noble';
import { importedSigningKey, KEY_CACHE_MAX_ENTRIES } from '../../src/crypto/keys/cache';
import { isSigningKey, isVerifyingKey } from '../../src/crypto/keys/objects';
import { b64urlToBytes, b64ToBytes, countingProvider, enc, onlyBotsigErrors, withoutWebCryptoEd25519 } from './helpers';
import { expectCode } from '../helpers/errors';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];
const pairs = new Map<AlgorithmName, { privateJwk: Jwk; publicJwk: Jwk; thumbprint: string }>();
const other = new Map<AlgorithmName, Jwk>();

beforeAll(async () => {
  for (const alg of ALGORITHMS) {
    pairs.set(alg, await generateKeyPair(alg));
    other.set(alg, (await generateKeyPair(alg)).publicJwk);
  }
}, 60_000);

afterEach(() => {
  setCryptoProvider(webCryptoProvider);
});

// The opt-in fallback (botsig/noble) over WebCrypto, in a runtime whose WebCrypto has no Ed25519.
const webCryptoWithNobleFallback: CryptoProvider = {
  name: 'webcrypto-noble-fallback',
  importVerify: (jwk, alg) => withoutWebCryptoEd25519(() => withNobleFallback().importVerify(jwk, alg)),
  importSign: (jwk, alg) => withoutWebCryptoEd25519(() => withNobleFallback().importSign(jwk, alg)),
};

const providersFor = (alg: AlgorithmName): CryptoProvider[] =>
  alg === 'ed25519' ? [webCryptoProvider, nobleEd25519Provider, webCryptoWithNobleFallback] : [webCryptoProvider];

describe('keys: sign/verify round trips (RFC 9421 §3.3)', () => {
  for (const alg of ALGORITHMS) {
    it(`${alg}: signs and verifies with every provider that implements it, and across them`, async () => {
      const { privateJwk, publicJwk, thumbprint } = pairs.get(alg)!;
      const data = enc(`"@authority": example.com\n"@signature-params": ();alg="${alg}"`);
      const providers = providersFor(alg);
      // One after the other: the fallback provider hides WebCrypto's Ed25519 while it imports.
      const signers: SigningKey[] = [];
      const verifiers: VerifyingKey[] = [];
      for (const provider of providers) signers.push(await importSigningKey(privateJwk, { provider }));
      for (const provider of providers) verifiers.push(await importVerifyingKey(publicJwk, { provider }));
      for (const signer of signers) {
        expect(signer.alg).toBe(alg);
        expect(signer.thumbprint).toBe(thumbprint);
        const signature = await signer.sign(data);
        if (alg === 'ecdsa-p256-sha256' || alg === 'ed25519') expect(signature.length, 'raw signature length').toBe(64);
        if (alg === 'ecdsa-p384-sha384') expect(signature.length, 'raw r‖s, not DER (RFC 9421 §3.3.5)').toBe(96);
        if (alg.startsWith('rsa')) expect(signature.length).toBe(256);
        for (const verifier of verifiers) {
          expect(verifier.thumbprint).toBe(thumbprint);
          expect(await verifier.verify(data, signature), `${signer.alg} signature verifies`).toBe(true);
          const tampered = data.slice();
          tampered[0]! ^= 1;
          expect(await verifier.verify(tampered, signature), 'changed data fails').toBe(false);
          const flipped = signature.slice();
          flipped[flipped.length - 1]! ^= 0x40;
          expect(await verifier.verify(data, flipped), 'changed signature fails').toBe(false);
          expect(await verifier.verify(data, signature.subarray(1)), 'short signature fails').toBe(false);
        }
        const stranger = await importVerifyingKey(other.get(alg)!);
        expect(await stranger.verify(data, signature), 'another key fails').toBe(false);
      }
    });
  }

  it('RFC 8037 §A.4: reproduces the deterministic Ed25519 JWS signature with WebCrypto, noble and importSigningKeySync', async () => {
    const { sign: vector, key } = rfc8037;
    const input = enc(vector.signingInput);
    expect(vector.signingInput).toBe(`${base64UrlEncode(enc(vector.protectedHeader))}.${base64UrlEncode(enc(vector.payload))}`);
    const expected = b64urlToBytes(vector.signature);
    for (const provider of [webCryptoProvider, nobleEd25519Provider, webCryptoWithNobleFallback]) {
      const signer = await importSigningKey(key.privateJwk, { provider });
      expect(await signer.sign(input), provider.name).toEqual(expected);
      const verifier = await importVerifyingKey(key.publicJwk, { provider });
      expect(await verifier.verify(input, expected), provider.name).toBe(true);
    }
    expect(importSigningKeySync(key.privateJwk).signSync!(input)).toEqual(expected);
  });

  it('RFC 9421 §B.2.6: reproduces the Ed25519 signature over the published signature base with test-key-ed25519', async () => {
    const base = [
      '"date": Tue, 20 Apr 2021 02:07:55 GMT',
      '"@method": POST',
      '"@path": /foo',
      '"@authority": example.com',
      '"content-type": application/json',
      '"content-length": 18',
      '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
    ].join('\n');
    const expected = b64ToBytes('wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==');
    const signer = await importSigningKey(ed25519TestKey as Jwk);
    expect(await signer.sign(enc(base))).toEqual(expected);
    expect(importSigningKeySync(ed25519TestKey as Jwk).signSync!(enc(base))).toEqual(expected);
  });
});

describe('keys: key type must fit the algorithm (ERR_ALG_MISMATCH) and HMAC is refused', () => {
  it('refuses an Ed25519 key for ECDSA and a P-256 key for P-384', async () => {
    await expectCode(() => importVerifyingKey(pairs.get('ed25519')!.publicJwk, { alg: 'ecdsa-p256-sha256' }), 'ERR_ALG_MISMATCH');
    await expectCode(() => importSigningKey(pairs.get('ecdsa-p256-sha256')!.privateJwk, { alg: 'ecdsa-p384-sha384' }), 'ERR_ALG_MISMATCH');
    await expectCode(() => importVerifyingKey(pairs.get('rsa-pss-sha512')!.publicJwk, { alg: 'rsa-v1_5-sha256' }), 'ERR_ALG_MISMATCH');
  });

  it('refuses a JWK whose alg member contradicts its curve', async () => {
    const { alg: _alg, ...jwk } = pairs.get('ecdsa-p384-sha384')!.publicJwk;
    await expectCode(() => importVerifyingKey({ ...jwk, alg: 'ES256' }), 'ERR_ALG_MISMATCH');
  });

  it('an RSA key without alg: verifying gives an unbound key (both RSA algorithms); options.alg or a JOSE alg bind it; signing needs one', async () => {
    const { alg: _alg, ...rsa } = pairs.get('rsa-v1_5-sha256')!.publicJwk;
    const unbound = await importVerifyingKey(rsa);
    expect(unbound.alg).toBeUndefined();
    expect(unbound.algorithms).toEqual(['rsa-pss-sha512', 'rsa-v1_5-sha256']);
    expect(isVerifyingKey(unbound)).toBe(true);
    expect((await importVerifyingKey(rsa, { alg: 'rsa-v1_5-sha256' })).alg).toBe('rsa-v1_5-sha256');
    expect((await importVerifyingKey({ ...rsa, alg: 'RS256' })).alg).toBe('rsa-v1_5-sha256');
    expect((await importVerifyingKey({ ...rsa, alg: 'PS512' })).alg).toBe('rsa-pss-sha512');
    const { alg: _palg, ...rsaPrivate } = pairs.get('rsa-v1_5-sha256')!.privateJwk;
    await expectCode(() => importSigningKey(rsaPrivate), 'ERR_ALG_UNKNOWN');
    expect((await importSigningKey(rsaPrivate, { alg: 'rsa-pss-sha512' })).alg).toBe('rsa-pss-sha512');
  });

  it('accepts JOSE alg names on input (EdDSA, Ed25519, ES256, ES384, PS512, RS256) and maps them to RFC 9421 names', async () => {
    const cases: Array<[AlgorithmName, string]> = [
      ['ed25519', 'EdDSA'],
      ['ed25519', 'Ed25519'],
      ['ecdsa-p256-sha256', 'ES256'],
      ['ecdsa-p384-sha384', 'ES384'],
      ['rsa-pss-sha512', 'PS512'],
      ['rsa-v1_5-sha256', 'RS256'],
    ];
    for (const [alg, jose] of cases) {
      const { publicJwk, privateJwk } = pairs.get(alg)!;
      expect((await importVerifyingKey({ ...publicJwk, alg: jose })).alg, jose).toBe(alg);
      const signer = await importSigningKey({ ...privateJwk, alg: jose });
      expect(signer.alg, jose).toBe(alg);
      expect(signer.publicJwk.alg, 'the JWK is kept as given').toBe(jose);
    }
  });

  it('refuses shared-secret keys with ERR_ALG_NOT_ALLOWED (RFC 9421 §3.3.3 HMAC is forbidden by the profile)', async () => {
    const oct: Jwk = { kty: 'oct', k: 'uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ', alg: 'HS256' };
    await expectCode(() => importVerifyingKey(oct), 'ERR_ALG_NOT_ALLOWED');
    await expectCode(() => importSigningKey(oct), 'ERR_ALG_NOT_ALLOWED');
    await expectCode(() => importSigningKeySync(oct), 'ERR_ALG_NOT_ALLOWED');
  });

  it('an already imported key is returned as is, unless options.alg disagrees', async () => {
    const verifier = await importVerifyingKey(pairs.get('ed25519')!.publicJwk);
    expect(await importVerifyingKey(verifier)).toBe(verifier);
    await expectCode(() => importVerifyingKey(verifier, { alg: 'rsa-pss-sha512' }), 'ERR_ALG_MISMATCH');
    const signer = await importSigningKey(pairs.get('ed25519')!.privateJwk);
    expect(await importSigningKey(signer)).toBe(signer);
    await expectCode(() => importSigningKey(signer, { alg: 'ecdsa-p256-sha256' }), 'ERR_ALG_MISMATCH');
  });
});

describe('keys: bad key material is ERR_KEY_INVALID', () => {
  const ed = () => ({ ...pairs.get('ed25519')!.privateJwk });
  it('missing or malformed members', async () => {
    const { x: _x, ...noX } = ed();
    await expectCode(() => importVerifyingKey(noX), 'ERR_KEY_INVALID', 'missing x');
    const { d: _d, ...noD } = ed();
    await expectCode(() => importSigningKey(noD), 'ERR_KEY_INVALID', 'signing needs d');
    await expectCode(() => importVerifyingKey({ ...ed(), x: 'AAAA' }), 'ERR_KEY_INVALID', 'x too short');
    await expectCode(() => importVerifyingKey({ ...ed(), x: `${ed().x}=` }), 'ERR_KEY_INVALID', 'padded base64url');
    await expectCode(() => importVerifyingKey({ ...ed(), x: 'not base64url!' }), 'ERR_KEY_INVALID', 'bad alphabet');
    await expectCode(() => importVerifyingKey({ ...ed(), x: 42 } as unknown as Jwk), 'ERR_KEY_INVALID', 'non-string member');
    await expectCode(() => importVerifyingKey({ crv: 'Ed25519', x: ed().x } as unknown as Jwk), 'ERR_KEY_INVALID', 'no kty');
    await expectCode(() => importVerifyingKey([] as unknown as Jwk), 'ERR_KEY_INVALID', 'array');
    await expectCode(() => importVerifyingKey({ ...ed(), use: 'enc' }), 'ERR_KEY_INVALID', 'use: enc');
  });

  it('an off-curve EC point', async () => {
    const p256 = pairs.get('ecdsa-p256-sha256')!.publicJwk;
    await expectCode(() => importVerifyingKey({ ...p256, y: p256.x! }), 'ERR_KEY_INVALID');
  });

  it('an RSA modulus below 2048 bits', async () => {
    const rsa = pairs.get('rsa-pss-sha512')!.publicJwk;
    const short = base64UrlEncode(b64urlToBytes(rsa.n!).subarray(0, 128));
    await expectCode(() => importVerifyingKey({ ...rsa, n: short }), 'ERR_KEY_INVALID');
  });

  it('a private key whose public members belong to another key (checked by a sign/verify probe)', async () => {
    for (const alg of ALGORITHMS) {
      const mixed = { ...pairs.get(alg)!.privateJwk, ...pick(other.get(alg)!, ['x', 'y', 'n', 'e']) };
      for (const provider of providersFor(alg)) {
        await expectCode(() => importSigningKey(mixed, { provider }), 'ERR_KEY_INVALID', `${alg} via ${provider.name}`);
      }
    }
    await expectCode(() => importSigningKeySync({ ...ed(), x: other.get('ed25519')!.x! }), 'ERR_KEY_INVALID');
  });

  it('programmer errors are TypeErrors', async () => {
    for (const bad of [null, undefined, 'jwk', 42]) {
      await expect(importVerifyingKey(bad as unknown as Jwk)).rejects.toBeInstanceOf(TypeError);
      await expect(importSigningKey(bad as unknown as Jwk)).rejects.toBeInstanceOf(TypeError);
      expect(() => importSigningKeySync(bad as unknown as Jwk)).toThrow(TypeError);
    }
    await expect(importVerifyingKey(pairs.get('ed25519')!.publicJwk, { alg: 'hmac-sha256' as AlgorithmName })).rejects.toBeInstanceOf(TypeError);
    const verifier = await importVerifyingKey(pairs.get('ed25519')!.publicJwk);
    await expect(verifier.verify('data' as unknown as Uint8Array, new Uint8Array(64))).rejects.toBeInstanceOf(TypeError);
  });
});

function pick(jwk: Jwk, names: string[]): Jwk {
  return Object.fromEntries(names.filter((n) => jwk[n] !== undefined).map((n) => [n, jwk[n]])) as Jwk;
}

describe('keys: exposed JWKs carry public members only', () => {
  for (const alg of ALGORITHMS) {
    it(`${alg}: publicJwk / jwk never carry private members, keep metadata, and are frozen`, async () => {
      const privateJwk = { ...pairs.get(alg)!.privateJwk, use: 'sig', key_ops: ['sign'], ext: true, nbf: 1 };
      const signer = await importSigningKey(privateJwk);
      const verifier = await importVerifyingKey(privateJwk);
      for (const jwk of [signer.publicJwk, verifier.jwk]) {
        for (const m of PRIVATE_MEMBERS) expect(jwk, m).not.toHaveProperty(m);
        expect(jwk).not.toHaveProperty('key_ops');
        expect(jwk.kid).toBe(privateJwk.kid);
        expect(jwk.nbf).toBe(1);
        expect(Object.isFrozen(jwk)).toBe(true);
      }
      expect(Object.keys(signer.publicJwk)[0], 'member order kept').toBe('kty');
      expect(Object.isFrozen(signer)).toBe(true);
    });
  }
});

describe('keys: import cache (imported once, LRU-bounded, per provider)', () => {
  it('returns the same object for the same JWK object, and imports shared material once', async () => {
    const provider = countingProvider(webCryptoProvider);
    const { publicJwk, privateJwk } = pairs.get('ecdsa-p256-sha256')!;
    const a = await importVerifyingKey(publicJwk, { provider });
    const b = await importVerifyingKey(publicJwk, { provider });
    expect(b).toBe(a);
    const copy = { ...publicJwk, kid: 'another label' };
    const c = await importVerifyingKey(copy, { provider });
    expect(c.jwk.kid, 'each JWK keeps its own metadata').toBe('another label');
    expect(provider.imports.verify, 'one provider import for one key').toBe(1);

    await importSigningKey(privateJwk, { provider });
    await importSigningKey({ ...privateJwk }, { provider });
    expect(provider.imports.sign).toBe(1);
  });

  it('coalesces concurrent imports of one key into one provider call', async () => {
    const provider = countingProvider(webCryptoProvider);
    const jwk = pairs.get('ed25519')!.publicJwk;
    const keys = await Promise.all(Array.from({ length: 50 }, () => importVerifyingKey({ ...jwk }, { provider })));
    expect(provider.imports.verify).toBe(1);
    expect(new Set(keys.map((k) => k.thumbprint)).size).toBe(1);
  });

  it('re-imports after a member changes, and keeps caches apart per provider', async () => {
    const provider = countingProvider(webCryptoProvider);
    const jwk: Jwk = { ...pairs.get('ed25519')!.publicJwk };
    const first = await importVerifyingKey(jwk, { provider });
    jwk.x = other.get('ed25519')!.x!;
    const second = await importVerifyingKey(jwk, { provider });
    expect(second.thumbprint).not.toBe(first.thumbprint);
    expect(provider.imports.verify).toBe(2);
    const elsewhere = countingProvider(webCryptoProvider);
    await importVerifyingKey(jwk, { provider: elsewhere });
    expect(elsewhere.imports.verify).toBe(1);
  });

  it(`keeps at most ${KEY_CACHE_MAX_ENTRIES} imports per provider, evicting the least recently used`, async () => {
    const stub = countingProvider({ name: 'stub', importVerify: async () => () => true, importSign: async () => () => new Uint8Array(64) });
    const keyFor = (i: number): Jwk => {
      const x = new Uint8Array(32);
      new DataView(x.buffer).setUint32(0, i);
      return { kty: 'OKP', crv: 'Ed25519', x: base64UrlEncode(x) };
    };
    for (let i = 0; i <= KEY_CACHE_MAX_ENTRIES; i++) await importVerifyingKey(keyFor(i), { provider: stub });
    expect(stub.imports.verify).toBe(KEY_CACHE_MAX_ENTRIES + 1);
    await importVerifyingKey(keyFor(KEY_CACHE_MAX_ENTRIES), { provider: stub });
    expect(stub.imports.verify, 'recent key still cached').toBe(KEY_CACHE_MAX_ENTRIES + 1);
    await importVerifyingKey(keyFor(0), { provider: stub });
    expect(stub.imports.verify, 'oldest key was evicted').toBe(KEY_CACHE_MAX_ENTRIES + 2);
  });

  it('does not cache failures', async () => {
    let fail = true;
    const flaky = countingProvider({
      name: 'flaky',
      importVerify: async (jwk, alg) => {
        if (fail) throw new Error('transient');
        return webCryptoProvider.importVerify(jwk, alg);
      },
      importSign: webCryptoProvider.importSign,
    });
    const jwk = pairs.get('ed25519')!.publicJwk;
    await expectCode(() => importVerifyingKey(jwk, { provider: flaky }), 'ERR_KEY_INVALID');
    fail = false;
    expect((await importVerifyingKey(jwk, { provider: flaky })).alg).toBe('ed25519');
    expect(flaky.imports.verify).toBe(2);
  });

  it('uses the default provider from setCryptoProvider', async () => {
    const provider = countingProvider(webCryptoProvider);
    setCryptoProvider(provider);
    expect(getCryptoProvider()).toBe(provider);
    await importVerifyingKey(pairs.get('ed25519')!.publicJwk);
    expect(provider.imports.verify).toBe(1);
    expect(() => setCryptoProvider({} as CryptoProvider)).toThrow(TypeError);
  });

  it('importedSigningKey: the key a JWK object gave, once imported, while its members and the provider are unchanged', async () => {
    const jwk = { ...pairs.get('ed25519')!.privateJwk };
    expect(importedSigningKey(jwk, undefined), 'nothing before the import').toBeUndefined();
    const pending = importSigningKey(jwk);
    expect(importedSigningKey(jwk, undefined), 'nothing while the import runs').toBeUndefined();
    const key = await pending;
    expect(importedSigningKey(jwk, undefined)).toBe(key);
    expect(importedSigningKey(jwk, 'ed25519'), 'another requested algorithm: not this entry').toBeUndefined();
    expect(importedSigningKey({ ...jwk }, undefined), 'another object with the same members: not looked up').toBeUndefined();
    expect(importedSigningKey(null, undefined)).toBeUndefined();
    expect(importedSigningKey('x', undefined)).toBeUndefined();
    setCryptoProvider(countingProvider(webCryptoProvider));
    expect(importedSigningKey(jwk, undefined), 'another default provider').toBeUndefined();
    setCryptoProvider(webCryptoProvider);
    const other = pairs.get('ecdsa-p256-sha256')!.privateJwk;
    (jwk as Record<string, unknown>).x = other.x;
    expect(importedSigningKey(jwk, undefined), 'a changed member').toBeUndefined();
    // A failed import leaves nothing behind.
    const bad: Jwk = { ...pairs.get('ed25519')!.privateJwk, d: pairs.get('ed25519')!.privateJwk.x! };
    await expectCode(() => importSigningKey(bad), 'ERR_KEY_INVALID');
    expect(importedSigningKey(bad, undefined)).toBeUndefined();
  });

  it('signRequest with a JWK object imports it once and signs later requests with that key', async () => {
    const provider = countingProvider(webCryptoProvider);
    setCryptoProvider(provider);
    const { privateJwk, publicJwk } = pairs.get('ed25519')!;
    const jwk = { ...privateJwk };
    const request = { method: 'GET', url: 'https://origin.example/' };
    for (let i = 0; i < 3; i++) {
      const headers = await signRequest(request, { key: jwk, signatureAgent: 'https://agent.example', label: 'sig1' });
      const result = await verifyRequest(
        { ...request, headers: { ...headers } },
        { keys: [publicJwk], nonce: { policy: 'none' }, authorities: ['origin.example'] },
      );
      expect(result.outcome).toBe('verified');
    }
    expect(provider.imports.sign).toBe(1);
  });
});

describe('keys: CryptoKey and CryptoKeyPair inputs', () => {
  it('imports a CryptoKeyPair and a public CryptoKey; thumbprints match the JWK path', async () => {
    for (const [alg, params] of [
      ['ed25519', { name: 'Ed25519' }],
      ['ecdsa-p384-sha384', { name: 'ECDSA', namedCurve: 'P-384' }],
    ] as const) {
      const pair = (await crypto.subtle.generateKey(params as EcKeyGenParams, true, ['sign', 'verify'])) as CryptoKeyPair;
      const signer = await importSigningKey(pair);
      expect(signer.alg).toBe(alg);
      expect(await importSigningKey(pair), 'cached by private key').toBe(signer);
      const verifier = await importVerifyingKey(pair.publicKey);
      const fromJwk = await importVerifyingKey((await crypto.subtle.exportKey('jwk', pair.publicKey)) as Jwk, { alg });
      expect(verifier.thumbprint).toBe(fromJwk.thumbprint);
      expect(signer.thumbprint).toBe(fromJwk.thumbprint);
      const data = enc('cryptokey');
      const signature = await signer.sign(data);
      expect(await verifier.verify(data, signature)).toBe(true);
      expect(await fromJwk.verify(data, signature)).toBe(true);
      expect(verifier.alg).toBe(alg);
      // The key type fixes the algorithm: the JWK botsig writes names none (jose and WebCrypto refuse RFC 9421 names).
      expect(verifier.jwk).not.toHaveProperty('alg');
      expect(signer.publicJwk).not.toHaveProperty('alg');
      for (const m of PRIVATE_MEMBERS) expect(signer.publicJwk).not.toHaveProperty(m);
      await expectCode(() => importVerifyingKey(pair.publicKey, { alg: 'rsa-pss-sha512' }), 'ERR_ALG_MISMATCH');
    }
  });

  it('imports an extractable private CryptoKey alone, refuses a non-extractable one and a private key for verifying', async () => {
    const extractable = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const signer = await importSigningKey(extractable.privateKey);
    expect(await (await importVerifyingKey(extractable.publicKey)).verify(enc('x'), await signer.sign(enc('x')))).toBe(true);
    const locked = (await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as CryptoKeyPair;
    await expectCode(() => importSigningKey(locked.privateKey), 'ERR_KEY_INVALID');
    expect((await importSigningKey(locked)).alg, 'a pair works: its public half is extractable').toBe('ed25519');
    await expectCode(() => importVerifyingKey(locked.privateKey), 'ERR_KEY_INVALID');
    const hmac = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
    await expectCode(() => importSigningKey(hmac as CryptoKey), 'ERR_ALG_NOT_ALLOWED');
  });

  it('refuses a CryptoKeyPair whose halves are different keys', async () => {
    const a = (await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as CryptoKeyPair;
    const b = (await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as CryptoKeyPair;
    await expectCode(() => importSigningKey({ privateKey: a.privateKey, publicKey: b.publicKey }), 'ERR_KEY_INVALID');
  });
});

describe('keys: synchronous signing', () => {
  it('importSigningKeySync gives sign and signSync with identical (deterministic) output', async () => {
    const key = importSigningKeySync(pairs.get('ed25519')!.privateJwk);
    expect(isSigningKey(key)).toBe(true);
    const data = enc('sync');
    const sync = key.signSync!(data);
    expect(await key.sign(data)).toEqual(sync);
    expect(await (await importVerifyingKey(pairs.get('ed25519')!.publicJwk)).verify(data, sync)).toBe(true);
    expect(importSigningKeySync(pairs.get('ed25519')!.privateJwk), 'cached per JWK object').toBe(importSigningKeySync(pairs.get('ed25519')!.privateJwk));
  });

  it('importSigningKeySync refuses other algorithms with ERR_CRYPTO_UNSUPPORTED', async () => {
    for (const alg of ALGORITHMS.filter((a) => a !== 'ed25519')) {
      await expectCode(() => importSigningKeySync(pairs.get(alg)!.privateJwk), 'ERR_CRYPTO_UNSUPPORTED', alg);
    }
  });

  it('keys from a synchronous provider have signSync; WebCrypto keys do not', async () => {
    const noble = await importSigningKey(pairs.get('ed25519')!.privateJwk, { provider: nobleEd25519Provider });
    expect(typeof noble.signSync).toBe('function');
    const web = await importSigningKey(pairs.get('ed25519')!.privateJwk, { provider: webCryptoProvider });
    expect(web.signSync).toBeUndefined();
  });
});

describe('keys: hostile input (fast-check)', () => {
  const b64 = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max }).map(base64UrlEncode);
  const member = fc.oneof(b64(0, 70), b64(32, 32), b64(48, 48), b64(256, 256), fc.string(), fc.integer(), fc.constant(undefined), fc.anything());
  const jwkLike = fc.record(
    {
      kty: fc.oneof(fc.constantFrom('OKP', 'EC', 'RSA', 'oct', 'XYZ'), fc.anything()),
      crv: fc.oneof(fc.constantFrom('Ed25519', 'P-256', 'P-384', 'X25519'), fc.anything()),
      x: member,
      y: member,
      n: member,
      e: fc.oneof(fc.constant('AQAB'), member),
      d: member,
      alg: fc.oneof(fc.constantFrom(...ALGORITHMS, 'EdDSA', 'ES256', 'PS512', 'HS256', 'hmac-sha256', 'none'), fc.anything()),
      use: fc.oneof(fc.constantFrom('sig', 'enc'), fc.anything()),
    },
    { requiredKeys: [] },
  );

  it('import never throws anything but BotsigError for objects, with either provider', async () => {
    await fc.assert(
      fc.asyncProperty(jwkLike, fc.constantFrom<CryptoProvider>(webCryptoProvider, nobleEd25519Provider), async (jwk, provider) => {
        await onlyBotsigErrors(() => importVerifyingKey(jwk as Jwk, { provider }));
        await onlyBotsigErrors(() => importSigningKey(jwk as Jwk, { provider }));
        await onlyBotsigErrors(() => importSigningKeySync(jwk as Jwk));
      }),
      { numRuns: 400 },
    );
  });

  it('import of non-objects is a TypeError; of arbitrary objects a BotsigError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (value) => {
        let caught: unknown;
        try {
          await importVerifyingKey(value as Jwk);
        } catch (error) {
          caught = error;
        }
        if (typeof value !== 'object' || value === null) expect(caught).toBeInstanceOf(TypeError);
        else if (caught !== undefined) expect((caught as { name?: string }).name).toBe('BotsigError');
      }),
      { numRuns: 300 },
    );
  });

  for (const alg of ALGORITHMS) {
    it(`${alg}: verify returns false for random signature bytes and never throws`, async () => {
      const verifiers: VerifyingKey[] = [];
      for (const provider of providersFor(alg)) verifiers.push(await importVerifyingKey(pairs.get(alg)!.publicJwk, { provider }));
      const size = alg.startsWith('rsa') ? 256 : alg === 'ecdsa-p384-sha384' ? 96 : 64;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.uint8Array({ minLength: size, maxLength: size }), fc.uint8Array({ maxLength: 300 })),
          fc.uint8Array({ maxLength: 100 }),
          async (signature, data) => {
            for (const verifier of verifiers) expect(await verifier.verify(data, signature)).toBe(false);
          },
        ),
        { numRuns: alg.startsWith('rsa') ? 100 : 200 },
      );
    });
  }
});

describe('keys: type guards', () => {
  it('isSigningKey / isVerifyingKey recognise imported keys only', async () => {
    const signer: SigningKey = await importSigningKey(pairs.get('ed25519')!.privateJwk);
    const verifier = await importVerifyingKey(pairs.get('ed25519')!.publicJwk);
    expect(isSigningKey(signer)).toBe(true);
    expect(isVerifyingKey(verifier)).toBe(true);
    expect(isSigningKey(verifier)).toBe(false);
    expect(isVerifyingKey(signer)).toBe(false);
    expect(isVerifyingKey(pairs.get('ed25519')!.publicJwk)).toBe(false);
  });
});
