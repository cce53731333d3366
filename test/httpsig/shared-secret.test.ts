/**
 * Shared-secret signatures (RFC 9421 §3.3.3, `hmac-sha256`) are refused in every layer
 * (issue 13): by the registry helpers, by verifyMessage and verifySignatureBytes even
 * for a key object made by hand whose own `verify` computes a real HMAC, when a
 * Signature-Input names the algorithm, and by signMessage.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { base64Decode, base64Encode } from '../helpers/bytes';
import { toAlgorithmName } from '../../src/index';
import {
  importSigningKey,
  importVerifyingKey,
  createSignatureBase,
  toHttpMessage,
  signMessage,
  parseSignatureInput,
  verifyMessage,
  verifySignatureBytes,
} from '../../src/httpsig';
import type { AlgorithmName, Jwk, SigningKey, VerifyingKey, MessageObject } from '../../src/httpsig';
import { keyAlgorithm } from '../../src/crypto/registry';
import rfc9421 from '../../vectors/rfc9421.json';
import { codeOfAsync } from '../helpers/errors';

// RFC 9421 Appendix B.1.4 `test-key-ed25519` (public test key).
const ED25519_PRIVATE = { kty: 'OKP', crv: 'Ed25519', d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' };
const ED25519_PUBLIC = { kty: 'OKP', crv: 'Ed25519', x: ED25519_PRIVATE.x };

// RFC 9421 Appendix B.1.5 `test-shared-secret`.
const SECRET = base64Decode('uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ==')!;
let hmacKey: CryptoKey;
const hmac = async (data: Uint8Array): Promise<Uint8Array> => new Uint8Array(await crypto.subtle.sign('HMAC', hmacKey, data as BufferSource));

/** Key objects shaped like botsig's, made by hand, that really compute HMAC-SHA256 (WebCrypto). */
const hmacVerifier = {
  alg: 'hmac-sha256' as AlgorithmName,
  thumbprint: 'shared',
  jwk: { kty: 'oct' },
  verify: async (data: Uint8Array, signature: Uint8Array) => crypto.subtle.verify('HMAC', hmacKey, signature as BufferSource, data as BufferSource),
} as VerifyingKey;
const hmacSigner = {
  alg: 'hmac-sha256' as AlgorithmName,
  thumbprint: 'shared',
  publicJwk: { kty: 'oct' },
  sign: hmac,
} as SigningKey;

const request = (headers: Record<string, string> = {}): MessageObject => ({
  method: 'GET',
  url: 'https://example.com/foo',
  headers: { Host: 'example.com', ...headers },
});

/** The request with an HMAC signature over `@method @authority` and the given parameters. */
async function hmacSigned(params: string): Promise<MessageObject> {
  const input = `sig1=("@method" "@authority");created=1618884473;keyid="test-shared-secret"${params}`;
  const base = createSignatureBase(toHttpMessage(request()), parseSignatureInput(input).get('sig1')!);
  const signature = await hmac(new TextEncoder().encode(base));
  return request({ 'Signature-Input': input, Signature: `sig1=:${base64Encode(signature)}:` });
}

let signer: SigningKey;
let verifier: VerifyingKey;

