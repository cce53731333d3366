import { constants, createPublicKey, generateKeyPairSync, verify as nodeVerify } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import rfc8037 from '../../vectors/rfc8037.json';
import { getCryptoProvider, setCryptoProvider, webCryptoProvider, ALGORITHMS } from '../../src/index';
import type { AlgorithmName, CryptoProvider, Jwk } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { nobleEd25519Provider } from '../../src/sync';
import { installNodeCryptoProvider, nodeCryptoProvider } from '../../src/node/crypto-provider';
import { b64urlToBytes, enc } from '../crypto/helpers';
import { expectCode } from '../helpers/errors';
import { signatureCases } from '../crypto/rfc9421-vectors';

// Keys made by node:crypto itself, so the node provider is not only fed WebCrypto's output.
const NODE_KEYGEN: Record<AlgorithmName, () => { privateKey: import('node:crypto').KeyObject }> = {
  ed25519: () => generateKeyPairSync('ed25519'),
  'ecdsa-p256-sha256': () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  'ecdsa-p384-sha384': () => generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  'rsa-pss-sha512': () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
  'rsa-v1_5-sha256': () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
};

const keys = new Map<AlgorithmName, { privateJwk: Jwk; publicJwk: Jwk }>();
beforeAll(() => {
  for (const alg of ALGORITHMS) {
    const { privateKey } = NODE_KEYGEN[alg]();
    const privateJwk = { ...(privateKey.export({ format: 'jwk' }) as Jwk), alg };
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk as Record<string, unknown>;
    keys.set(alg, { privateJwk, publicJwk: publicJwk as Jwk });
  }
});
afterEach(() => setCryptoProvider(webCryptoProvider));

const others = (alg: AlgorithmName): CryptoProvider[] => (alg === 'ed25519' ? [webCryptoProvider, nobleEd25519Provider] : [webCryptoProvider]);

describe('node:crypto provider: cross-provider compatibility', () => {
  for (const alg of ALGORITHMS) {
    it(`${alg}: node signs → WebCrypto${alg === 'ed25519' ? ' and noble' : ''} verify, and the reverse`, async () => {
      const { privateJwk, publicJwk } = keys.get(alg)!;
      const data = enc(`"@method": GET\n"@signature-params": ();alg="${alg}"`);
      const nodeSigner = await importSigningKey(privateJwk, { provider: nodeCryptoProvider });
      const nodeVerifier = await importVerifyingKey(publicJwk, { provider: nodeCryptoProvider });
      expect(typeof nodeSigner.signSync, 'node keys sign synchronously').toBe('function');
      for (const provider of others(alg)) {
        const signer = await importSigningKey(privateJwk, { provider });
        const verifier = await importVerifyingKey(publicJwk, { provider });
        expect(verifier.thumbprint).toBe(nodeVerifier.thumbprint);
        const fromNode = await nodeSigner.sign(data);
        expect(fromNode).toBeInstanceOf(Uint8Array);
        expect(fromNode.constructor, 'a plain Uint8Array, not a Buffer').toBe(Uint8Array);
        expect(await verifier.verify(data, fromNode), `node → ${provider.name}`).toBe(true);
        const fromOther = await signer.sign(data);
        expect(await nodeVerifier.verify(data, fromOther), `${provider.name} → node`).toBe(true);
        expect(fromOther.length, 'same signature size').toBe(fromNode.length);
        if (alg === 'ed25519' || alg === 'rsa-v1_5-sha256') expect(fromOther, 'deterministic algorithms give identical bytes').toEqual(fromNode);
      }
    });
  }

  it('ECDSA signatures are raw r‖s (IEEE P1363), 64 and 96 bytes (RFC 9421 §3.3.4, §3.3.5)', async () => {
    for (const [alg, size] of [
      ['ecdsa-p256-sha256', 64],
      ['ecdsa-p384-sha384', 96],
    ] as const) {
      const signer = await importSigningKey(keys.get(alg)!.privateJwk, { provider: nodeCryptoProvider });
      const signature = signer.signSync!(enc('p1363'));
      expect(signature.length).toBe(size);
      expect(signature[0] === 0x30 && signature[1] === size - 2, 'not a DER SEQUENCE').toBe(false);
    }
  });

  it('RSA-PSS uses a 64-byte salt with MGF1-SHA-512 (RFC 9421 §3.3.1)', async () => {
    const { privateJwk, publicJwk } = keys.get('rsa-pss-sha512')!;
    const data = enc('pss salt');
    const publicKey = createPublicKey({ key: publicJwk as import('node:crypto').JsonWebKey, format: 'jwk' });
    for (const provider of [nodeCryptoProvider, webCryptoProvider]) {
      const signature = await (await importSigningKey(privateJwk, { provider })).sign(data);
      const check = (saltLength: number) => nodeVerify('sha512', data, { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }, signature);
      expect(check(64), `${provider.name}: salt 64`).toBe(true);
      expect(check(32), `${provider.name}: not salt 32`).toBe(false);
    }
  });

  it('RFC 8037 §A.4: node reproduces the Ed25519 JWS signature', async () => {
    const signer = await importSigningKey(rfc8037.key.privateJwk, { provider: nodeCryptoProvider });
    expect(signer.signSync!(enc(rfc8037.sign.signingInput))).toEqual(b64urlToBytes(rfc8037.sign.signature));
  });

  for (const c of signatureCases) {
    it(`${c.source} (${c.id}, ${c.alg}) verifies with node:crypto${c.reproduce ? ' and is reproduced byte for byte' : ''}`, async () => {
      const verifier = await importVerifyingKey(c.publicJwk, { alg: c.alg, provider: nodeCryptoProvider });
      expect(await verifier.verify(c.base, c.signature)).toBe(true);
      if (c.reproduce) expect(await (await importSigningKey(c.privateJwk, { alg: c.alg, provider: nodeCryptoProvider })).sign(c.base)).toEqual(c.signature);
    });
  }
});

