// Issue 14 "Keys that interoperate": the JWKs botsig writes import unchanged into
// jose (importJWK, createLocalJWKSet) and WebCrypto (importKey 'jwk'), which refuse
// RFC 9421 names such as "ed25519" in `alg`. jose is the test oracle here.
import * as jose from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { BotsigError, generateKeyPair, type GeneratedKeyPair, keyForAlgorithm } from '../../src/index';
import type { AlgorithmName, Jwk } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { verifyBase } from '../../src/crypto/keys/base';
import { webCryptoHasEd25519 } from '../../src/crypto/webcrypto';
import { enc } from './helpers';

/** What a JOSE implementation calls each algorithm, with independent WebCrypto parameters. */
const JOSE: ReadonlyArray<{ alg: AlgorithmName; jose: string; importParams: EcKeyImportParams | Algorithm; signParams: EcdsaParams | Algorithm }> = [
  { alg: 'ed25519', jose: 'EdDSA', importParams: { name: 'Ed25519' }, signParams: { name: 'Ed25519' } },
  {
    alg: 'ecdsa-p256-sha256',
    jose: 'ES256',
    importParams: { name: 'ECDSA', namedCurve: 'P-256' },
    signParams: { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams,
  },
  {
    alg: 'ecdsa-p384-sha384',
    jose: 'ES384',
    importParams: { name: 'ECDSA', namedCurve: 'P-384' },
    signParams: { name: 'ECDSA', hash: 'SHA-384' } as EcdsaParams,
  },
];

const pairs = new Map<AlgorithmName, GeneratedKeyPair>();
let ed25519InWebCrypto = true;

beforeAll(async () => {
  ed25519InWebCrypto = await webCryptoHasEd25519();
  for (const { alg } of JOSE) pairs.set(alg, await generateKeyPair(alg));
}, 30_000);

describe('generateKeyPair output imports unchanged into jose and WebCrypto (key type fixes the algorithm)', () => {
  for (const { alg, jose: joseAlg, importParams, signParams } of JOSE) {
    it(`${alg} (${joseAlg}): private and public JWK, as generated`, async () => {
      if (alg === 'ed25519' && !ed25519InWebCrypto) return; // this runtime's WebCrypto has no Ed25519 to compare with
      const { privateJwk, publicJwk, thumbprint } = pairs.get(alg)!;
      const privateCopy = structuredClone(privateJwk);
      const publicCopy = structuredClone(publicJwk);
      expect(publicJwk).not.toHaveProperty('alg');
      expect(privateJwk).not.toHaveProperty('alg');

      // WebCrypto, the JWKs as they are.
      const wcPrivate = await crypto.subtle.importKey('jwk', privateJwk as JsonWebKey, importParams, false, ['sign']);
      const wcPublic = await crypto.subtle.importKey('jwk', publicJwk as JsonWebKey, importParams, false, ['verify']);
      // jose: a JWK without alg is imported for the algorithm the caller names.
      const josePrivate = await jose.importJWK(privateJwk as jose.JWK, joseAlg);
      const josePublic = await jose.importJWK(publicJwk as jose.JWK, joseAlg);
      // jose's key-set lookup (what a JWKS consumer of a directory uses) finds it by kid and algorithm.
      const fromSet = await jose.createLocalJWKSet({ keys: [publicJwk as jose.JWK] })({ alg: joseAlg, kid: thumbprint });
      expect(privateJwk, 'not changed by the imports').toEqual(privateCopy);
      expect(publicJwk).toEqual(publicCopy);

      // The same key both ways: WebCrypto and jose signatures verify with botsig, botsig's with them.
      const data = enc(`interop ${alg}`);
      const verifier = await importVerifyingKey(publicJwk);
      expect(verifier.alg).toBe(alg);
      expect(await verifier.verify(data, new Uint8Array(await crypto.subtle.sign(signParams, wcPrivate, data as Uint8Array<ArrayBuffer>)))).toBe(true);
      expect(await verifier.verify(data, new Uint8Array(await crypto.subtle.sign(signParams, josePrivate as CryptoKey, data as Uint8Array<ArrayBuffer>)))).toBe(
        true,
      );
      const signature = await (await importSigningKey(privateJwk)).sign(data);
      for (const key of [wcPublic, josePublic, fromSet]) {
        expect(await crypto.subtle.verify(signParams, key as CryptoKey, signature as Uint8Array<ArrayBuffer>, data as Uint8Array<ArrayBuffer>)).toBe(true);
      }
    });
  }

  it('the old form (alg "ed25519") is what jose and WebCrypto refuse', async () => {
    if (!ed25519InWebCrypto) return;
    const { publicJwk, thumbprint } = pairs.get('ed25519')!;
    const old = { ...publicJwk, alg: 'ed25519' };
    await expect(jose.importJWK(old as jose.JWK)).rejects.toThrow();
    await expect(jose.createLocalJWKSet({ keys: [old as jose.JWK] })({ alg: 'EdDSA', kid: thumbprint })).rejects.toThrow();
    await expect(crypto.subtle.importKey('jwk', old as JsonWebKey, { name: 'Ed25519' }, false, ['verify'])).rejects.toThrow();
  });
});

describe('RSA: the key type does not fix the algorithm', () => {
  let pss: GeneratedKeyPair;
  beforeAll(async () => {
    pss = await generateKeyPair('rsa-pss-sha512');
  }, 30_000);

  it('generated RSA keys keep alg as the RFC 9421 name (SPEC 2.1 rule 2)', () => {
    expect(pss.publicJwk.alg).toBe('rsa-pss-sha512');
    expect(pss.privateJwk.alg).toBe('rsa-pss-sha512');
  });

  it('an RSA JWK without alg imports unchanged into jose, WebCrypto and botsig, which binds it to the algorithm a signature names', async () => {
    const { alg: _a, ...publicJwk } = pss.publicJwk;
    const { alg: _b, ...privateJwk } = pss.privateJwk;
    const params = { name: 'RSA-PSS', hash: 'SHA-512' };
    const wcPrivate = await crypto.subtle.importKey('jwk', privateJwk as JsonWebKey, params, false, ['sign']);
    const josePublic = await jose.importJWK(publicJwk as jose.JWK, 'PS512');
    const fromSet = await jose.createLocalJWKSet({ keys: [publicJwk as jose.JWK] })({ alg: 'PS512', kid: pss.thumbprint });
    const data = enc('interop rsa');
    const signature = new Uint8Array(await crypto.subtle.sign({ name: 'RSA-PSS', saltLength: 64 }, wcPrivate, data as Uint8Array<ArrayBuffer>));
    const key = await importVerifyingKey(publicJwk as Jwk);
    expect(key.alg).toBeUndefined();
    const bound = keyForAlgorithm(key, 'rsa-pss-sha512');
    if (bound instanceof BotsigError) throw bound;
    expect(await verifyBase(bound, 'interop rsa', signature)).toBe(true);
    for (const k of [josePublic, fromSet]) {
      expect(
        await crypto.subtle.verify({ name: 'RSA-PSS', saltLength: 64 }, k as CryptoKey, signature as Uint8Array<ArrayBuffer>, data as Uint8Array<ArrayBuffer>),
      ).toBe(true);
    }
  });
});
