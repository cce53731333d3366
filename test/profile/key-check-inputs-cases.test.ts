/**
 * publicJwkProblem (src/profile/key-check.ts), issue 20 sweep: an EC curve is a curve name
 * (RFC 7518 §6.2.1.1: "crv" is a string), so a value that only turns into one ("P-256" in
 * an array) names no curve.
 */
import { describe, expect, it } from 'vitest';
import type { Jwk } from '../../src/index';
import { publicJwkProblem } from '../../src/profile/key-check';
import { base64UrlEncode } from '../helpers/bytes';

const bytes = (n: number): string => base64UrlEncode(new Uint8Array(n).fill(7));

describe('EC crv', () => {
  it('an array holding a curve name is not a curve name', () => {
    const jwk = { kty: 'EC', crv: ['P-256'], x: bytes(32), y: bytes(32) } as unknown as Jwk;
    expect(publicJwkProblem(jwk)).toBe('has curve ["P-256"]; only P-256 and P-384 EC keys can verify');
  });
});
