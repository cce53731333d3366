import fc from 'fast-check';
import { calculateJwkThumbprint } from 'jose';
import { describe, expect, it } from 'vitest';
import cloudflareVectors from '../../vectors/cloudflare-web-bot-auth/jsonwebkey-thumbprint-vectors.json';
import rfc7638 from '../../vectors/rfc7638.json';
import rfc8037 from '../../vectors/rfc8037.json';
import { isBotsigError, jwkThumbprint, jwkThumbprintSync } from '../../src/index';
import type { Jwk } from '../../src/index';
import { thumbprintInput } from '../../src/crypto/thumbprint';
import { enc, hex } from './helpers';
import { expectCode } from '../helpers/errors';

async function sha256Hex(text: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest('SHA-256', enc(text) as Uint8Array<ArrayBuffer>)));
}

describe('thumbprint: RFC 7638 vectors (vectors/rfc7638.json)', () => {
  for (const v of rfc7638.cases) {
    it(`${v.source}: ${v.name}`, async () => {
      const jwk = v.jwk as Jwk;
      expect(thumbprintInput(jwk), 'canonical JSON, RFC 7638 §3.2').toBe(v.canonical);
      expect(await sha256Hex(v.canonical), 'SHA-256 of the canonical JSON').toBe(v.sha256);
      expect(await jwkThumbprint(jwk)).toBe(v.thumbprint);
      expect(jwkThumbprintSync(jwk)).toBe(v.thumbprint);
    });
  }

  for (const v of rfc7638.invalid) {
    it(`rejects ${v.name} with ERR_KEY_INVALID (${v.source})`, async () => {
      await expectCode(() => jwkThumbprint(v.jwk as Jwk), 'ERR_KEY_INVALID');
      await expectCode(() => jwkThumbprintSync(v.jwk as Jwk), 'ERR_KEY_INVALID');
    });
  }
});

describe('thumbprint: RFC 8037 §A.3 (vectors/rfc8037.json)', () => {
  it('computes the OKP thumbprint from crv, kty, x', async () => {
    const t = rfc8037.thumbprint;
    expect(thumbprintInput(rfc8037.key.publicJwk as Jwk), t.source).toBe(t.canonical);
    expect(await sha256Hex(t.canonical)).toBe(t.sha256);
    expect(await jwkThumbprint(rfc8037.key.publicJwk as Jwk)).toBe(t.thumbprint);
    expect(jwkThumbprintSync(rfc8037.key.publicJwk as Jwk)).toBe(t.thumbprint);
  });

  it('ignores private and optional members (RFC 7638 §3.3)', () => {
    const withExtras: Jwk = { ...rfc8037.key.privateJwk, kid: 'anything', alg: 'EdDSA', use: 'sig', key_ops: ['sign'] };
    expect(jwkThumbprintSync(withExtras)).toBe(rfc8037.thumbprint.thumbprint);
  });
});

describe('thumbprint: cloudflare/web-bot-auth jsonwebkey-thumbprint vectors (vectors/cloudflare-web-bot-auth)', () => {
  for (const v of cloudflareVectors) {
    it(`${v.name}: canonical bytes, SHA-256 and thumbprint`, async () => {
      const jwk = JSON.parse(v.jwk) as Jwk;
      expect(hex(enc(thumbprintInput(jwk)))).toBe(v.precompute);
      expect(await sha256Hex(thumbprintInput(jwk))).toBe(v.sha256);
      expect(await jwkThumbprint(jwk)).toBe(v.thumbprint);
      expect(jwkThumbprintSync(jwk)).toBe(v.thumbprint);
    });
  }
});

const b64url = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('')),
  minLength: 1,
  maxLength: 400,
});
// jose only hashes ASCII; printable ASCII still exercises JSON escaping of '"' and '\\'.
const member = fc.oneof(b64url, fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 40 }));
const extras = fc.dictionary(fc.constantFrom('kid', 'alg', 'use', 'd', 'p', 'q', 'zz', 'a'), fc.oneof(fc.string(), fc.integer()), { maxKeys: 4 });
const jwkArb: fc.Arbitrary<Jwk> = fc.oneof(
  fc.tuple(member, member, extras).map(([n, e, x]) => ({ ...x, kty: 'RSA', n, e }) as Jwk),
  fc.tuple(fc.constantFrom('P-256', 'P-384', 'P-521'), member, member, extras).map(([crv, x, y, rest]) => ({ ...rest, kty: 'EC', crv, x, y }) as Jwk),
  fc.tuple(fc.constantFrom('Ed25519', 'Ed448', 'X25519'), member, extras).map(([crv, x, rest]) => ({ ...rest, kty: 'OKP', crv, x }) as Jwk),
);

describe('thumbprint: jose.calculateJwkThumbprint as an independent oracle', () => {
  it('agrees on random RSA, EC and OKP JWKs (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(jwkArb, async (jwk) => {
        const ours = jwkThumbprintSync(jwk);
        expect(ours).toBe(await calculateJwkThumbprint(jwk as Parameters<typeof calculateJwkThumbprint>[0], 'sha256'));
        expect(await jwkThumbprint(jwk)).toBe(ours);
      }),
      { numRuns: 300 },
    );
  });
});

describe('thumbprint: hostile input', () => {
  it('throws only BotsigError for any object, TypeError for non-objects (fast-check)', () => {
    let rejected = 0;
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.dictionary(fc.constantFrom('kty', 'crv', 'x', 'y', 'n', 'e'), fc.anything())), (value) => {
        try {
          expect(typeof jwkThumbprintSync(value as Jwk)).toBe('string');
        } catch (error) {
          if (typeof value === 'object' && value !== null) expect(isBotsigError(error), String(error)).toBe(true);
          else expect(error).toBeInstanceOf(TypeError);
          rejected++;
        }
      }),
      { numRuns: 1000 },
    );
    // Random values are not JWKs: a thumbprint that stopped rejecting them fails here.
    expect(rejected).toBeGreaterThan(0);
  });

  it('rejects empty, non-string and oversized members', async () => {
    await expectCode(() => jwkThumbprintSync({ kty: 'OKP', crv: 'Ed25519', x: '' }), 'ERR_KEY_INVALID');
    await expectCode(() => jwkThumbprintSync({ kty: 'OKP', crv: 'Ed25519', x: ['a'] } as unknown as Jwk), 'ERR_KEY_INVALID');
    await expectCode(() => jwkThumbprintSync({ kty: 'RSA', e: 'AQAB', n: 'A'.repeat(20_000) }), 'ERR_KEY_INVALID');
    await expectCode(() => jwkThumbprintSync({ kty: 'oct', k: 'AAAA' }), 'ERR_KEY_INVALID');
    await expectCode(() => jwkThumbprintSync({ kty: '__proto__' }), 'ERR_KEY_INVALID');
  });
});
