/**
 * The verified-signature memo (issue 16): a signature an agent reuses (no nonce) costs
 * one crypto call per options object, while every profile check runs on every request.
 * The crypto calls are counted by a provider that wraps a real one: @noble (synchronous,
 * the path node:crypto takes) and WebCrypto (asynchronous).
 */
import { describe, expect, it } from 'vitest';
import { applySignatureHeaders, signRequest, verifyRequest, MemoryNonceStore, createVerifier, webCryptoProvider } from '../../src/index';
import type { AlgorithmName, BoundVerifyingKey, CryptoProvider, Jwk, VerifyingKey, VerifyRequestOptions } from '../../src/index';
import { importVerifyingKey } from '../../src/httpsig';
import { nobleEd25519Provider } from '../../src/sync';
import { VerifiedMemo } from '../../src/profile/verify/verified-memo';
import { at, flipSignatureBit, keyPair, otherKeyPair, T0 } from './helpers';

const NOW = T0 + 1000;

/** A provider whose verify functions count their calls, delegating to `inner`. */
function counting(inner: CryptoProvider): CryptoProvider & { calls: number } {
  const provider = {
    name: `counting-${inner.name}`,
    calls: 0,
    ...(inner.synchronous === undefined ? {} : { synchronous: inner.synchronous }),
    async importVerify(jwk: Jwk, alg: AlgorithmName) {
      const fn = await inner.importVerify(jwk, alg);
      return (data: Uint8Array, signature: Uint8Array) => {
        provider.calls++;
        return fn(data, signature);
      };
    },
    importSign: (jwk: Jwk, alg: AlgorithmName) => inner.importSign(jwk, alg),
  };
  return provider;
}

type Req = { method: string; url: string; headers: Record<string, string> };

async function signedRequest(privateJwk: Jwk, opts: { nonce?: string | false; created?: number; url?: string } = {}): Promise<Req> {
  const req: Req = { method: 'GET', url: opts.url ?? 'https://example.com/articles', headers: {} };
  const created = opts.created ?? NOW;
  applySignatureHeaders(
    req.headers,
    await signRequest(req, { key: privateJwk, signatureAgent: 'https://agent.example', created, expires: created + 300, nonce: opts.nonce ?? false }),
  );
  return req;
}

async function setup(inner: CryptoProvider = nobleEd25519Provider) {
  const pair = await keyPair();
  const provider = counting(inner);
  const key = await importVerifyingKey(pair.publicJwk, { provider });
  return { pair, provider, key };
}

