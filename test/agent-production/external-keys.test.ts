/**
 * Keys that never leave their signer: `externalSigningKey` with a SoftHSM2 token through
 * PKCS#11 (Ed25519 with CKM_EDDSA, P-256 with CKM_ECDSA), node:crypto signers that answer
 * DER, and non-extractable WebCrypto keys. Requests are sent to a loopback server that
 * checks them with botsig's `verifyRequest` and with the independent
 * `http-message-signatures` package.
 */
import { createPublicKey, generateKeyPairSync, sign as nodeSign, webcrypto, type JsonWebKey as NodeJsonWebKey } from 'node:crypto';
import { createVerifier, httpbis } from 'http-message-signatures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ecdsaDerToRaw } from '../../src/crypto/keys/external';
import { jwkThumbprintSync, signRequest, verifyRequest, MemoryNonceStore, externalSigningKey } from '../../src/index';
import type { AlgorithmName, Jwk, SigningKey } from '../../src/index';
import { importSigningKey } from '../../src/httpsig';
import { inCI } from '../helpers/optional';
import { startFetchHandlerServer, type LoopbackServer } from '../helpers/loopback';
import { openSoftHsm, softHsmAvailable, type SoftHsm } from './softhsm';

const AGENT = 'https://agent.example';

/** A loopback origin that answers with what botsig and http-message-signatures think of each request. */
async function startCheckingOrigin(publicJwk: Jwk, alg: AlgorithmName): Promise<LoopbackServer> {
  const store = new MemoryNonceStore();
  const keyObject = createPublicKey({ key: publicJwk as NodeJsonWebKey, format: 'jwk' });
  const thumbprint = jwkThumbprintSync(publicJwk);
  return startFetchHandlerServer(async (request) => {
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    // Plain HTTP on loopback only: allowInsecure (SPEC 5.3 rule 6).
    const botsig = await verifyRequest(request, { keys: [publicJwk], nonce: { policy: 'required', store }, allowInsecure: true });
    let independent: boolean;
    try {
      independent =
        (await httpbis.verifyMessage(
          {
            keyLookup: async (params: { keyid?: string }) =>
              params.keyid === thumbprint ? { id: thumbprint, algs: [alg], verify: createVerifier(keyObject, alg as 'ed25519') } : null,
            requiredFields: ['@authority', 'signature-agent'],
            requiredParams: ['created', 'expires', 'keyid', 'nonce', 'tag'],
          },
          { method: request.method, url: request.url, headers },
        )) === true;
    } catch {
      independent = false;
    }
    return Response.json({ botsig: botsig.outcome, keyid: botsig.signatures[0]?.keyid, independent });
  });
}

async function sendSigned(origin: LoopbackServer, key: SigningKey): Promise<{ botsig: string; keyid: string; independent: boolean }> {
  const request = new Request(origin.origin + '/article?id=7', { headers: { 'user-agent': 'ProdBot/1.0' } });
  const headers = await signRequest(request, { key, signatureAgent: AGENT });
  const sent = await fetch(request.url, { headers: { ...Object.fromEntries(request.headers), ...headers } });
  return (await sent.json()) as { botsig: string; keyid: string; independent: boolean };
}

// SoftHSM2 is optional locally (the suite says so and skips), required under CI.
const haveHsm = softHsmAvailable();
if (!haveHsm && !inCI()) console.warn('test/agent-production: SoftHSM2 (Debian package softhsm2) is missing: the PKCS#11 suite is skipped');

