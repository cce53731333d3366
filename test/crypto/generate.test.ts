import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../src/crypto/generate';
import { importSigningKey, importVerifyingKey } from '../../src/crypto/keys';
import { ALGORITHMS } from '../../src/crypto/registry';
import { jwkThumbprint } from '../../src/crypto/thumbprint';
import type { AlgorithmName } from '../../src/crypto/types';
import { resetWebCryptoEd25519Probe } from '../../src/crypto/webcrypto';
import { enc, expectCode } from './helpers';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'];

afterEach(() => resetWebCryptoEd25519Probe());

describe('generateKeyPair', () => {
  for (const alg of ALGORITHMS) {
    it(`${alg}: private JWK with alg and kid, public JWK with kid, alg, use: sig (kid = RFC 7638 thumbprint)`, async () => {
      const { privateJwk, publicJwk, thumbprint } = await generateKeyPair(alg);
      expect(thumbprint).toBe(await jwkThumbprint(publicJwk));
      expect(publicJwk).toMatchObject({ kid: thumbprint, alg, use: 'sig' });
      expect(privateJwk).toMatchObject({ kid: thumbprint, alg });
      expect(privateJwk.d).toBeTypeOf('string');
      for (const m of PRIVATE_MEMBERS) expect(publicJwk, m).not.toHaveProperty(m);
      expect(privateJwk, 'no WebCrypto usage marks').not.toHaveProperty('key_ops');
      expect(privateJwk).not.toHaveProperty('ext');
      const signer = await importSigningKey(privateJwk);
      const verifier = await importVerifyingKey(publicJwk);
      expect(signer.thumbprint).toBe(thumbprint);
      expect(await verifier.verify(enc('generated'), await signer.sign(enc('generated')))).toBe(true);
    });
  }

  it('defaults to ed25519 and gives distinct keys', async () => {
    const a = await generateKeyPair();
    const b = await generateKeyPair();
    expect(a.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'ed25519' });
    expect(a.thumbprint).not.toBe(b.thumbprint);
  });

  it('falls back to @noble/ed25519 where WebCrypto lacks Ed25519', async () => {
    resetWebCryptoEd25519Probe(false);
    const { privateJwk, publicJwk, thumbprint } = await generateKeyPair('ed25519');
    resetWebCryptoEd25519Probe();
    expect(thumbprint).toBe(await jwkThumbprint(publicJwk));
    const signer = await importSigningKey(privateJwk);
    expect(await (await importVerifyingKey(publicJwk)).verify(enc('noble'), await signer.sign(enc('noble')))).toBe(true);
  });

  it('refuses hmac-sha256 (ERR_ALG_NOT_ALLOWED) and unknown names (ERR_ALG_UNKNOWN)', async () => {
    await expectCode(() => generateKeyPair('hmac-sha256' as AlgorithmName), 'ERR_ALG_NOT_ALLOWED');
    await expectCode(() => generateKeyPair('rsa-pss-sha256' as AlgorithmName), 'ERR_ALG_UNKNOWN');
  });
});
