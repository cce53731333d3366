// Keys whose type leaves the algorithm open (an RSA JWK without alg, as RFC 9421
// Appendix B.1 prints its keys) and keyForAlgorithm(): RFC 9421 §3.2 step 6.
import { beforeAll, describe, expect, it } from 'vitest';
import rfc9421 from '../../vectors/rfc9421.json';
import webBotAuth from '../../vectors/web-bot-auth.json';
import { BotsigError, isBotsigError, generateKeyPair, keyForAlgorithm, toAlgorithmName, jwkThumbprint, webCryptoProvider } from '../../src/index';
import type { AlgorithmName, BoundVerifyingKey, CryptoProvider, Jwk, VerifyingKey } from '../../src/index';
import { importSigningKey, importVerifyingKey, parseSignatureInput, signatureParams } from '../../src/httpsig';
import { isVerifyingKey } from '../../src/crypto/keys/objects';
import { verifyBase } from '../../src/crypto/keys/base';
import { countingProvider, enc, signatureBytes } from './helpers';
import { expectCode } from '../helpers/errors';

interface KeyRecord {
  id: string;
  alg: string;
  jwk: Jwk;
  publicJwk?: Jwk;
}
interface SignatureRecord {
  id: string;
  key: string;
  alg: string;
  expect: string;
  label?: string;
  signatureInput: string;
  signature: string;
  signatureBase?: string[] | null;
}

const rfcKeys = new Map((rfc9421.keys as unknown as KeyRecord[]).map((k) => [k.id, k]));
// The JWK figures exactly as the RFC prints them (private keys, with kid, without alg).
const RSA_PSS_JWK = rfcKeys.get('test-key-rsa-pss')!.jwk;
const RSA_JWK = rfcKeys.get('test-key-rsa')!.jwk;
const BOTH_RSA: readonly AlgorithmName[] = ['rsa-pss-sha512', 'rsa-v1_5-sha256'];

/** The `alg` parameter of a one-member Signature-Input value, as a verifier reads it. */
function algParameter(signatureInput: string): AlgorithmName | undefined {
  const [input] = [...parseSignatureInput(signatureInput).values()];
  const alg = signatureParams(input!.params).alg;
  return alg === undefined ? undefined : toAlgorithmName(alg);
}

function bound(key: VerifyingKey, alg: AlgorithmName | undefined): BoundVerifyingKey {
  const result = keyForAlgorithm(key, alg);
  if (result instanceof BotsigError) throw result;
  return result;
}

/** The code of the BotsigError keyForAlgorithm returns (it returns errors rather than throwing them). */
function returnedCode(result: unknown): string {
  return isBotsigError(result) ? result.code : 'not an error';
}

// Signatures made with the RSA example keys whose base the RFC prints.
const rsaSignatures = (rfc9421.signatures as unknown as SignatureRecord[]).filter(
  (s) => (s.expect === 'verify' || s.expect === 'reproduce') && Array.isArray(s.signatureBase) && (s.key === 'test-key-rsa-pss' || s.key === 'test-key-rsa'),
);
const wbaRsaVectors = (webBotAuth.vectors as unknown as SignatureRecord[]).filter((v) => v.key === 'test-key-rsa-pss');