describe.skipIf(!haveHsm && !inCI())('external keys: a SoftHSM2 token through PKCS#11 (the private key never leaves the token)', () => {
  let hsm: SoftHsm;
  beforeAll(async () => {
    if (!haveHsm) throw new Error('SoftHSM2 is required under CI: apt-get install softhsm2');
    hsm = await openSoftHsm();
  });
  afterAll(() => hsm?.close());

  it('SoftHSM2 is a version with CKM_EDDSA (2.5 or later)', () => {
    const [major, minor] = hsm.version.split('.').map(Number);
    expect(major! * 100 + minor!).toBeGreaterThanOrEqual(205);
  });

  for (const curve of ['Ed25519', 'P-256'] as const) {
    it(`${curve}: requests signed in the token verify with botsig and with http-message-signatures on a loopback origin`, async () => {
      const hsmKey = curve === 'Ed25519' ? hsm.generateEd25519('agent-ed25519') : hsm.generateP256('agent-p256');
      expect(hsmKey.neverLeaves).toBe(true);
      const alg: AlgorithmName = curve === 'Ed25519' ? 'ed25519' : 'ecdsa-p256-sha256';
      const key = await externalSigningKey({ publicJwk: hsmKey.publicJwk, sign: hsmKey.sign });
      expect(key.alg).toBe(alg);
      expect(key.thumbprint).toBe(jwkThumbprintSync(hsmKey.publicJwk));
      expect(key.publicJwk.kid).toBe(key.thumbprint);
      expect(key.signSync).toBeUndefined();

      const origin = await startCheckingOrigin(hsmKey.publicJwk, alg);
      try {
        for (let i = 0; i < 3; i++) {
          expect(await sendSigned(origin, key)).toEqual({ botsig: 'verified', keyid: key.thumbprint, independent: true });
        }
      } finally {
        await origin.close();
      }
    });
  }

  it('a token key under the public JWK of another key is refused when the key is made (probe)', async () => {
    const a = hsm.generateP256('probe-a');
    const b = hsm.generateP256('probe-b');
    await expect(externalSigningKey({ publicJwk: a.publicJwk, sign: b.sign })).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
  });
});

