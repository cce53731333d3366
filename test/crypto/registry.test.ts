import { describe, expect, it } from 'vitest';
import { ALGORITHMS, joseAlgToHttpSig, toAlgorithmName } from '../../src/index';
import type { AlgorithmName, Jwk } from '../../src/index';
import { algorithmForJwk, algorithmFromWebCryptoKey, algorithmSpec, inferAlgorithm, jwkFitsAlgorithm } from '../../src/crypto/registry';
import { expectCode } from '../helpers/errors';

const OKP: Jwk = { kty: 'OKP', crv: 'Ed25519', x: 'x' };
const P256: Jwk = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' };
const P384: Jwk = { kty: 'EC', crv: 'P-384', x: 'x', y: 'y' };
const RSA: Jwk = { kty: 'RSA', n: 'n', e: 'AQAB' };

describe('registry: RFC 9421 §6.2.2 algorithm names', () => {
  it('lists the five asymmetric algorithms of RFC 9421 §3.3', () => {
    expect([...ALGORITHMS].sort()).toEqual(['ecdsa-p256-sha256', 'ecdsa-p384-sha384', 'ed25519', 'rsa-pss-sha512', 'rsa-v1_5-sha256']);
    expect(Object.isFrozen(ALGORITHMS)).toBe(true);
  });

  it('toAlgorithmName accepts each registered name exactly', () => {
    for (const alg of ALGORITHMS) expect(toAlgorithmName(alg)).toBe(alg);
  });

  it('toAlgorithmName refuses hmac-sha256 with ERR_ALG_NOT_ALLOWED (RFC 9421 §3.3.3; shared secrets forbidden)', async () => {
    await expectCode(() => toAlgorithmName('hmac-sha256'), 'ERR_ALG_NOT_ALLOWED');
  });

  it('toAlgorithmName gives ERR_ALG_UNKNOWN for other names (names are case-sensitive)', async () => {
    for (const name of ['ED25519', 'EdDSA', 'rsa-pss-sha256', '', 'constructor', '__proto__', 'toString', 'ecdsa-p521-sha512']) {
      await expectCode(() => toAlgorithmName(name), 'ERR_ALG_UNKNOWN', name);
    }
  });

  it('toAlgorithmName throws TypeError for non-strings', () => {
    expect(() => toAlgorithmName(42 as unknown as string)).toThrow(TypeError);
  });
});

describe('registry: JOSE names (RFC 7518 §3.1, RFC 8037 §3.1)', () => {
  it('maps EdDSA/Ed25519, ES256, ES384, PS512, RS256', () => {
    expect(joseAlgToHttpSig('EdDSA')).toBe('ed25519');
    expect(joseAlgToHttpSig('Ed25519')).toBe('ed25519');
    expect(joseAlgToHttpSig('ES256')).toBe('ecdsa-p256-sha256');
    expect(joseAlgToHttpSig('ES384')).toBe('ecdsa-p384-sha384');
    expect(joseAlgToHttpSig('PS512')).toBe('rsa-pss-sha512');
    expect(joseAlgToHttpSig('RS256')).toBe('rsa-v1_5-sha256');
  });

  it('gives undefined for JOSE algorithms without an RFC 9421 equivalent, and for RFC 9421 names', () => {
    for (const name of ['PS256', 'RS512', 'ES512', 'HS256', 'none', 'ed25519', 'hasOwnProperty']) expect(joseAlgToHttpSig(name), name).toBeUndefined();
  });

  it('round-trips through the JOSE name of each algorithm', () => {
    for (const alg of ALGORITHMS) expect(joseAlgToHttpSig(algorithmSpec(alg).jose)).toBe(alg);
  });
});

describe('registry: inferAlgorithm and jwkFitsAlgorithm', () => {
  it('infers from OKP/Ed25519 and EC P-256/P-384 keys', () => {
    expect(inferAlgorithm(OKP)).toBe('ed25519');
    expect(inferAlgorithm(P256)).toBe('ecdsa-p256-sha256');
    expect(inferAlgorithm(P384)).toBe('ecdsa-p384-sha384');
  });

  it('does not guess for RSA keys (PSS and v1.5 both fit) nor for other curves', () => {
    expect(inferAlgorithm(RSA)).toBeUndefined();
    expect(inferAlgorithm({ kty: 'EC', crv: 'P-521' })).toBeUndefined();
    expect(inferAlgorithm({ kty: 'OKP', crv: 'X25519' })).toBeUndefined();
    expect(inferAlgorithm({ kty: 'oct' })).toBeUndefined();
  });

  it('uses the JWK alg member, in RFC 9421 or JOSE form', () => {
    expect(inferAlgorithm({ ...RSA, alg: 'PS512' })).toBe('rsa-pss-sha512');
    expect(inferAlgorithm({ ...RSA, alg: 'rsa-v1_5-sha256' })).toBe('rsa-v1_5-sha256');
    expect(inferAlgorithm({ ...OKP, alg: 'EdDSA' })).toBe('ed25519');
    expect(inferAlgorithm({ ...OKP, alg: 'PS256' })).toBeUndefined();
  });

  it('jwkFitsAlgorithm checks kty and crv for every pair', () => {
    const keys: Array<[Jwk, AlgorithmName[]]> = [
      [OKP, ['ed25519']],
      [P256, ['ecdsa-p256-sha256']],
      [P384, ['ecdsa-p384-sha384']],
      [RSA, ['rsa-pss-sha512', 'rsa-v1_5-sha256']],
    ];
    for (const [jwk, fits] of keys) {
      for (const alg of ALGORITHMS) expect(jwkFitsAlgorithm(jwk, alg), `${jwk.kty}/${jwk.crv} with ${alg}`).toBe(fits.includes(alg));
    }
  });
});

