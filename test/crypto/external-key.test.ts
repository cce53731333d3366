/**
 * externalSigningKey with keys that cannot leave WebCrypto (`extractable: false`):
 * isomorphic, so the runtime matrix runs it in headless Chromium and workerd too. The
 * private key signs through `crypto.subtle.sign` and never exports; the signatures verify
 * with the public JWK, and a signer using another key is caught.
 */
import { describe, expect, it } from 'vitest';
import { ecdsaDerToRaw } from '../../src/crypto/keys/external';
import { jwkThumbprintSync, signRequest, verifyRequest, externalSigningKey } from '../../src/index';
import type { Jwk } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { enc } from './helpers';

const CASES = [
  { name: 'Ed25519', params: { name: 'Ed25519' }, sign: { name: 'Ed25519' } },
  { name: 'ECDSA P-256', params: { name: 'ECDSA', namedCurve: 'P-256' }, sign: { name: 'ECDSA', hash: 'SHA-256' } },
] as const;

function publicMembers(jwk: JsonWebKey): Jwk {
  const out: Jwk = { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x! };
  if (jwk.y !== undefined) out.y = jwk.y;
  return out;
}

describe.each(CASES)('externalSigningKey over a non-extractable WebCrypto key ($name)', ({ params, sign }) => {
  it('signs, never exports, and verifies with the public JWK', async () => {
    const pair = (await crypto.subtle.generateKey(params, false, ['sign', 'verify'])) as CryptoKeyPair;
    expect(pair.privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('jwk', pair.privateKey)).rejects.toThrow();
    const publicJwk = publicMembers(await crypto.subtle.exportKey('jwk', pair.publicKey));
    const key = await externalSigningKey({
      publicJwk,
      sign: async (data) => new Uint8Array(await crypto.subtle.sign(sign, pair.privateKey, data as Uint8Array<ArrayBuffer>)),
    });
    expect(key.thumbprint).toBe(jwkThumbprintSync(publicJwk));
    // The same key through importSigningKey(pair) (its public half exports) has the same keyid.
    expect((await importSigningKey(pair)).thumbprint).toBe(key.thumbprint);

    const verifying = await importVerifyingKey(publicJwk);
    const signature = await key.sign(enc('a signature base'));
    expect(await verifying.verify(enc('a signature base'), signature)).toBe(true);
    expect(await verifying.verify(enc('another base'), signature)).toBe(false);

    const request = new Request('https://origin.example/');
    const headers = await signRequest(request, { key, signatureAgent: 'https://agent.example' });
    for (const [n, v] of Object.entries(headers)) request.headers.set(n, v);
    expect((await verifyRequest(request, { keys: [publicJwk] })).outcome).toBe('verified');
  });

  it("refuses a public JWK that is not the signer's (probe), and a signer that changes key later (verify)", async () => {
    const a = (await crypto.subtle.generateKey(params, false, ['sign', 'verify'])) as CryptoKeyPair;
    const b = (await crypto.subtle.generateKey(params, false, ['sign', 'verify'])) as CryptoKeyPair;
    const aJwk = publicMembers(await crypto.subtle.exportKey('jwk', a.publicKey));
    const signWith = (k: CryptoKey) => async (data: Uint8Array) => new Uint8Array(await crypto.subtle.sign(sign, k, data as Uint8Array<ArrayBuffer>));
    await expect(externalSigningKey({ publicJwk: aJwk, sign: signWith(b.privateKey) })).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
    let current = a.privateKey;
    const key = await externalSigningKey({ publicJwk: aJwk, sign: (d) => signWith(current)(d) });
    current = b.privateKey;
    await expect(key.sign(enc('x'))).rejects.toMatchObject({ code: 'ERR_CRYPTO_UNSUPPORTED' });
  });
});

describe('ecdsaDerToRaw (isomorphic)', () => {
  it('pads short integers and strips the sign byte', () => {
    const der = Uint8Array.from([0x30, 0x07, 0x02, 0x01, 0x05, 0x02, 0x02, 0x00, 0x80]);
    const raw = ecdsaDerToRaw(der, 32)!;
    expect(raw.length).toBe(64);
    expect(raw[31]).toBe(5);
    expect(raw[63]).toBe(0x80);
    expect(raw.slice(0, 31).every((b) => b === 0) && raw.slice(32, 63).every((b) => b === 0)).toBe(true);
    expect(ecdsaDerToRaw(Uint8Array.from([0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x80]), 32)).toBeUndefined(); // negative s
  });
});