describe('external keys: signers that answer DER, raw or nothing', () => {
  const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const p256Jwk = p256.publicKey.export({ format: 'jwk' }) as Jwk;
  const derSigner = (data: Uint8Array) => new Uint8Array(nodeSign('sha256', data, { key: p256.privateKey, dsaEncoding: 'der' }));
  const rawSigner = (data: Uint8Array) => new Uint8Array(nodeSign('sha256', data, { key: p256.privateKey, dsaEncoding: 'ieee-p1363' }));

  it('P-256 DER output (as AWS KMS and Google Cloud KMS give it) becomes raw r||s that verifies on a loopback origin', async () => {
    const seen: number[] = [];
    const key = await externalSigningKey({
      publicJwk: p256Jwk,
      sign: (data) => {
        const out = derSigner(data);
        seen.push(out.length);
        return out;
      },
    });
    const signature = await key.sign(new TextEncoder().encode('base'));
    expect(signature.length).toBe(64);
    expect(seen.every((n) => n !== 64 && n >= 8 && n <= 72)).toBe(true);
    const origin = await startCheckingOrigin(p256Jwk, 'ecdsa-p256-sha256');
    try {
      expect(await sendSigned(origin, key)).toEqual({ botsig: 'verified', keyid: key.thumbprint, independent: true });
    } finally {
      await origin.close();
    }
  });

  it("signatureFormat 'der' refuses raw output, 'raw' refuses DER output", async () => {
    const der = await externalSigningKey({ publicJwk: p256Jwk, sign: derSigner, signatureFormat: 'der', probe: false });
    const raw = await externalSigningKey({ publicJwk: p256Jwk, sign: rawSigner, signatureFormat: 'raw', probe: false });
    expect((await der.sign(new Uint8Array([1]))).length).toBe(64);
    expect((await raw.sign(new Uint8Array([1]))).length).toBe(64);
    await expect(externalSigningKey({ publicJwk: p256Jwk, sign: rawSigner, signatureFormat: 'der' })).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
    await expect(externalSigningKey({ publicJwk: p256Jwk, sign: derSigner, signatureFormat: 'raw' })).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
  });

  it('RSA-PSS SHA-512 with a 64-byte salt (rsa-pss-sha512) from an external signer verifies with botsig', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const publicJwk = rsa.publicKey.export({ format: 'jwk' }) as Jwk;
    const key = await externalSigningKey({
      publicJwk,
      alg: 'rsa-pss-sha512',
      sign: (data) => new Uint8Array(nodeSign('sha512', data, { key: rsa.privateKey, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: 64 })),
    });
    const request = new Request('https://origin.example/');
    const headers = await signRequest(request, { key, signatureAgent: AGENT });
    for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
    const result = await verifyRequest(request, {
      keys: [{ ...publicJwk, alg: 'rsa-pss-sha512' }],
      nonce: { policy: 'required', store: new MemoryNonceStore() },
    });
    expect(result.outcome).toBe('verified');
    await expect(externalSigningKey({ publicJwk, sign: () => new Uint8Array(256) })).rejects.toMatchObject({ code: 'ERR_ALG_UNKNOWN' });
  });

  it('a signer moved to another key after start-up fails each signature (verify on) instead of sending it', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    let current = derSigner;
    const key = await externalSigningKey({ publicJwk: p256Jwk, sign: (d) => current(d) });
    current = (data) => new Uint8Array(nodeSign('sha256', data, { key: other.privateKey, dsaEncoding: 'der' }));
    await expect(key.sign(new Uint8Array([1, 2]))).rejects.toMatchObject({ code: 'ERR_CRYPTO_UNSUPPORTED' });
    // With verify off the wrong signature goes out (the caller chose so): it is well formed but does not verify.
    const unchecked = await externalSigningKey({ publicJwk: p256Jwk, sign: (d) => current(d), verify: false, probe: false });
    expect((await unchecked.sign(new Uint8Array([1, 2]))).length).toBe(64);
  });

  it('refuses private members, a kid that is not the thumbprint, symmetric keys and a key type that does not fit alg', async () => {
    const ed = generateKeyPairSync('ed25519');
    const privateJwk = ed.privateKey.export({ format: 'jwk' }) as Jwk;
    const publicJwk = ed.publicKey.export({ format: 'jwk' }) as Jwk;
    const sign = (data: Uint8Array) => new Uint8Array(nodeSign(null, data, ed.privateKey));
    await expect(externalSigningKey({ publicJwk: privateJwk, sign })).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
    await expect(externalSigningKey({ publicJwk: { ...publicJwk, kid: 'my-hsm-key-1' }, sign })).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
    const ok = await externalSigningKey({ publicJwk: { ...publicJwk, kid: jwkThumbprintSync(publicJwk) }, sign });
    expect(ok.thumbprint).toBe(jwkThumbprintSync(publicJwk));
    await expect(externalSigningKey({ publicJwk: { kty: 'oct', k: 'AAAA' }, sign })).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
    await expect(externalSigningKey({ publicJwk: { kty: 'oct' }, sign })).rejects.toMatchObject({ code: 'ERR_ALG_NOT_ALLOWED' });
    await expect(externalSigningKey({ publicJwk, sign, alg: 'ecdsa-p256-sha256' })).rejects.toMatchObject({ code: 'ERR_ALG_MISMATCH' });
    await expect(externalSigningKey({ publicJwk: { kty: 'OKP', crv: 'Ed25519', x: 'short' }, sign })).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
  });

  it('a signer that throws, hangs, or answers the wrong length gives typed errors', async () => {
    const ed = generateKeyPairSync('ed25519');
    const publicJwk = ed.publicKey.export({ format: 'jwk' }) as Jwk;
    const good = (data: Uint8Array) => new Uint8Array(nodeSign(null, data, ed.privateKey));
    let mode: 'good' | 'throw' | 'hang' | 'short' | 'string' = 'good';
    const key = await externalSigningKey({
      publicJwk,
      timeoutMs: 50,
      sign: (data) => {
        if (mode === 'throw') throw new Error('KMS: AccessDeniedException');
        if (mode === 'hang') return new Promise<Uint8Array>(() => undefined);
        if (mode === 'short') return good(data).subarray(0, 63);
        if (mode === 'string') return 'c2ln' as unknown as Uint8Array;
        return good(data);
      },
    });
    for (const m of ['throw', 'hang', 'short', 'string'] as const) {
      mode = m;
      const error = await key.sign(new Uint8Array([1])).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, m).toMatchObject({ code: 'ERR_CRYPTO_UNSUPPORTED' });
    }
    mode = 'hang';
    await expect(externalSigningKey({ publicJwk, timeoutMs: 30, sign: () => new Promise<Uint8Array>(() => undefined) })).rejects.toMatchObject({
      code: 'ERR_KEY_INVALID',
    });
  });

  it('malformed options are TypeErrors', async () => {
    const sign = () => new Uint8Array(64);
    await expect(externalSigningKey(null as never)).rejects.toThrow(TypeError);
    await expect(externalSigningKey({ publicJwk: p256Jwk } as never)).rejects.toThrow(TypeError);
    await expect(externalSigningKey({ publicJwk: p256Jwk, sign, signatureFormat: 'pem' as never })).rejects.toThrow(TypeError);
    await expect(externalSigningKey({ publicJwk: p256Jwk, sign, timeoutMs: 0 })).rejects.toThrow(TypeError);
    await expect(externalSigningKey({ publicJwk: [] as never, sign })).rejects.toThrow(TypeError);
  });
});