describe('node:crypto provider: hostile input', () => {
  it('maps rejected key material to ERR_KEY_INVALID', async () => {
    const p256 = keys.get('ecdsa-p256-sha256')!.publicJwk;
    await expectCode(() => importVerifyingKey({ ...p256, y: p256.x! }, { provider: nodeCryptoProvider }), 'ERR_KEY_INVALID');
    const rsa = keys.get('rsa-pss-sha512')!.privateJwk;
    await expectCode(
      () => importSigningKey({ ...rsa, n: keys.get('rsa-v1_5-sha256')!.publicJwk.n! }, { provider: nodeCryptoProvider }),
      'ERR_KEY_INVALID',
      'another key modulus',
    );
    const ed = keys.get('ed25519')!.privateJwk;
    await expectCode(() => importSigningKey({ ...ed, x: rfc8037.key.publicJwk.x }, { provider: nodeCryptoProvider }), 'ERR_KEY_INVALID', 'another key x');
  });

  for (const alg of ALGORITHMS) {
    it(`${alg}: random signature bytes verify false and never throw`, async () => {
      const verifier = await importVerifyingKey(keys.get(alg)!.publicJwk, { provider: nodeCryptoProvider });
      const size = alg.startsWith('rsa') ? 256 : alg === 'ecdsa-p384-sha384' ? 96 : 64;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.uint8Array({ minLength: size, maxLength: size }), fc.uint8Array({ maxLength: 300 })),
          fc.uint8Array({ maxLength: 64 }),
          async (signature, data) => {
            expect(await verifier.verify(data, signature)).toBe(false);
          },
        ),
        { numRuns: 200 },
      );
    });
  }
});

describe('node:crypto provider: installation', () => {
  it('installNodeCryptoProvider makes it the default', async () => {
    installNodeCryptoProvider();
    expect(getCryptoProvider()).toBe(nodeCryptoProvider);
    const key = await importSigningKey(keys.get('ed25519')!.privateJwk);
    expect(typeof key.signSync).toBe('function');
  });

  it('setCryptoProvider(webCryptoProvider) puts WebCrypto back as the default', async () => {
    installNodeCryptoProvider();
    setCryptoProvider(webCryptoProvider);
    expect(getCryptoProvider()).toBe(webCryptoProvider);
    expect(webCryptoProvider.name).toBe('webcrypto');
    // WebCrypto signs asynchronously only: a key imported now has no synchronous signer.
    const key = await importSigningKey(keys.get('ed25519')!.privateJwk);
    expect(key.signSync).toBeUndefined();
    expect((await key.sign(new Uint8Array([1, 2, 3]))).length).toBe(64);
    installNodeCryptoProvider();
  });
});
