import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyForAlgorithm, webCryptoProvider } from '../../src/index';
import type { SigningKey, VerifyingKey } from '../../src/index';
import { importVerifyingKey } from '../../src/httpsig';
import { isSigningKey, isVerifyingKey } from '../../src/crypto/keys/objects';
import { verifyBase } from '../../src/crypto/keys/base';
import { RFC9421_TEST_KEY_THUMBPRINTS } from '../../src/crypto/rfc9421-example-keys';
import { nodeCryptoProvider } from '../../src/node/crypto-provider';
import { fromKeyObject, importPem, importPrivatePem, importPublicPem, keyObjectToJwk } from '../../src/node/keys';
import { enc } from '../crypto/helpers';
import { expectCode } from '../helpers/errors';

const KEYS = resolve(__dirname, '../../vectors/cloudflare-web-bot-auth/rfc9421-keys');
const pem = (name: string): string => readFileSync(resolve(KEYS, name), 'utf8');
const rfc9421 = JSON.parse(readFileSync(resolve(__dirname, '../../vectors/rfc9421.json'), 'utf8')) as {
  keys: Array<{ id: string; pem?: { public?: string[]; private?: string[] } }>;
};
const rfcPem = (id: string, half: 'public' | 'private'): string => rfc9421.keys.find((k) => k.id === id)!.pem![half]!.join('\n');
const thumbprintOf = (name: string): string => Object.entries(RFC9421_TEST_KEY_THUMBPRINTS).find(([, n]) => n === name)![0];

describe('node keys: PEM import (PKCS #8, SPKI, PKCS #1, SEC 1)', () => {
  it('RFC 9421 §B.1.4 Ed25519 PKCS #8 / SPKI PEM give the test-key-ed25519 thumbprint and work together', async () => {
    const signer = (await importPem(pem('ed25519.pem'))) as SigningKey;
    const verifier = (await importPem(pem('ed25519.pub.pem'))) as VerifyingKey;
    expect(isSigningKey(signer)).toBe(true);
    expect(isVerifyingKey(verifier)).toBe(true);
    expect(signer.alg).toBe('ed25519');
    expect(signer.thumbprint).toBe(thumbprintOf('test-key-ed25519'));
    expect(verifier.thumbprint).toBe(signer.thumbprint);
    expect(await verifier.verify(enc('pem'), await signer.sign(enc('pem')))).toBe(true);
    expect(signer.publicJwk).not.toHaveProperty('d');
  });

  it('RFC 9421 §B.1.2 RSASSA-PSS keys (OID 1.2.840.113549.1.1.10) imply rsa-pss-sha512', async () => {
    const signer = await importPrivatePem(pem('rsapss.pem'));
    const verifier = await importPublicPem(pem('rsapss.pub.pem'), { alg: 'rsa-pss-sha512' });
    expect(signer.alg).toBe('rsa-pss-sha512');
    expect(signer.thumbprint).toBe(thumbprintOf('test-key-rsa-pss'));
    expect(verifier.thumbprint).toBe(signer.thumbprint);
    const signature = await signer.sign(enc('pss'));
    expect(await verifier.verify(enc('pss'), signature)).toBe(true);
    const viaWebCrypto = await importVerifyingKey(verifier.jwk, { alg: 'rsa-pss-sha512', provider: webCryptoProvider });
    expect(await viaWebCrypto.verify(enc('pss'), signature)).toBe(true);
    await expectCode(() => importPrivatePem(pem('rsapss.pem'), { alg: 'rsa-v1_5-sha256' }), 'ERR_ALG_MISMATCH');
  });

  it('RFC 9421 §B.1.1 PKCS #1 RSA PEM: signing needs an alg; the public key without one serves the RSA algorithm a signature names', async () => {
    await expectCode(() => importPem(rfcPem('test-key-rsa', 'private')), 'ERR_ALG_UNKNOWN');
    const verifier = await importPublicPem(rfcPem('test-key-rsa', 'public'), { alg: 'rsa-v1_5-sha256' });
    const signer = await importPrivatePem(rfcPem('test-key-rsa', 'private'), { alg: 'rsa-v1_5-sha256' });
    expect(verifier.thumbprint).toBe(thumbprintOf('test-key-rsa'));
    expect(signer.thumbprint).toBe(verifier.thumbprint);
    const signature = await signer.sign(enc('v1.5'));
    expect(await verifier.verify(enc('v1.5'), signature)).toBe(true);
    const unbound = (await importPem(rfcPem('test-key-rsa', 'public'))) as VerifyingKey;
    expect(unbound.alg).toBeUndefined();
    expect(unbound.algorithms).toEqual(['rsa-pss-sha512', 'rsa-v1_5-sha256']);
    expect(unbound.thumbprint).toBe(verifier.thumbprint);
    const bound = keyForAlgorithm(unbound, 'rsa-v1_5-sha256') as VerifyingKey;
    expect(bound.alg).toBe('rsa-v1_5-sha256');
    expect(verifyBase(bound, 'v1.5', signature), 'node:crypto: answered synchronously').toBe(true);
    expect(verifyBase(keyForAlgorithm(unbound, 'rsa-pss-sha512') as VerifyingKey, 'v1.5', signature)).toBe(false);
  });

  it('RFC 9421 §B.1.3 SEC 1 EC PEM gives the test-key-ecc-p256 thumbprint', async () => {
    const signer = await importPrivatePem(rfcPem('test-key-ecc-p256', 'private'));
    const verifier = await importPublicPem(rfcPem('test-key-ecc-p256', 'public'));
    expect(signer.alg).toBe('ecdsa-p256-sha256');
    expect(signer.thumbprint).toBe(thumbprintOf('test-key-ecc-p256'));
    expect(await verifier.verify(enc('ec'), await signer.sign(enc('ec')))).toBe(true);
  });

  it('reads encrypted PKCS #8 with a passphrase', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const encrypted = privateKey.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'secret' }) as string;
    const signer = await importPrivatePem(encrypted, { passphrase: 'secret' });
    expect(signer.alg).toBe('ecdsa-p384-sha384');
    await expectCode(() => importPrivatePem(encrypted), 'ERR_KEY_INVALID');
  });

  it('rejects unreadable PEM with ERR_KEY_INVALID and non-strings with TypeError', async () => {
    await expectCode(() => importPem('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'), 'ERR_KEY_INVALID');
    await expectCode(() => importPem('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----'), 'ERR_KEY_INVALID');
    await expectCode(() => importPem('not a pem'), 'ERR_KEY_INVALID');
    await expect(importPem(undefined as unknown as string)).rejects.toBeInstanceOf(TypeError);
  });

  it('uses the node:crypto provider by default (signSync available)', async () => {
    const signer = (await importPem(pem('ed25519.pem'))) as SigningKey;
    expect(typeof signer.signSync).toBe('function');
    const viaWeb = await importPrivatePem(pem('ed25519.pem'), { provider: webCryptoProvider });
    expect(viaWeb.signSync).toBeUndefined();
  });
});