describe('registry: algorithmForJwk', () => {
  it('refuses symmetric keys and HMAC algs with ERR_ALG_NOT_ALLOWED', async () => {
    await expectCode(() => algorithmForJwk({ kty: 'oct', k: 'AAAA' }), 'ERR_ALG_NOT_ALLOWED');
    await expectCode(() => algorithmForJwk({ ...OKP, alg: 'HS256' }), 'ERR_ALG_NOT_ALLOWED');
    await expectCode(() => algorithmForJwk({ ...OKP, alg: 'hmac-sha256' }), 'ERR_ALG_NOT_ALLOWED');
  });

  it('needs an alg for RSA keys (ERR_ALG_UNKNOWN) and accepts the requested one', async () => {
    await expectCode(() => algorithmForJwk(RSA), 'ERR_ALG_UNKNOWN');
    expect(algorithmForJwk(RSA, 'rsa-pss-sha512')).toBe('rsa-pss-sha512');
    expect(algorithmForJwk({ ...RSA, alg: 'RS256' })).toBe('rsa-v1_5-sha256');
  });

  it('reports ERR_ALG_MISMATCH when key type, JWK alg and requested alg disagree', async () => {
    await expectCode(() => algorithmForJwk(OKP, 'ecdsa-p256-sha256'), 'ERR_ALG_MISMATCH');
    await expectCode(() => algorithmForJwk(P256, 'ecdsa-p384-sha384'), 'ERR_ALG_MISMATCH');
    await expectCode(() => algorithmForJwk({ ...P384, alg: 'ES256' }), 'ERR_ALG_MISMATCH');
    await expectCode(() => algorithmForJwk({ ...RSA, alg: 'PS512' }, 'rsa-v1_5-sha256'), 'ERR_ALG_MISMATCH');
    await expectCode(() => algorithmForJwk({ ...RSA, alg: 'ed25519' }), 'ERR_ALG_MISMATCH');
  });

  it('gives ERR_ALG_UNKNOWN for an unsupported JWK alg and ERR_KEY_INVALID for an unsupported key type', async () => {
    await expectCode(() => algorithmForJwk({ ...RSA, alg: 'PS256' }), 'ERR_ALG_UNKNOWN');
    await expectCode(() => algorithmForJwk({ kty: 'EC', crv: 'secp256k1' }), 'ERR_KEY_INVALID');
  });
});

describe('registry: parameter table', () => {
  it('fixes signature sizes: 64 bytes for Ed25519 and P-256, 96 for P-384 (raw r‖s, RFC 9421 §3.3.4–§3.3.6)', () => {
    expect(algorithmSpec('ed25519').signatureBytes).toBe(64);
    expect(algorithmSpec('ecdsa-p256-sha256').signatureBytes).toBe(64);
    expect(algorithmSpec('ecdsa-p384-sha384').signatureBytes).toBe(96);
    expect(algorithmSpec('ecdsa-p256-sha256').node.dsaEncoding).toBe('ieee-p1363');
  });

  it('uses MGF1-SHA-512 with a 64-byte salt for rsa-pss-sha512 (RFC 9421 §3.3.1)', () => {
    const spec = algorithmSpec('rsa-pss-sha512');
    expect(spec.webCrypto.importParams).toMatchObject({ name: 'RSA-PSS', hash: 'SHA-512' });
    expect(spec.webCrypto.signParams).toMatchObject({ name: 'RSA-PSS', saltLength: 64 });
    expect(spec.node).toMatchObject({ hash: 'sha512', padding: 'pss', saltLength: 64 });
  });

  it('maps WebCrypto key algorithms back to RFC 9421 names', () => {
    expect(algorithmFromWebCryptoKey({ name: 'Ed25519' })).toBe('ed25519');
    expect(algorithmFromWebCryptoKey({ name: 'ECDSA', namedCurve: 'P-384' } as KeyAlgorithm)).toBe('ecdsa-p384-sha384');
    expect(algorithmFromWebCryptoKey({ name: 'RSA-PSS', hash: { name: 'SHA-512' } } as KeyAlgorithm)).toBe('rsa-pss-sha512');
    expect(algorithmFromWebCryptoKey({ name: 'RSA-PSS', hash: { name: 'SHA-256' } } as KeyAlgorithm)).toBeUndefined();
    expect(algorithmFromWebCryptoKey({ name: 'RSASSA-PKCS1-v1_5', hash: { name: 'SHA-256' } } as KeyAlgorithm)).toBe('rsa-v1_5-sha256');
    expect(algorithmFromWebCryptoKey({ name: 'HMAC' })).toBeUndefined();
  });

  it('throws TypeError for a name outside the table', () => {
    expect(() => algorithmSpec('hmac-sha256' as AlgorithmName)).toThrow(TypeError);
  });
});
