import { describe, expect, it } from 'vitest';
import { generateKeyPair, ALGORITHMS, jwkThumbprint } from '../../src/index';
import type { AlgorithmName } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { enc, withoutWebCryptoEd25519 } from './helpers';
import { expectCode } from '../helpers/errors';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'];
// Only RSA keys leave the algorithm open, so only they carry alg (as the RFC 9421 name, SPEC 2.1 rule 2).
const NAMED = new Set<AlgorithmName>(['rsa-pss-sha512', 'rsa-v1_5-sha256']);

describe('generateKeyPair', () => {
  for (const alg of ALGORITHMS) {
    it(`${alg}: private JWK with kid, public JWK with kid, use: sig (kid = RFC 7638 thumbprint), alg ${NAMED.has(alg) ? 'as the RFC 9421 name' : 'left out'}`, async () => {
      const { privateJwk, publicJwk, thumbprint } = await generateKeyPair(alg);
      expect(thumbprint).toBe(await jwkThumbprint(publicJwk));
      expect(publicJwk).toMatchObject({ kid: thumbprint, use: 'sig' });
      expect(privateJwk).toMatchObject({ kid: thumbprint });
      if (NAMED.has(alg)) {
        expect(publicJwk.alg).toBe(alg);
        expect(privateJwk.alg).toBe(alg);
      } else {
        expect(publicJwk).not.toHaveProperty('alg');
        expect(privateJwk).not.toHaveProperty('alg');
      }
      expect(privateJwk.d).toBeTypeOf('string');
      for (const m of PRIVATE_MEMBERS) expect(publicJwk, m).not.toHaveProperty(m);
      expect(privateJwk, 'no WebCrypto usage marks').not.toHaveProperty('key_ops');
      expect(privateJwk).not.toHaveProperty('ext');
      const signer = await importSigningKey(privateJwk);
      const verifier = await importVerifyingKey(publicJwk);
      expect(signer.alg).toBe(alg);
      expect(verifier.alg).toBe(alg);
      expect(signer.thumbprint).toBe(thumbprint);
      expect(await verifier.verify(enc('generated'), await signer.sign(enc('generated')))).toBe(true);
    });
  }

  it('defaults to ed25519 and gives distinct keys', async () => {
    const a = await generateKeyPair();
    const b = await generateKeyPair();
    expect(a.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(Object.keys(a.publicJwk)).toEqual(['kty', 'crv', 'x', 'kid', 'use']);
    expect(Object.keys(a.privateJwk)).toEqual(['kty', 'crv', 'x', 'd', 'kid']);
    expect(a.thumbprint).not.toBe(b.thumbprint);
  });

  it('where WebCrypto lacks Ed25519: ERR_CRYPTO_UNSUPPORTED naming botsig/noble, whose generateNobleKeyPair works', async () => {
    const { generateNobleKeyPair } = await import('../../src/crypto/noble');
    const made = await withoutWebCryptoEd25519(async () => {
      let caught: unknown;
      await generateKeyPair('ed25519').catch((error: unknown) => (caught = error));
      expect((caught as { code?: string }).code).toBe('ERR_CRYPTO_UNSUPPORTED');
      expect((caught as Error).message).toContain('botsig/noble');
      // Other algorithms are WebCrypto's as before.
      expect((await generateKeyPair('ecdsa-p256-sha256')).publicJwk.crv).toBe('P-256');
      return generateNobleKeyPair();
    });
    const { privateJwk, publicJwk, thumbprint } = made;
    expect(Object.keys(publicJwk)).toEqual(['kty', 'crv', 'x', 'kid', 'use']);
    expect(Object.keys(privateJwk)).toEqual(['kty', 'crv', 'x', 'd', 'kid']);
    expect(thumbprint).toBe(await jwkThumbprint(publicJwk));
    const signer = await importSigningKey(privateJwk);
    expect(await (await importVerifyingKey(publicJwk)).verify(enc('noble'), await signer.sign(enc('noble')))).toBe(true);
    // With Ed25519 in WebCrypto, generateNobleKeyPair is generateKeyPair.
    expect(Object.keys((await generateNobleKeyPair()).privateJwk)).toEqual(['kty', 'crv', 'x', 'd', 'kid']);
  });

  it('refuses hmac-sha256 (ERR_ALG_NOT_ALLOWED) and unknown names (ERR_ALG_UNKNOWN)', async () => {
    await expectCode(() => generateKeyPair('hmac-sha256' as AlgorithmName), 'ERR_ALG_NOT_ALLOWED');
    await expectCode(() => generateKeyPair('rsa-pss-sha256' as AlgorithmName), 'ERR_ALG_UNKNOWN');
  });
});
