/**
 * The freshness every response signature gets (src/profile/response/checks.ts, shared by
 * verifyResponse and the directory client), boundary by boundary (issue 20). RFC 9421
 * §2.3: created and expires are whole seconds; the clock is compared at that resolution,
 * with the skew as tolerance on both sides.
 */
import { describe, expect, it } from 'vitest';
import { BotsigError, generateKeyPair } from '../../src/index';
import type { SigningKey, VerifyingKey } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { responseFreshness, verifyResponseBase } from '../../src/profile/response/checks';

const NOW = 1_750_000_000;
const nowMs = NOW * 1000 + 500;
const rules = { skewSeconds: 60 };
const code = (params: { created?: number; expires?: number }, r: Parameters<typeof responseFreshness>[2] = rules, at = nowMs): string | undefined =>
  responseFreshness(params, at, r)?.code;

describe('response signature freshness', () => {
  it('created is required (a signature without it could be replayed forever)', () => {
    expect(responseFreshness({}, nowMs, rules)).toEqual({
      code: 'ERR_CREATED_MISSING',
      message: 'the response signature has no created parameter; it could be replayed forever',
    });
  });

  it('created up to ceil(now) + skew is accepted; one second later is in the future', () => {
    expect(code({ created: NOW + 1 + 60 })).toBeUndefined();
    expect(responseFreshness({ created: NOW + 1 + 61 }, nowMs, rules)).toEqual({
      code: 'ERR_CREATED_IN_FUTURE',
      message: 'the response signature was created in the future',
    });
    expect(code({ created: NOW }, { skewSeconds: 0 }, NOW * 1000)).toBeUndefined();
    expect(code({ created: NOW + 1 }, { skewSeconds: 0 }, NOW * 1000)).toBe('ERR_CREATED_IN_FUTURE');
  });

  it('expires down to floor(now) - skew is accepted; one second earlier has expired', () => {
    expect(code({ created: NOW - 1000, expires: NOW - 60 })).toBeUndefined();
    expect(responseFreshness({ created: NOW - 1000, expires: NOW - 61 }, nowMs, rules)).toEqual({
      code: 'ERR_SIGNATURE_EXPIRED',
      message: 'the response signature has expired',
    });
    expect(code({ created: NOW - 10, expires: NOW }, { skewSeconds: 0 }, NOW * 1000 + 999)).toBeUndefined();
    expect(code({ created: NOW - 10, expires: NOW - 1 }, { skewSeconds: 0 }, NOW * 1000)).toBe('ERR_SIGNATURE_EXPIRED');
  });

  it('expires = created is accepted; expires before created is ERR_PARAM_INVALID', () => {
    expect(code({ created: NOW, expires: NOW })).toBeUndefined();
    expect(responseFreshness({ created: NOW, expires: NOW - 1 }, nowMs, rules)).toEqual({
      code: 'ERR_PARAM_INVALID',
      message: 'the response signature expires before it was created',
    });
  });

  it('maxValiditySeconds: expires - created equal to it is accepted, one more is too long; undefined means any', () => {
    const r = { skewSeconds: 60, maxValiditySeconds: 100 };
    expect(code({ created: NOW - 10, expires: NOW + 90 }, r)).toBeUndefined();
    expect(responseFreshness({ created: NOW - 10, expires: NOW + 91 }, nowMs, r)).toEqual({
      code: 'ERR_VALIDITY_TOO_LONG',
      message: 'the response signature is valid for longer than 100 s',
    });
    expect(code({ created: NOW - 10, expires: NOW + 10 ** 9 })).toBeUndefined();
  });

  it('without expires, maxAgeSeconds: created + maxAge down to floor(now) - skew is accepted, one second older has expired; undefined means forever', () => {
    const r = { skewSeconds: 60, maxAgeSeconds: 300 };
    expect(code({ created: NOW - 360 }, r)).toBeUndefined();
    expect(responseFreshness({ created: NOW - 361 }, nowMs, r)).toEqual({
      code: 'ERR_SIGNATURE_EXPIRED',
      message: 'the response signature has no expires and is older than 300 s',
    });
    expect(code({ created: NOW - 10 ** 9 })).toBeUndefined();
    // With expires, maxAgeSeconds does not apply.
    expect(code({ created: NOW - 10_000, expires: NOW }, r)).toBeUndefined();
  });
});