describe('the verified-signature memo skips the second crypto call, nothing else', () => {
  for (const [name, inner] of [
    ['a synchronous provider (@noble)', nobleEd25519Provider],
    ['an asynchronous provider (WebCrypto)', webCryptoProvider],
  ] as const) {
    it(`a reused signature (no nonce) is verified once per options object, with ${name}`, async () => {
      const { pair, provider, key } = await setup(inner);
      const req = await signedRequest(pair.privateJwk);
      const options: VerifyRequestOptions = { keys: [key], now: at(NOW) };
      for (let i = 0; i < 5; i++) {
        const r = await verifyRequest(req, options);
        expect(r.outcome).toBe('verified');
        expect(r.signatures[0]!.keySource).toBe('static');
      }
      expect(provider.calls).toBe(1);
      // Another options object owns another memo.
      expect((await verifyRequest(req, { keys: [key], now: at(NOW) })).outcome).toBe('verified');
      expect(provider.calls).toBe(2);
    });
  }

  it('is on by default through createVerifier too, and `false` turns it off', async () => {
    const { pair, provider, key } = await setup();
    const req = await signedRequest(pair.privateJwk);
    const verifier = createVerifier({ keys: [key], now: at(NOW), authorities: ['example.com'] });
    for (let i = 0; i < 3; i++) expect((await verifier.verify(req)).outcome).toBe('verified');
    expect(provider.calls).toBe(1);

    const off = createVerifier({ keys: [key], now: at(NOW), authorities: ['example.com'], verifiedSignatureMemo: false });
    for (let i = 0; i < 3; i++) expect((await off.verify(req)).outcome).toBe('verified');
    expect(provider.calls).toBe(4);

    const plain: VerifyRequestOptions = { keys: [key], now: at(NOW), verifiedSignatureMemo: false };
    for (let i = 0; i < 3; i++) expect((await verifyRequest(req, plain)).outcome).toBe('verified');
    expect(provider.calls).toBe(7);
  });

  it('a changed base never hits: the same signature on another request is checked again, and fails', async () => {
    const { pair, provider, key } = await setup();
    const req = await signedRequest(pair.privateJwk);
    const options: VerifyRequestOptions = { keys: [key], now: at(NOW) };
    expect((await verifyRequest(req, options)).outcome).toBe('verified');
    // The same Signature-Input and Signature, sent to another authority: another base.
    const moved = { ...req, url: 'https://example.org/articles' };
    const r = await verifyRequest(moved, options);
    expect(r.outcome).toBe('invalid');
    expect(r.signatures[0]!.error?.code).toBe('ERR_SIGNATURE_INVALID');
    expect(provider.calls).toBe(2);
    // And the failure was not remembered: the original still hits, the moved one is checked again.
    expect((await verifyRequest(req, options)).outcome).toBe('verified');
    expect((await verifyRequest(moved, options)).outcome).toBe('invalid');
    expect(provider.calls).toBe(3);
  });

  it('a changed signature never hits', async () => {
    const { pair, provider, key } = await setup();
    const req = await signedRequest(pair.privateJwk);
    const options: VerifyRequestOptions = { keys: [key], now: at(NOW) };
    expect((await verifyRequest(req, options)).outcome).toBe('verified');
    const flipped = { ...req, headers: { ...req.headers, signature: flipSignatureBit(req.headers.signature!, 'sig1') } };
    const r = await verifyRequest(flipped, options);
    expect(r.signatures[0]!.error?.code).toBe('ERR_SIGNATURE_INVALID');
    expect(provider.calls).toBe(2);
  });

  it('a changed key never hits: another key object claiming the same keyid is asked itself', async () => {
    const { pair, provider, key } = await setup();
    const req = await signedRequest(pair.privateJwk);
    // The impostor names the genuine key's thumbprint (= keyid) and algorithm, but is another key.
    let impostorCalls = 0;
    const impostor: BoundVerifyingKey = Object.freeze({
      alg: 'ed25519' as const,
      algorithms: ['ed25519' as const],
      thumbprint: key.thumbprint,
      jwk: (await otherKeyPair()).publicJwk,
      verify: async () => {
        impostorCalls++;
        return false;
      },
    });
    let answer: VerifyingKey = key;
    const options: VerifyRequestOptions = { resolveKey: () => answer, now: at(NOW) };
    expect((await verifyRequest(req, options)).outcome).toBe('verified');
    expect(provider.calls).toBe(1);
    answer = impostor;
    const r = await verifyRequest(req, options);
    expect(r.signatures[0]!.error?.code).toBe('ERR_SIGNATURE_INVALID');
    expect(impostorCalls).toBe(1);
    expect(provider.calls).toBe(1);
  });

  it('two key objects botsig imported from the same material through one provider are one key', async () => {
    const { pair, provider } = await setup();
    const req = await signedRequest(pair.privateJwk);
    // A resolver answering with a new key object each time (a new JWK object each time).
    const options: VerifyRequestOptions = { resolveKey: () => importVerifyingKey({ ...pair.publicJwk }, { provider }), now: at(NOW) };
    const keys = new Set<unknown>();
    for (let i = 0; i < 3; i++) {
      const r = await verifyRequest(req, options);
      expect(r.outcome).toBe('verified');
      expect(r.signatures[0]!.keySource).toBe('resolver');
      keys.add(await options.resolveKey!({ keyid: '', label: 'sig1' }));
    }
    expect(keys.size).toBe(3);
    expect(provider.calls).toBe(1);
  });

  it('freshness still runs on every request: an expired signature fails even when remembered', async () => {
    const { pair, provider, key } = await setup();
    const req = await signedRequest(pair.privateJwk);
    let t = NOW;
    const options: VerifyRequestOptions = { keys: [key], now: () => t * 1000 };
    expect((await verifyRequest(req, options)).outcome).toBe('verified');
    t = NOW + 300 + 61;
    const r = await verifyRequest(req, options);
    expect(r.outcome).toBe('invalid');
    expect(r.signatures[0]!.error?.code).toBe('ERR_SIGNATURE_EXPIRED');
    t = NOW;
    expect((await verifyRequest(req, options)).outcome).toBe('verified');
    expect(provider.calls).toBe(1);
  });

  it('the other checks still run on a hit: algorithms and authorities of another options object, the test-key rule', async () => {
    const { pair, key } = await setup();
    const req = await signedRequest(pair.privateJwk);
    const options: VerifyRequestOptions = { keys: [key], now: at(NOW), algorithms: ['ecdsa-p256-sha256'] };
    expect((await verifyRequest(req, options)).signatures[0]!.error?.code).toBe('ERR_ALG_NOT_ALLOWED');
    const elsewhere: VerifyRequestOptions = { keys: [key], now: at(NOW), authorities: ['example.org'] };
    expect((await verifyRequest(req, elsewhere)).signatures[0]!.error?.code).toBe('ERR_AUTHORITY_NOT_ALLOWED');
    const required: VerifyRequestOptions = { keys: [key], now: at(NOW), nonce: { policy: 'required', store: new MemoryNonceStore() } };
    expect((await verifyRequest(req, required)).signatures[0]!.error?.code).toBe('ERR_NONCE_MISSING');
  });

  it('a signature whose nonce the store records is never remembered: its second use is a replay, checked again', async () => {
    const { pair, provider, key } = await setup();
    const req = await signedRequest(pair.privateJwk, { nonce: 'n-0123456789abcdef' });
    const options: VerifyRequestOptions = { keys: [key], now: at(NOW), nonce: { policy: 'optional', store: new MemoryNonceStore() } };
    expect((await verifyRequest(req, options)).outcome).toBe('verified');
    const again = await verifyRequest(req, options);
    expect(again.signatures[0]!.error?.code).toBe('ERR_NONCE_REPLAYED');
    expect(provider.calls).toBe(2);
    // With nonces ignored (policy none) the same signature is reusable, and remembered.
    const ignoring: VerifyRequestOptions = { keys: [key], now: at(NOW), nonce: { policy: 'none' } };
    for (let i = 0; i < 3; i++) expect((await verifyRequest(req, ignoring)).outcome).toBe('verified');
    expect(provider.calls).toBe(3);
  });

  it('is bounded: maxEntries signatures are remembered, the oldest forgotten first', async () => {
    const { pair, provider, key } = await setup();
    const reqs = await Promise.all([0, 1, 2].map((i) => signedRequest(pair.privateJwk, { created: NOW - i })));
    const options: VerifyRequestOptions = { keys: [key], now: at(NOW), verifiedSignatureMemo: { maxEntries: 2 } };
    for (const req of reqs) expect((await verifyRequest(req, options)).outcome).toBe('verified');
    expect(provider.calls).toBe(3);
    // The two newest are remembered; the first was forgotten.
    expect((await verifyRequest(reqs[2]!, options)).outcome).toBe('verified');
    expect((await verifyRequest(reqs[1]!, options)).outcome).toBe('verified');
    expect(provider.calls).toBe(3);
    expect((await verifyRequest(reqs[0]!, options)).outcome).toBe('verified');
    expect(provider.calls).toBe(4);
  });

  it('checks its options where they are given', () => {
    expect(() => createVerifier({ keys: [], verifiedSignatureMemo: { maxEntries: 0 } })).toThrow(/maxEntries/);
    expect(() => createVerifier({ keys: [], verifiedSignatureMemo: { maxEntries: 1.5 } })).toThrow(TypeError);
    expect(() => createVerifier({ keys: [], verifiedSignatureMemo: { maxEntires: 10 } as never })).toThrow(/did you mean "maxEntries"/);
    expect(() => createVerifier({ keys: [], verifiedSignatureMemo: true as never })).toThrow(/verifiedSignatureMemo/);
    expect(() => createVerifier({ keys: [], verifiedSignatureMemo: { maxEntries: 10 } })).not.toThrow();
    expect(() => createVerifier({ keys: [], verifiedSignatureMemo: false })).not.toThrow();
    expect(() => createVerifier({ keys: [], verifiedSignatureMemos: false } as never)).toThrow(/did you mean "verifiedSignatureMemo"/);
  });
});