describe('ecdsaDerToRaw: strict DER', () => {
  const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s/g, ''), 'hex'));
  const r32 = '7f'.repeat(32);
  it('converts, left-padding short integers and dropping the sign byte', () => {
    // r = 0x01 (one byte), s = 0x80 followed by 31 bytes (needs a leading zero in DER)
    const der = hex(`30 26 02 01 01 02 21 00 80${'11'.repeat(31)}`);
    const raw = ecdsaDerToRaw(der, 32)!;
    expect(Buffer.from(raw).toString('hex')).toBe('00'.repeat(31) + '01' + '80' + '11'.repeat(31));
    expect(ecdsaDerToRaw(hex(`30 44 02 20 ${r32} 02 20 ${r32}`), 32)?.length).toBe(64);
  });
  it('refuses non-minimal, negative, zero, oversized, trailing and truncated encodings', () => {
    const bad = [
      `30 45 02 21 00${r32} 02 20 ${r32}`, // leading zero before a byte < 0x80
      `30 44 02 20 ff${'11'.repeat(31)} 02 20 ${r32}`, // negative
      `30 25 02 01 00 02 20 ${r32}`, // zero
      `30 46 02 22 ${'7f'.repeat(34)} 02 20 ${r32}`.replace('30 46', '30 46'), // 34 bytes do not fit P-256
      `30 44 02 20 ${r32} 02 20 ${r32} 00`, // trailing byte
      `30 44 02 20 ${r32} 02 20`, // truncated
      `31 44 02 20 ${r32} 02 20 ${r32}`, // not a SEQUENCE
      `30 82 00 44 02 20 ${r32} 02 20 ${r32}`, // two-byte length
      `30 81 44 02 20 ${r32} 02 20 ${r32}`, // long form for a short length
      '',
    ];
    for (const b of bad) expect(ecdsaDerToRaw(hex(b), 32), b).toBeUndefined();
  });
});

describe('external keys: a non-extractable WebCrypto key (Node WebCrypto, extractable: false)', () => {
  it('signs requests that verify, and its private key cannot be exported', async () => {
    const { subtle } = webcrypto;
    for (const params of [{ name: 'Ed25519' }, { name: 'ECDSA', namedCurve: 'P-256' }] as const) {
      const pair = (await subtle.generateKey(params, false, ['sign', 'verify'])) as CryptoKeyPair;
      await expect(subtle.exportKey('jwk', pair.privateKey)).rejects.toThrow();
      // The public half of a pair always exports: importSigningKey takes the pair as is.
      const fromPair = await importSigningKey(pair);
      // A private CryptoKey alone plus a public JWK from elsewhere: externalSigningKey.
      const publicJwk = (await subtle.exportKey('jwk', pair.publicKey)) as Jwk;
      const alone = await externalSigningKey({
        publicJwk: { kty: publicJwk.kty, crv: publicJwk.crv!, x: publicJwk.x!, ...(publicJwk.y === undefined ? {} : { y: publicJwk.y }) },
        sign: async (data) => new Uint8Array(await subtle.sign(params.name === 'ECDSA' ? { name: 'ECDSA', hash: 'SHA-256' } : params, pair.privateKey, data)),
      });
      expect(alone.thumbprint).toBe(fromPair.thumbprint);
      for (const key of [fromPair, alone]) {
        const request = new Request('https://origin.example/');
        const headers = await signRequest(request, { key, signatureAgent: AGENT });
        for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
        const result = await verifyRequest(request, { keys: [publicJwk], nonce: { policy: 'required', store: new MemoryNonceStore() } });
        expect(result.outcome, params.name).toBe('verified');
      }
    }
  });
});
