/**
 * Pins for the structural check of configured public keys (src/profile/key-check.ts) that
 * the mutation run showed unpinned (issue 20): each problem it names, at its boundary
 * (32-byte Ed25519 keys, 32/48-byte EC coordinates, a 2048-bit RSA modulus, an RSA
 * exponent of 1 to 8 bytes), and that `verifyRequest` refuses such a key at once with
 * that reason (a TypeError naming the key's index).
 */
import { describe, expect, it } from 'vitest';
import { base64UrlEncode } from '../helpers/bytes';
import { verifyRequest } from '../../src/index';
import type { Jwk } from '../../src/index';
import { publicJwkProblem } from '../../src/profile/key-check';

const bytes = (n: number): string => base64UrlEncode(new Uint8Array(n).fill(7));
const okp = (extra: Partial<Jwk> = {}): Jwk => ({ kty: 'OKP', crv: 'Ed25519', x: bytes(32), ...extra });
const ec = (crv: string, x: number, y: number, extra: Partial<Jwk> = {}): Jwk => ({ kty: 'EC', crv, x: bytes(x), y: bytes(y), ...extra });
const rsa = (n: number, e: number | string, extra: Partial<Jwk> = {}): Jwk => ({ kty: 'RSA', n: bytes(n), e: typeof e === 'string' ? e : bytes(e), ...extra });

describe('what is not a key', () => {
  it('not an object; no kty, or a kty that is not a string', () => {
    expect(publicJwkProblem(null as never)).toBe('is not an object');
    expect(publicJwkProblem('x' as never)).toBe('is not an object');
    expect(publicJwkProblem({} as Jwk)).toBe('has no kty');
    expect(publicJwkProblem({ kty: 1 } as never)).toBe('has no kty');
  });

  it('a private key (d, p or q) is refused, whatever its type', () => {
    for (const member of ['d', 'p', 'q']) expect(publicJwkProblem(okp({ [member]: bytes(32) }))).toBe('is a private key; configure the public key only');
  });

  it('a key type other than OKP, EC and RSA', () => {
    expect(publicJwkProblem({ kty: 'oct', k: bytes(32) } as Jwk)).toBe('has key type "oct"; only OKP, EC and RSA keys can verify');
  });
});

describe('OKP: Ed25519 with a 32-byte x', () => {
  it('32 bytes is sound; 31, 33, none, empty or not base64url is not', () => {
    expect(publicJwkProblem(okp())).toBeUndefined();
    for (const x of [bytes(31), bytes(33), undefined, '', '!!!!', 5]) {
      expect(publicJwkProblem(okp({ x: x as string }))).toBe('has an x member that is not 32 base64url-encoded bytes');
    }
  });

  it('another curve', () => {
    expect(publicJwkProblem(okp({ crv: 'X25519' }))).toBe('has curve "X25519"; only Ed25519 OKP keys can verify');
    expect(publicJwkProblem({ kty: 'OKP', x: bytes(32) } as Jwk)).toBe('has curve undefined; only Ed25519 OKP keys can verify');
  });
});

describe('EC: P-256 (32-byte coordinates) and P-384 (48-byte)', () => {
  it('each curve with its own size is sound', () => {
    expect(publicJwkProblem(ec('P-256', 32, 32))).toBeUndefined();
    expect(publicJwkProblem(ec('P-384', 48, 48))).toBeUndefined();
  });

  it('x or y of another size', () => {
    expect(publicJwkProblem(ec('P-256', 31, 32))).toBe('has x and y members that are not 32 base64url-encoded bytes each');
    expect(publicJwkProblem(ec('P-256', 32, 33))).toBe('has x and y members that are not 32 base64url-encoded bytes each');
    expect(publicJwkProblem(ec('P-384', 32, 32))).toBe('has x and y members that are not 48 base64url-encoded bytes each');
  });

  it('another curve, no curve, or a curve that is not a string', () => {
    expect(publicJwkProblem(ec('P-521', 66, 66))).toBe('has curve "P-521"; only P-256 and P-384 EC keys can verify');
    expect(publicJwkProblem({ kty: 'EC', x: bytes(32), y: bytes(32) } as Jwk)).toBe('has curve undefined; only P-256 and P-384 EC keys can verify');
    expect(publicJwkProblem(ec(1 as never, 32, 32))).toBe('has curve 1; only P-256 and P-384 EC keys can verify');
    // A name of Object.prototype is not a curve.
    expect(publicJwkProblem(ec('toString', 32, 32))).toBe('has curve "toString"; only P-256 and P-384 EC keys can verify');
  });
});

describe('RSA: a modulus of at least 2048 bits, an exponent of 1 to 8 bytes', () => {
  it('256 bytes of modulus and a 3-byte or 8-byte exponent are sound', () => {
    expect(publicJwkProblem(rsa(256, 'AQAB'))).toBeUndefined();
    expect(publicJwkProblem(rsa(256, 8))).toBeUndefined();
    expect(publicJwkProblem(rsa(256, 1))).toBeUndefined();
  });

  it('255 bytes of modulus, or none', () => {
    expect(publicJwkProblem(rsa(255, 'AQAB'))).toBe('has no RSA modulus of at least 2048 bits');
    expect(publicJwkProblem({ kty: 'RSA', e: 'AQAB' } as Jwk)).toBe('has no RSA modulus of at least 2048 bits');
  });

  it('an exponent of 9 bytes, none, or empty', () => {
    expect(publicJwkProblem(rsa(256, 9))).toBe('has no valid RSA public exponent');
    expect(publicJwkProblem({ kty: 'RSA', n: bytes(256) } as Jwk)).toBe('has no valid RSA public exponent');
    expect(publicJwkProblem(rsa(256, ''))).toBe('has no valid RSA public exponent');
  });
});

describe('alg, when the JWK names one', () => {
  it('an RFC 9421 or a JOSE name that fits the key is sound', () => {
    expect(publicJwkProblem(okp({ alg: 'ed25519' }))).toBeUndefined();
    expect(publicJwkProblem(okp({ alg: 'EdDSA' }))).toBeUndefined();
    expect(publicJwkProblem(ec('P-256', 32, 32, { alg: 'ES256' }))).toBeUndefined();
    expect(publicJwkProblem(rsa(256, 'AQAB', { alg: 'PS512' }))).toBeUndefined();
  });

  it('a name that is neither', () => {
    expect(publicJwkProblem(okp({ alg: 'nope' }))).toBe('has an alg ("nope") that is neither an RFC 9421 nor a JOSE signature algorithm name');
  });

  it('a name that does not fit the key: with its curve when it has one', () => {
    expect(publicJwkProblem(okp({ alg: 'ES256' }))).toBe('has alg ecdsa-p256-sha256, which does not fit a OKP key on curve Ed25519');
    expect(publicJwkProblem(ec('P-384', 48, 48, { alg: 'ES256' }))).toBe('has alg ecdsa-p256-sha256, which does not fit a EC key on curve P-384');
    expect(publicJwkProblem(rsa(256, 'AQAB', { alg: 'ed25519' }))).toBe('has alg ed25519, which does not fit a RSA key');
  });
});

describe('verifyRequest refuses such a key at once', () => {
  it('a TypeError naming the key and its problem', async () => {
    const run = async (): Promise<unknown> =>
      verifyRequest({ method: 'GET', url: 'https://example.com/', headers: {} }, { keys: [okp(), okp({ x: bytes(31) })] });
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('options.keys[1] has an x member that is not 32 base64url-encoded bytes');
  });
});