beforeAll(async () => {
  hmacKey = await crypto.subtle.importKey('raw', SECRET as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  signer = await importSigningKey(ED25519_PRIVATE);
  verifier = await importVerifyingKey(ED25519_PUBLIC);
});

describe('the hand-made HMAC key objects are real', () => {
  it('their verify accepts the HMAC signature and refuses another', async () => {
    const data = new TextEncoder().encode('x');
    expect(await hmacVerifier.verify(data, await hmac(data))).toBe(true);
    expect(await hmacVerifier.verify(data, new Uint8Array(32))).toBe(false);
  });
});

describe('registry helpers', () => {
  it('toAlgorithmName refuses hmac-sha256 and the JOSE HMAC names (ERR_ALG_NOT_ALLOWED), others are ERR_ALG_UNKNOWN', async () => {
    for (const name of ['hmac-sha256', 'HS256', 'HS384', 'HS512']) expect(await codeOfAsync(() => toAlgorithmName(name)), name).toBe('ERR_ALG_NOT_ALLOWED');
    expect(await codeOfAsync(() => toAlgorithmName('hmac-sha512'))).toBe('ERR_ALG_UNKNOWN');
  });

  it('keyAlgorithm takes the asymmetric algorithms only, whatever the value', async () => {
    expect(keyAlgorithm('ed25519')).toBe('ed25519');
    expect(await codeOfAsync(() => keyAlgorithm('hmac-sha256'))).toBe('ERR_ALG_NOT_ALLOWED');
    for (const v of [undefined, null, 42, {}, '', 'none', 'constructor', '__proto__'])
      expect(await codeOfAsync(() => keyAlgorithm(v)), JSON.stringify(v) ?? 'undefined').toBe('ERR_ALG_UNKNOWN');
  });
});

describe('verifyMessage refuses shared-secret signatures', () => {
  it('a hand-made HMAC key object given as options.key, through keyLookup, or with a label', async () => {
    const m = await hmacSigned('');
    expect(await codeOfAsync(verifyMessage(m, { key: hmacVerifier }))).toBe('ERR_ALG_NOT_ALLOWED');
    expect(await codeOfAsync(verifyMessage(m, { key: hmacVerifier, label: 'sig1' }))).toBe('ERR_ALG_NOT_ALLOWED');
    expect(await codeOfAsync(verifyMessage(m, { keyLookup: () => hmacVerifier }))).toBe('ERR_ALG_NOT_ALLOWED');
  });

  it('alg="hmac-sha256" in Signature-Input, with the HMAC key object or with an Ed25519 key', async () => {
    const m = await hmacSigned(';alg="hmac-sha256"');
    expect(await codeOfAsync(verifyMessage(m, { key: hmacVerifier }))).toBe('ERR_ALG_NOT_ALLOWED');
    expect(await codeOfAsync(verifyMessage(m, { key: verifier }))).toBe('ERR_ALG_NOT_ALLOWED');
    // Refused before any key is looked up.
    let looked = false;
    const lookup = () => {
      looked = true;
      return verifier;
    };
    expect(await codeOfAsync(verifyMessage(m, { keyLookup: lookup }))).toBe('ERR_ALG_NOT_ALLOWED');
    expect(looked).toBe(false);
  });

  it('other algorithms outside the registry are ERR_ALG_UNKNOWN, in the parameter and in the key', async () => {
    expect(await codeOfAsync(verifyMessage(await hmacSigned(';alg="hmac-sha512"'), { key: verifier }))).toBe('ERR_ALG_UNKNOWN');
    const odd = { ...hmacVerifier, alg: 'none' as AlgorithmName };
    expect(await codeOfAsync(verifyMessage(await hmacSigned(''), { key: odd }))).toBe('ERR_ALG_UNKNOWN');
  });

  it('options.algorithms cannot name hmac-sha256 (a configuration error)', async () => {
    const m = await hmacSigned('');
    await expect(verifyMessage(m, { key: hmacVerifier, algorithms: ['hmac-sha256' as AlgorithmName] })).rejects.toThrow(TypeError);
  });

  it('verifySignatureBytes refuses the HMAC key object', async () => {
    const mac = await hmac(new TextEncoder().encode('base'));
    expect(await hmacVerifier.verify(new TextEncoder().encode('base'), mac)).toBe(true);
    expect(await codeOfAsync(verifySignatureBytes(hmacVerifier, 'base', mac))).toBe('ERR_ALG_NOT_ALLOWED');
    expect(await codeOfAsync(verifySignatureBytes(hmacVerifier, 'base', mac, 'hmac-sha256'))).toBe('ERR_ALG_NOT_ALLOWED');
  });

  it('an Ed25519 signature still verifies, with and without alg', async () => {
    for (const params of [{}, { alg: 'ed25519' }]) {
      const signed = await signMessage(request(), { key: signer, components: ['@method', '@authority'], params: { created: 1, ...params } });
      const m = request({ 'Signature-Input': signed.headers['signature-input'], Signature: signed.headers.signature });
      await expect(verifyMessage(m, { key: verifier, algorithms: ['ed25519'] })).resolves.toMatchObject({ label: 'sig1' });
    }
  });
});

describe('signMessage refuses shared-secret signatures', () => {
  it('a hand-made HMAC signing key object, with or without the alg parameter', async () => {
    expect(await codeOfAsync(signMessage(request(), { key: hmacSigner, components: ['@method'] }))).toBe('ERR_ALG_NOT_ALLOWED');
    expect(await codeOfAsync(signMessage(request(), { key: hmacSigner, components: ['@method'], params: { alg: 'hmac-sha256' } }))).toBe('ERR_ALG_NOT_ALLOWED');
  });

  it('params.alg hmac-sha256 with an Ed25519 key; an unknown alg is ERR_ALG_UNKNOWN', async () => {
    expect(await codeOfAsync(signMessage(request(), { key: signer, components: ['@method'], params: { alg: 'hmac-sha256' } }))).toBe('ERR_ALG_NOT_ALLOWED');
    expect(await codeOfAsync(signMessage(request(), { key: signer, components: ['@method'], params: { alg: 'ed448' } }))).toBe('ERR_ALG_UNKNOWN');
    expect(await codeOfAsync(signMessage(request(), { key: signer, components: ['@method'], params: { alg: 'rsa-pss-sha512' } }))).toBe('ERR_ALG_MISMATCH');
  });
});

describe("a key that names no algorithm (an RSA JWK without alg) is bound to the signature's alg", () => {
  it('verifies with alg="rsa-pss-sha512", is ERR_ALG_UNKNOWN without alg, refuses alg="hmac-sha256"', async () => {
    const record = (rfc9421.keys as unknown as Array<{ id: string; jwk: Jwk; publicJwk: Jwk }>).find((k) => k.id === 'test-key-rsa-pss')!;
    const rsaSigner = await importSigningKey(record.jwk, { alg: 'rsa-pss-sha512' });
    const open = await importVerifyingKey(record.publicJwk);
    expect(open.alg).toBeUndefined();
    const sign = async (params: Record<string, string | number>) => {
      const signed = await signMessage(request(), { key: rsaSigner, components: ['@method', '@authority'], params: { created: 1, ...params } });
      return request({ 'Signature-Input': signed.headers['signature-input'], Signature: signed.headers.signature });
    };
    const withAlg = await sign({ alg: 'rsa-pss-sha512' });
    await expect(verifyMessage(withAlg, { key: open })).resolves.toMatchObject({ key: { alg: 'rsa-pss-sha512' } });
    expect(await codeOfAsync(verifyMessage(withAlg, { key: open, algorithms: ['ed25519'] }))).toBe('ERR_ALG_NOT_ALLOWED');
    expect(await codeOfAsync(verifyMessage(await sign({}), { key: open }))).toBe('ERR_ALG_UNKNOWN');
    expect(await codeOfAsync(verifyMessage(await hmacSigned(';alg="hmac-sha256"'), { key: open }))).toBe('ERR_ALG_NOT_ALLOWED');
    const signed = await signMessage(request(), { key: rsaSigner, components: ['@method'] });
    expect(await verifySignatureBytes(open, signed.base, signed.signature, 'rsa-pss-sha512')).toBe(true);
    expect(await codeOfAsync(verifySignatureBytes(open, signed.base, signed.signature))).toBe('ERR_ALG_UNKNOWN');
    expect(await codeOfAsync(verifySignatureBytes(open, signed.base, signed.signature, 'hmac-sha256'))).toBe('ERR_ALG_NOT_ALLOWED');
  });
});