describe('RFC 9421 §3.2 steps 6–7 for a response signature: the key bound to alg, the algorithm allowed, the bytes', () => {
  async function key(): Promise<{ signing: SigningKey; verifying: VerifyingKey }> {
    const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
    return { signing: await importSigningKey(privateJwk), verifying: await importVerifyingKey(publicJwk) };
  }
  const base = '"@status": 200\n"@signature-params": ("@status");created=1';
  const bytes = new TextEncoder().encode(base);

  it('a good signature: undefined, with or without the key own alg named, allowed or not restricted', async () => {
    const k = await key();
    const sig = await k.signing.sign(bytes);
    expect(await verifyResponseBase(k.verifying, base, sig, undefined)).toBeUndefined();
    expect(await verifyResponseBase(k.verifying, base, sig, 'ed25519', new Set(['ed25519']))).toBeUndefined();
  });

  it('another alg than the key: ERR_ALG_MISMATCH, saying so', async () => {
    const k = await key();
    expect(await verifyResponseBase(k.verifying, base, await k.signing.sign(bytes), 'ecdsa-p256-sha256')).toEqual({
      code: 'ERR_ALG_MISMATCH',
      message: 'the alg parameter does not match the key',
    });
  });

  it('an alg outside the registry: ERR_ALG_UNKNOWN', async () => {
    const k = await key();
    expect((await verifyResponseBase(k.verifying, base, await k.signing.sign(bytes), 'nope'))?.code).toBe('ERR_ALG_UNKNOWN');
  });

  it('a key whose own alg is outside the registry is refused before anything else', async () => {
    const k = await key();
    const odd = { ...k.verifying, alg: 'nope' } as unknown as VerifyingKey;
    expect((await verifyResponseBase(odd, base, await k.signing.sign(bytes), undefined))?.code).toBe('ERR_ALG_UNKNOWN');
  });

  it('a key that names no alg and was not imported by botsig cannot be bound to the alg named', async () => {
    const k = await key();
    const bare = { verify: k.verifying.verify.bind(k.verifying), algorithms: ['ed25519'], thumbprint: k.verifying.thumbprint } as unknown as VerifyingKey;
    const r = await verifyResponseBase(bare, base, await k.signing.sign(bytes), 'ed25519');
    expect(r?.code).toBe('ERR_ALG_UNKNOWN');
    expect(r?.message).toContain('cannot be bound to ed25519');
  });

  it('a key that is not a key is a programmer error (TypeError), not a result', async () => {
    await expect(verifyResponseBase(null as unknown as VerifyingKey, base, new Uint8Array(64), undefined)).rejects.toThrow(TypeError);
  });

  it('an algorithm outside the allowed set: ERR_ALG_NOT_ALLOWED, naming it', async () => {
    const k = await key();
    expect(await verifyResponseBase(k.verifying, base, await k.signing.sign(bytes), undefined, new Set(['rsa-pss-sha512']))).toEqual({
      code: 'ERR_ALG_NOT_ALLOWED',
      message: 'algorithm ed25519 is not allowed here',
    });
  });

  it('bytes that do not verify: ERR_SIGNATURE_INVALID; a verify that throws is the same, except ERR_CRYPTO_UNSUPPORTED which is passed on', async () => {
    const k = await key();
    const sig = await k.signing.sign(bytes);
    const bad = sig.slice();
    bad[0]! ^= 1;
    expect(await verifyResponseBase(k.verifying, base, bad, undefined)).toEqual({
      code: 'ERR_SIGNATURE_INVALID',
      message: 'the response signature does not verify with the key it names',
    });
    const throwing = (error: unknown): VerifyingKey =>
      ({
        alg: 'ed25519',
        thumbprint: k.verifying.thumbprint,
        verify: () => {
          throw error;
        },
      }) as unknown as VerifyingKey;
    expect((await verifyResponseBase(throwing(new Error('boom')), base, sig, undefined))?.code).toBe('ERR_SIGNATURE_INVALID');
    expect((await verifyResponseBase(throwing(new BotsigError('ERR_KEY_INVALID', 'x')), base, sig, undefined))?.code).toBe('ERR_SIGNATURE_INVALID');
    expect(await verifyResponseBase(throwing(new BotsigError('ERR_CRYPTO_UNSUPPORTED', 'no ed25519 here')), base, sig, undefined)).toEqual({
      code: 'ERR_CRYPTO_UNSUPPORTED',
      message: 'no ed25519 here',
    });
  });
});