describe('RSA JWK without alg, exactly as RFC 9421 Appendix B.1 prints it', () => {
  it('imports as an unbound key: alg undefined, both RSA algorithms, the printed members kept (no alg added)', async () => {
    for (const jwk of [RSA_PSS_JWK, RSA_JWK]) {
      expect(jwk).not.toHaveProperty('alg');
      const key = await importVerifyingKey(jwk, { provider: webCryptoProvider });
      expect(key.alg).toBeUndefined();
      expect(key.algorithms).toEqual(BOTH_RSA);
      expect(isVerifyingKey(key)).toBe(true);
      expect(key.thumbprint).toBe(await jwkThumbprint(jwk));
      expect(key.jwk).not.toHaveProperty('alg');
      expect(key.jwk).not.toHaveProperty('d');
      expect(key.jwk.kid, 'kid kept as printed').toBe(jwk.kid);
      expect(await importVerifyingKey(jwk, { provider: webCryptoProvider }), 'same JWK object, same key').toBe(key);
    }
  });

  it('never verifies by itself: verify and verifyBase reject with ERR_ALG_UNKNOWN', async () => {
    const key = await importVerifyingKey(RSA_PSS_JWK, { provider: webCryptoProvider });
    await expectCode(() => key.verify(enc('x'), new Uint8Array(256)), 'ERR_ALG_UNKNOWN');
    await expectCode(() => verifyBase(key, 'x', new Uint8Array(256)), 'ERR_ALG_UNKNOWN');
  });

  for (const s of rsaSignatures) {
    it(`RFC 9421 ${s.id} (${s.alg}) verifies with the printed JWK once the algorithm is known`, async () => {
      const key = await importVerifyingKey(rfcKeys.get(s.key)!.jwk, { provider: webCryptoProvider });
      const base = s.signatureBase!.join('\n');
      const signature = signatureBytes(s.signature);
      const named = algParameter(s.signatureInput);
      if (named !== undefined) {
        // The signature names its algorithm (4.3 proxy_sig): that binds the key.
        expect(named).toBe(s.alg);
        expect(await verifyBase(bound(key, named), base, signature)).toBe(true);
      } else {
        // Neither the signature nor the key names it: §3.2 step 6 gives no algorithm, so botsig refuses to guess.
        expect(returnedCode(keyForAlgorithm(key, undefined))).toBe('ERR_ALG_UNKNOWN');
        // The RFC names it in prose, which is "external means" (static configuration): either way of saying so works.
        const configured = await importVerifyingKey(rfcKeys.get(s.key)!.jwk, { alg: s.alg as AlgorithmName, provider: webCryptoProvider });
        expect(await verifyBase(configured, base, signature)).toBe(true);
      }
      const viaKey = bound(key, s.alg as AlgorithmName);
      expect(await verifyBase(viaKey, base, signature)).toBe(true);
      expect(await verifyBase(viaKey, base + ' ', signature), 'a changed base fails').toBe(false);
      const other = bound(key, s.alg === 'rsa-pss-sha512' ? 'rsa-v1_5-sha256' : 'rsa-pss-sha512');
      expect(await verifyBase(other, base, signature), 'the other RSA algorithm does not verify it').toBe(false);
    });
  }

  for (const v of wbaRsaVectors) {
    it(`Web Bot Auth ${v.id}: the signature's alg="rsa-pss-sha512" binds the printed JWK and it verifies`, async () => {
      const key = await importVerifyingKey(RSA_PSS_JWK, { provider: webCryptoProvider });
      const [input] = [...parseSignatureInput(v.signatureInput).values()];
      expect(signatureParams(input!.params).keyid, 'keyid is the thumbprint of the printed JWK').toBe(key.thumbprint);
      const alg = algParameter(v.signatureInput);
      expect(alg).toBe('rsa-pss-sha512');
      expect(await verifyBase(bound(key, alg), v.signatureBase!.join('\n'), signatureBytes(v.signature))).toBe(true);
    });
  }

  it('the vectors above cover rsa-pss-sha512 without alg and with it, and rsa-v1_5-sha256 with it', () => {
    expect(rsaSignatures.some((s) => s.alg === 'rsa-pss-sha512' && algParameter(s.signatureInput) === undefined)).toBe(true);
    expect(rsaSignatures.some((s) => s.alg === 'rsa-v1_5-sha256' && algParameter(s.signatureInput) === 'rsa-v1_5-sha256')).toBe(true);
    expect(wbaRsaVectors.length).toBeGreaterThanOrEqual(2);
  });
});

