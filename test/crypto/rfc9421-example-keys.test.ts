import { describe, expect, it } from 'vitest';
import ed25519Key from '../../vectors/cloudflare-web-bot-auth/rfc9421-keys/ed25519.json';
import rsaPssKey from '../../vectors/cloudflare-web-bot-auth/rfc9421-keys/rsapss.json';
import { generateKeyPair, isRfc9421TestKey, jwkThumbprint } from '../../src/index';
import type { Jwk } from '../../src/index';
import { RFC9421_TEST_KEY_THUMBPRINTS } from '../../src/crypto/rfc9421-example-keys';

// Public halves of RFC 9421 §B.1.1 and §B.1.3, converted from the RFC's PEM to JWK members.
const TEST_KEY_RSA: Jwk = {
  kty: 'RSA',
  e: 'AQAB',
  n: 'hAKYdtoeoy8zcAcR874L8cnZxKzAGwd7v36APp7Pv6Q2jdsPBRrwWEBnez6d0UDKDwGbc6nxfEXAy5mbhgajzrw3MOEt8uA5txSKobBpKDeBLOsdJKFqMGmXCQvEG7YemcxDTRPxAleIAgYYRjTSd_QBwVW9OwNFhekro3RtlinV0a75jfZgkne_YiktSvLG34lw2zqXBDTC5NHROUqGTlML4PlNZS5Ri2U4aCNx2rUPRcKIlE0PuKxI4T-HIaFpv8-rdV6eUgOrB2xeI1dSFFn_nnv5OoZJEIB-VmuKn3DCUcCZSFlQPSXSfBDiUGhwOw76WuSSsf1D4b_vLoJ10w',
};
const TEST_KEY_ECC_P256: Jwk = {
  kty: 'EC',
  crv: 'P-256',
  x: 'qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA',
  y: 'Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0',
};

describe('RFC 9421 Appendix B.1 test keys', () => {
  const keys: Array<[string, Jwk]> = [
    ['test-key-rsa', TEST_KEY_RSA],
    ['test-key-rsa-pss', rsaPssKey as Jwk],
    ['test-key-ecc-p256', TEST_KEY_ECC_P256],
    ['test-key-ed25519', ed25519Key as Jwk],
  ];

  for (const [name, jwk] of keys) {
    it(`${name}: the stored thumbprint is the key's RFC 7638 thumbprint, and the key is recognised`, async () => {
      const thumbprint = await jwkThumbprint(jwk);
      expect(RFC9421_TEST_KEY_THUMBPRINTS[thumbprint]).toBe(name);
      expect(isRfc9421TestKey(thumbprint)).toBe(true);
      expect(isRfc9421TestKey(jwk), 'private or public JWK').toBe(true);
    });
  }

  it('has exactly the four asymmetric keys', () => {
    expect(Object.values(RFC9421_TEST_KEY_THUMBPRINTS).sort()).toEqual(['test-key-ecc-p256', 'test-key-ed25519', 'test-key-rsa', 'test-key-rsa-pss']);
  });

  it('does not flag other keys, malformed JWKs or odd strings', async () => {
    const { publicJwk, thumbprint } = await generateKeyPair();
    expect(isRfc9421TestKey(publicJwk)).toBe(false);
    expect(isRfc9421TestKey(thumbprint)).toBe(false);
    expect(isRfc9421TestKey({ kty: 'OKP' })).toBe(false);
    expect(isRfc9421TestKey('test-key-ed25519'), 'names are not thumbprints').toBe(false);
    expect(isRfc9421TestKey('__proto__')).toBe(false);
    expect(() => isRfc9421TestKey(42 as unknown as string)).toThrow(TypeError);
  });
});