describe('node keys: KeyObject import', () => {
  it('maps private KeyObjects to SigningKeys and public ones to VerifyingKeys', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const signer = (await fromKeyObject(privateKey)) as SigningKey;
    const verifier = (await fromKeyObject(publicKey)) as VerifyingKey;
    expect(isSigningKey(signer) && isVerifyingKey(verifier)).toBe(true);
    expect(verifier.thumbprint).toBe(signer.thumbprint);
    expect(await verifier.verify(enc('ko'), signer.signSync!(enc('ko')))).toBe(true);
  });

  it('unwraps RSASSA-PSS KeyObjects (node cannot export them as JWK) and checks their parameters', async () => {
    const plain = generateKeyPairSync('rsa-pss', { modulusLength: 2048 });
    expect(keyObjectToJwk(plain.publicKey)).toMatchObject({ kty: 'RSA', e: 'AQAB' });
    expect(keyObjectToJwk(plain.privateKey)).toHaveProperty('d');
    expect((await fromKeyObject(plain.privateKey)).alg).toBe('rsa-pss-sha512');
    const sha512 = generateKeyPairSync('rsa-pss', {
      modulusLength: 2048,
      hashAlgorithm: 'sha512',
      mgf1HashAlgorithm: 'sha512',
      saltLength: 64 as unknown as string,
    });
    expect((await fromKeyObject(sha512.publicKey)).alg).toBe('rsa-pss-sha512');
    const sha256 = generateKeyPairSync('rsa-pss', {
      modulusLength: 2048,
      hashAlgorithm: 'sha256',
      mgf1HashAlgorithm: 'sha256',
      saltLength: 32 as unknown as string,
    }); // @types/node types saltLength as a string
    await expectCode(() => fromKeyObject(sha256.privateKey), 'ERR_ALG_MISMATCH');
  });

  it('refuses secret KeyObjects (ERR_ALG_NOT_ALLOWED) and non-KeyObjects (TypeError)', async () => {
    await expectCode(() => fromKeyObject(createSecretKey(new Uint8Array(32))), 'ERR_ALG_NOT_ALLOWED');
    await expect(fromKeyObject({} as never)).rejects.toBeInstanceOf(TypeError);
  });

  it('refuses key types with no RFC 9421 algorithm', async () => {
    const x25519 = generateKeyPairSync('x25519');
    await expectCode(() => fromKeyObject(x25519.publicKey), 'ERR_KEY_INVALID');
    const p521 = generateKeyPairSync('ec', { namedCurve: 'P-521' });
    await expectCode(() => fromKeyObject(p521.privateKey), 'ERR_KEY_INVALID');
    const dsa = generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 });
    await expectCode(() => fromKeyObject(dsa.publicKey), 'ERR_KEY_INVALID');
  });

  it('a PEM-imported signer verifies with a JWK-imported verifier through the node provider', async () => {
    const signer = await importPrivatePem(pem('ed25519.pem'));
    const verifier = await importVerifyingKey(signer.publicJwk, { provider: nodeCryptoProvider });
    expect(await verifier.verify(enc('mixed'), await signer.sign(enc('mixed')))).toBe(true);
  });
});
