/**
 * An RSA public JWK without `alg` (RFC 9421 B.1.2 as printed, common in the wild)
 * verifies through verifyRequest: the signature names the algorithm (RFC 9421 §3.2
 * step 6), and the key serves it when its type allows.
 */
import { describe, expect, it } from 'vitest';
import rfc9421 from '../../vectors/rfc9421.json';
import webBotAuth from '../../vectors/web-bot-auth.json';
import { generateKeyPair, verifyRequest } from '../../src/index';
import type { Jwk } from '../../src/index';
import { parseRawHttpMessage } from '../../src/httpsig';

// The public members of the RFC 9421 B.1.2 JWK figure (kty, kid, e, n; no alg).
const RSA_PSS_JWK = (rfc9421.keys as unknown as Array<{ id: string; publicJwk: Jwk }>).find((k) => k.id === 'test-key-rsa-pss')!.publicJwk;
const vectors = webBotAuth.vectors as unknown as Array<{ id: string; message: string[]; created: number; expires: number }>;
const req = (lines: string[]) => parseRawHttpMessage(lines.join('\n'), { scheme: 'https' });

describe('verifyRequest with an RSA JWK without alg', () => {
  for (const id of ['wba-rsa-pss-legacy', 'wba-rsa-pss-dictionary']) {
    it(`${id}: verifies with the key exactly as RFC 9421 B.1.2 prints it`, async () => {
      const v = vectors.find((x) => x.id === id)!;
      expect(RSA_PSS_JWK).not.toHaveProperty('alg');
      const result = await verifyRequest(req(v.message), {
        keys: [RSA_PSS_JWK],
        allowTestKeys: true,
        now: () => v.created * 1000,
        maxValiditySeconds: v.expires - v.created,
      });
      expect(result.signatures[0]?.error).toBeUndefined();
      expect(result.outcome).toBe('verified');
    });
  }

  it('no alg in the signature either → invalid, ERR_ALG_UNKNOWN (RFC 9421 §3.2 step 6)', async () => {
    const v = vectors.find((x) => x.id === 'wba-rsa-pss-legacy')!;
    const lines = v.message.map((l) => (l.startsWith('Signature-Input:') ? l.replace(';alg="rsa-pss-sha512"', '') : l));
    const result = await verifyRequest(req(lines), { keys: [RSA_PSS_JWK], allowTestKeys: true, now: () => v.created * 1000 });
    expect(result.outcome).toBe('invalid');
    expect(result.signatures[0]?.error?.code).toBe('ERR_ALG_UNKNOWN');
  });

  it('a signature naming ed25519 for that RSA key → ERR_ALG_MISMATCH', async () => {
    const v = vectors.find((x) => x.id === 'wba-rsa-pss-legacy')!;
    const lines = v.message.map((l) => (l.startsWith('Signature-Input:') ? l.replace('alg="rsa-pss-sha512"', 'alg="ed25519"') : l));
    const result = await verifyRequest(req(lines), { keys: [RSA_PSS_JWK], allowTestKeys: true, now: () => v.created * 1000 });
    expect(result.signatures[0]?.error?.code).toBe('ERR_ALG_MISMATCH');
  });

  it('static keys with JOSE alg names are accepted; a wrong or HMAC alg is a TypeError', async () => {
    const { publicJwk } = await generateKeyPair('ed25519');
    const r = { method: 'GET', url: 'https://a.example/', headers: {} };
    await expect(verifyRequest(r, { keys: [{ ...publicJwk, alg: 'EdDSA' }] })).resolves.toBeDefined();
    await expect(verifyRequest(r, { keys: [{ ...RSA_PSS_JWK, alg: 'PS512' }] })).resolves.toBeDefined();
    await expect(verifyRequest(r, { keys: [{ ...RSA_PSS_JWK, alg: 'RS256' }] })).resolves.toBeDefined();
    await expect(verifyRequest(r, { keys: [{ ...publicJwk, alg: 'ES256' }] })).rejects.toThrow(TypeError);
    await expect(verifyRequest(r, { keys: [{ ...publicJwk, alg: 'hmac-sha256' }] })).rejects.toThrow(TypeError);
  });
});