describe('keyForAlgorithm (RFC 9421 §3.2 step 6)', () => {
  let pss: { privateJwk: Jwk; publicJwk: Jwk };
  let ed: VerifyingKey;
  beforeAll(async () => {
    pss = await generateKeyPair('rsa-pss-sha512');
    ed = await importVerifyingKey((await generateKeyPair('ed25519')).publicJwk);
  }, 30_000);
  const open = (): Jwk => {
    const { alg: _alg, ...jwk } = pss.publicJwk;
    return jwk;
  };

  it('a bound key: itself when the signature names no alg or the same one; another alg is ERR_ALG_MISMATCH', () => {
    expect(keyForAlgorithm(ed, undefined)).toBe(ed);
    expect(keyForAlgorithm(ed, 'ed25519')).toBe(ed);
    expect(returnedCode(keyForAlgorithm(ed, 'rsa-pss-sha512'))).toBe('ERR_ALG_MISMATCH');
    expect(ed.algorithms).toEqual(['ed25519']);
  });

  it('an unbound key: the bound key for each algorithm it allows, the same object every time; ERR_ALG_MISMATCH for one it cannot serve; ERR_ALG_UNKNOWN for none', async () => {
    const key = await importVerifyingKey(open());
    const a = bound(key, 'rsa-pss-sha512');
    const b = bound(key, 'rsa-v1_5-sha256');
    expect([a.alg, b.alg]).toEqual(BOTH_RSA);
    expect(a.algorithms).toEqual(['rsa-pss-sha512']);
    expect(keyForAlgorithm(key, 'rsa-pss-sha512'), 'cached per algorithm').toBe(a);
    expect(keyForAlgorithm(a, undefined), 'a bound key stays bound').toBe(a);
    for (const k of [a, b]) {
      expect(k.thumbprint).toBe(key.thumbprint);
      expect(k.jwk).toBe(key.jwk);
      expect(isVerifyingKey(k)).toBe(true);
    }
    const error = keyForAlgorithm(key, 'ed25519');
    expect(error).toBeInstanceOf(BotsigError);
    expect(returnedCode(error), 'an RSA key cannot serve ed25519').toBe('ERR_ALG_MISMATCH');
    expect(returnedCode(keyForAlgorithm(key, 'ecdsa-p256-sha256'))).toBe('ERR_ALG_MISMATCH');
    expect(returnedCode(keyForAlgorithm(key, undefined))).toBe('ERR_ALG_UNKNOWN');
  });

  it('binds with no import per call: both algorithms are imported once, with the key, and shared with keys that name them', async () => {
    const counting = countingProvider(webCryptoProvider);
    const key = await importVerifyingKey(open(), { provider: counting });
    expect(counting.imports.verify).toBe(2);
    for (let i = 0; i < 1000; i++) {
      bound(key, 'rsa-pss-sha512');
      bound(key, 'rsa-v1_5-sha256');
    }
    expect(counting.imports.verify).toBe(2);
    await importVerifyingKey({ ...open(), alg: 'PS512' }, { provider: counting });
    await importVerifyingKey(open(), { alg: 'rsa-v1_5-sha256', provider: counting });
    expect(counting.imports.verify, 'the same material for the same algorithm is not imported again').toBe(2);
  });

  it('verifies signatures of either RSA algorithm with the key the signature names', async () => {
    const key = await importVerifyingKey(open());
    const { alg: _alg, ...privateJwk } = pss.privateJwk;
    for (const alg of BOTH_RSA) {
      const signer = await importSigningKey(privateJwk, { alg });
      const data = 'signed with ' + alg;
      const signature = await signer.sign(enc(data));
      expect(await verifyBase(bound(key, alg), data, signature), alg).toBe(true);
      const other = BOTH_RSA.find((a) => a !== alg)!;
      expect(await verifyBase(bound(key, other), data, signature), `${alg} signature under ${other}`).toBe(false);
    }
  });

  it('importVerifyingKey(unbound, { alg }) binds; without options it returns the key as is', async () => {
    const key = await importVerifyingKey(open());
    expect(await importVerifyingKey(key)).toBe(key);
    expect(await importVerifyingKey(key, { alg: 'rsa-v1_5-sha256' })).toBe(keyForAlgorithm(key, 'rsa-v1_5-sha256'));
    await expectCode(() => importVerifyingKey(key, { alg: 'ed25519' }), 'ERR_ALG_MISMATCH');
    await expectCode(() => importVerifyingKey(ed, { alg: 'rsa-pss-sha512' }), 'ERR_ALG_MISMATCH');
  });

  it('a provider that refuses one RSA algorithm leaves it out; refusing both is the import error', async () => {
    const refusing = (refused: readonly AlgorithmName[]): CryptoProvider => ({
      name: `refuses-${refused.join('-')}`,
      importVerify: (jwk, alg) => (refused.includes(alg) ? Promise.reject(new Error('unsupported')) : webCryptoProvider.importVerify(jwk, alg)),
      importSign: (jwk, alg) => webCryptoProvider.importSign(jwk, alg),
    });
    const partial = await importVerifyingKey(open(), { provider: refusing(['rsa-v1_5-sha256']) });
    expect(partial.alg).toBeUndefined();
    expect(partial.algorithms).toEqual(['rsa-pss-sha512']);
    expect(returnedCode(keyForAlgorithm(partial, 'rsa-v1_5-sha256'))).toBe('ERR_ALG_MISMATCH');
    await expectCode(() => importVerifyingKey(open(), { provider: refusing(BOTH_RSA) }), 'ERR_KEY_INVALID');
  });

  it('a key type that fixes the algorithm is bound at import; an RSA CryptoKey is bound by its WebCrypto algorithm', async () => {
    const p256 = await importVerifyingKey((await generateKeyPair('ecdsa-p256-sha256')).publicJwk);
    expect(p256.alg).toBe('ecdsa-p256-sha256');
    const pair = (await crypto.subtle.generateKey({ name: 'RSA-PSS', hash: 'SHA-512', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, [
      'sign',
      'verify',
    ])) as CryptoKeyPair;
    const fromCryptoKey = await importVerifyingKey(pair.publicKey);
    expect(fromCryptoKey.alg).toBe('rsa-pss-sha512');
    expect(fromCryptoKey.jwk.alg, 'RSA: the RFC 9421 name is written (SPEC 2.1 rule 2)').toBe('rsa-pss-sha512');
  });

  it('foreign key objects: unbound ones need a non-empty algorithm list and cannot be bound; TypeError for a non-object', async () => {
    const shape = { thumbprint: 't', jwk: { kty: 'RSA' }, verify: () => Promise.resolve(true) };
    expect(isVerifyingKey({ ...shape, alg: undefined, algorithms: [] })).toBe(false);
    expect(isVerifyingKey({ ...shape, alg: undefined, algorithms: ['rsa-pss-sha256'] })).toBe(false);
    const foreign = { ...shape, alg: undefined, algorithms: ['rsa-pss-sha512'] } as VerifyingKey;
    expect(isVerifyingKey(foreign)).toBe(true);
    expect(returnedCode(keyForAlgorithm(foreign, 'rsa-pss-sha512'))).toBe('ERR_ALG_UNKNOWN');
    expect(returnedCode(keyForAlgorithm(foreign, 'ed25519'))).toBe('ERR_ALG_MISMATCH');
    expect(() => keyForAlgorithm(null as never, 'ed25519')).toThrow(TypeError);
  });
});