describe('VerifiedMemo', () => {
  const base = '"@authority": example.com\n"@signature-params": ("@authority");created=1';
  const sig = (first: number, last = 0) => {
    const s = new Uint8Array(64);
    s[0] = first;
    s[63] = last;
    return s;
  };

  it('answers only for the same key, base and signature bytes, and remembers its own copy', async () => {
    const { key } = await setup();
    const other = await importVerifyingKey((await otherKeyPair()).publicJwk);
    const memo = new VerifiedMemo(8);
    const s = sig(1);
    memo.remember(key as BoundVerifyingKey, base, s);
    expect(memo.has(key as BoundVerifyingKey, base, sig(1))).toBe(true);
    expect(memo.has(key as BoundVerifyingKey, base + ' ', sig(1)), 'another base').toBe(false);
    expect(memo.has(key as BoundVerifyingKey, base.slice(0, -1) + '2', sig(1)), 'a base of the same length').toBe(false);
    expect(memo.has(key as BoundVerifyingKey, base, sig(1, 9)), 'same leading bytes, another signature').toBe(false);
    expect(memo.has(key as BoundVerifyingKey, base, sig(1).subarray(0, 63)), 'a prefix of the signature').toBe(false);
    expect(memo.has(other as BoundVerifyingKey, base, sig(1)), 'another key').toBe(false);
    s[63] = 7;
    expect(memo.has(key as BoundVerifyingKey, base, sig(1)), 'the caller changing its array changes nothing').toBe(true);
  });

  it('two signatures with the same leading bytes replace each other, never answer for each other', async () => {
    const { key } = await setup();
    const memo = new VerifiedMemo(8);
    memo.remember(key as BoundVerifyingKey, base, sig(1, 1));
    memo.remember(key as BoundVerifyingKey, base, sig(1, 2));
    expect(memo.has(key as BoundVerifyingKey, base, sig(1, 2))).toBe(true);
    expect(memo.has(key as BoundVerifyingKey, base, sig(1, 1))).toBe(false);
  });

  it('holds at most maxEntries, and leaves out bases over 4 KB', async () => {
    const { key } = await setup();
    const memo = new VerifiedMemo(3);
    for (let i = 0; i < 50; i++) memo.remember(key as BoundVerifyingKey, base, sig(i));
    expect(memo.size).toBe(3);
    expect(memo.has(key as BoundVerifyingKey, base, sig(49))).toBe(true);
    expect(memo.has(key as BoundVerifyingKey, base, sig(46))).toBe(false);
    const big = 'x'.repeat(4097);
    memo.remember(key as BoundVerifyingKey, big, sig(200));
    expect(memo.has(key as BoundVerifyingKey, big, sig(200))).toBe(false);
  });
});
