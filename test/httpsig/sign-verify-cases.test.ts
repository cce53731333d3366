/**
 * Pins for the generic RFC 9421 signMessage / verifyMessage / verifySignatureBytes
 * (src/httpsig/sign.ts, src/httpsig/verify.ts) that the mutation run showed unpinned
 * (issue 20): §3.1 (creating: the parameters as given, §2.3; the label; the fields as
 * appended, §4.1/§4.2/§4.3), §3.2 (verifying: selecting by label or the first that
 * verifies, the key lookup, the error reported), §3.3 (botsig refuses shared-secret
 * algorithms everywhere, before any base is built), and the documented misuse errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { base64Decode } from '../helpers/bytes';
import { BotsigError, isBotsigError, sfToken, importSigningKey, importVerifyingKey, signMessage, verifyMessage, verifySignatureBytes } from '../../src/httpsig';
import type { AlgorithmName, SigningKey, VerifyingKey, MessageObject, SignMessageOptions, SignatureInput, VerifyMessageOptions } from '../../src/httpsig';

/** The BotsigError code and message of a rejection, `accepted` when it resolves, or the TypeError's message. */
async function outcome(p: Promise<unknown> | (() => Promise<unknown>)): Promise<string> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    if (isBotsigError(err)) return `${err.code}: ${err.message}`;
    if (err instanceof TypeError) return `TypeError: ${err.message}`;
    throw err;
  }
  return 'accepted';
}

// RFC 9421 Appendix B.1.4 `test-key-ed25519` (public test key; never trust it in production).
const ED25519_PRIVATE = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU',
  x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs',
};
const ED25519_PUBLIC = { kty: 'OKP', crv: 'Ed25519', x: ED25519_PRIVATE.x };

let signer: SigningKey;
let verifier: VerifyingKey;
let otherVerifier: VerifyingKey;

beforeAll(async () => {
  signer = await importSigningKey(ED25519_PRIVATE);
  verifier = await importVerifyingKey(ED25519_PUBLIC);
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  otherVerifier = await importVerifyingKey(pair.publicKey);
});

const request = (headers: Record<string, string> = {}): MessageObject => ({
  method: 'GET',
  url: 'https://example.com/foo?a=1',
  headers: { Host: 'example.com', ...headers },
});

/** The request signed by `signer` over `components`, the signature fields set. */
async function signed(components: string[] = ['@method', '@authority'], extra: Partial<SignMessageOptions> = {}, headers: Record<string, string> = {}) {
  const s = await signMessage(request(headers), { key: signer, components, params: { created: 1 }, ...extra });
  return request({ ...headers, 'Signature-Input': s.headers['signature-input'], Signature: s.headers.signature });
}

/** A key object made by hand around `verifier`, with its own verify. */
function handMade(verify: VerifyingKey['verify'], alg: string | null = 'ed25519'): VerifyingKey {
  return { alg: (alg ?? undefined) as AlgorithmName, thumbprint: verifier.thumbprint, jwk: verifier.jwk, verify } as VerifyingKey;
}

describe('RFC 9421 §2.3 / §3.1: signature parameters as given to signMessage', () => {
  it('params must be an object of Structured Field keys; each value a string, number, boolean or bare item', async () => {
    const sign = (params: unknown) => signMessage(request(), { key: signer, components: ['@method'], params } as SignMessageOptions);
    expect(await outcome(sign(5))).toBe('TypeError: params must be an object');
    expect(await outcome(sign('created'))).toBe('TypeError: params must be an object');
    expect(await outcome(sign(null))).toBe('TypeError: params must be an object');
    expect(await outcome(sign({ Created: 1 }))).toBe('TypeError: signature parameter names must be Structured Field keys');
    expect(await outcome(sign({ '1x': 1 }))).toBe('TypeError: signature parameter names must be Structured Field keys');
    expect(await outcome(sign({ x: null }))).toBe('TypeError: signature parameter x has an unsupported value');
    expect(await outcome(sign({ x: { type: 1 } }))).toBe('TypeError: signature parameter x has an unsupported value');
    expect(await outcome(sign({ x: { value: 'v' } }))).toBe('TypeError: signature parameter x has an unsupported value');
    expect(await outcome(sign({ x: 10n }))).toBe('TypeError: signature parameter x has an unsupported value');
    expect(await outcome(sign({ x: Object.assign(() => 0, { type: 'token', value: 't' }) }))).toBe('TypeError: signature parameter x has an unsupported value');
  });

  it('an empty params object, and params left out, give no parameters at all', async () => {
    for (const extra of [{ params: {} }, { params: undefined }, {}]) {
      const s = await signMessage(request(), { key: signer, components: ['@method'], ...extra } as SignMessageOptions);
      expect(s.headers['signature-input']).toBe('sig1=("@method")');
      expect(s.input.params.size).toBe(0);
    }
  });

  it('each value type serialises as its Structured Field type, in the given order', async () => {
    const s = await signMessage(request(), {
      key: signer,
      components: ['@method'],
      params: { nonce: 'n', created: 7, ratio: 1.25, on: true, off: false, tok: sfToken('web') },
    });
    expect(s.headers['signature-input']).toBe('sig1=("@method");nonce="n";created=7;ratio=1.25;on;off=?0;tok=web');
    expect(s.base.endsWith('\n"@signature-params": ("@method");nonce="n";created=7;ratio=1.25;on;off=?0;tok=web')).toBe(true);
  });
});

describe('signMessage: documented misuse is a TypeError naming what is wrong', () => {
  it('options, key and components', async () => {
    const sign = (m: unknown, o: unknown) => signMessage(m as MessageObject, o as SignMessageOptions);
    expect(await outcome(sign(request(), undefined))).toBe('TypeError: signMessage needs options');
    expect(await outcome(sign(request(), null))).toBe('TypeError: signMessage needs options');
    expect(await outcome(sign(request(), 'key'))).toBe('TypeError: signMessage needs options');
    for (const key of [undefined, null, 'k', {}, { sign: 'not a function', alg: 'ed25519' }]) {
      expect(await outcome(sign(request(), { key, components: [] })), JSON.stringify(key) ?? 'undefined').toBe('TypeError: options.key must be a SigningKey');
    }
    expect(await outcome(sign(request(), { key: signer }))).toBe('TypeError: options.components must be an array');
    expect(await outcome(sign(request(), { key: signer, components: '@method' }))).toBe('TypeError: options.components must be an array');
  });

  it('a component must be a string or a parsed identifier (a String name and a Map of parameters)', async () => {
    const sign = (c: unknown) => signMessage(request(), { key: signer, components: [c as string] });
    const bad = 'TypeError: components must be strings or component identifiers';
    expect(await outcome(sign(null))).toBe(bad);
    expect(await outcome(sign({ name: 1, params: new Map() }))).toBe(bad);
    expect(await outcome(sign({ name: '@method' }))).toBe(bad);
    expect(await outcome(sign({ name: '@method', params: {} }))).toBe(bad);
    // A function has a String `name` too, but is not an identifier object.
    expect(await outcome(sign(Object.assign(function method() {}, { params: new Map() })))).toBe(bad);
    const ok = await signMessage(request(), { key: signer, components: [{ name: '@method', params: new Map() }] });
    expect(ok.headers['signature-input']).toBe('sig1=("@method")');
  });
});

describe('RFC 9421 §3.3: the key and the alg parameter (botsig refuses shared-secret algorithms)', () => {
  it('ERR_ALG_MISMATCH when params.alg is a registered algorithm other than the key’s, with a message saying so', async () => {
    expect(await outcome(signMessage(request(), { key: signer, components: [], params: { alg: 'ecdsa-p256-sha256' } }))).toBe(
      'ERR_ALG_MISMATCH: the alg parameter does not match the signing key',
    );
    const s = await signMessage(request(), { key: signer, components: [], params: { alg: 'ed25519' } });
    expect(s.headers['signature-input']).toBe('sig1=();alg="ed25519"');
  });
});

describe('RFC 9421 §4.1 / §4.3: the label and the fields to set', () => {
  it('the default label skips labels used in either field; a taken label is ERR_LABEL_EXISTS naming it', async () => {
    const onlyInSignature = request({ Signature: 'sig1=:AA==:' });
    expect((await signMessage(onlyInSignature, { key: signer, components: [] })).label).toBe('sig2');
    const onlyInInput = request({ 'Signature-Input': 'sig1=()' });
    expect((await signMessage(onlyInInput, { key: signer, components: [] })).label).toBe('sig2');
    const both = request({ 'Signature-Input': 'sig1=(), sig2=()', Signature: 'sig3=:AA==:' });
    expect((await signMessage(both, { key: signer, components: [] })).label).toBe('sig4');
    expect(await outcome(signMessage(both, { key: signer, label: 'sig3', components: [] }))).toBe(
      'ERR_LABEL_EXISTS: label sig3 is already used in the message',
    );
    expect(await outcome(signMessage(both, { key: signer, label: 'Sig', components: [] }))).toBe(
      'TypeError: label must be a Structured Field key (lowercase, e.g. "sig1")',
    );
    const chosen = await signMessage(both, { key: signer, label: 'mine', components: [] });
    expect(chosen.label).toBe('mine');
    expect(chosen.input.label).toBe('mine');
    expect(chosen.headers['signature-input']).toBe('sig1=(), sig2=(), mine=()');
  });

  it('existing fields that are not Dictionaries are ERR_SIGNATURE_INPUT_PARSE / ERR_SIGNATURE_PARSE, naming the field', async () => {
    expect(await outcome(signMessage(request({ 'Signature-Input': 'sig1=(' }), { key: signer, components: [] }))).toBe(
      'ERR_SIGNATURE_INPUT_PARSE: Signature-Input is not a valid Dictionary',
    );
    expect(await outcome(signMessage(request({ Signature: 'sig1=:AA==:,' }), { key: signer, components: [] }))).toBe(
      'ERR_SIGNATURE_PARSE: Signature is not a valid Dictionary',
    );
  });

  it('an empty existing field is an empty Dictionary: the new member is the whole value, with no leading comma', async () => {
    const s = await signMessage(request({ 'Signature-Input': '', Signature: '' }), { key: signer, components: ['@method'] });
    expect(s.label).toBe('sig1');
    expect(s.headers['signature-input']).toBe('sig1=("@method")');
    expect(s.headers.signature).toMatch(/^sig1=:[A-Za-z0-9+/]+=*:$/);
  });

  it('existing members are kept as sent and the new one appended after ", " (the signature as Byte Sequence, §4.2)', async () => {
    const m = request({ 'Signature-Input': 'a=()', Signature: 'a=:AA==:' });
    const s = await signMessage(m, { key: signer, components: ['@method'] });
    expect(s.headers['signature-input']).toBe('a=(), sig1=("@method")');
    expect(s.headers.signature.startsWith('a=:AA==:, sig1=:')).toBe(true);
    expect(base64Decode(s.headers.signature.slice('a=:AA==:, sig1=:'.length, -1))).toEqual(s.signature);
  });
});

describe('RFC 9421 §2.2.8: signMessage refuses a @query-param that names a repeated parameter', () => {
  it('ERR_COMPONENT_INVALID with the advice to cover @query; a single occurrence signs', async () => {
    const m = { method: 'GET', url: 'https://example.com/?a=1&a=2&b=3' };
    expect(await outcome(signMessage(m, { key: signer, components: ['@method', '"@query-param";name="a"'] }))).toBe(
      'ERR_COMPONENT_INVALID: @query-param names a repeated query parameter (RFC 9421 §2.2.8); cover @query instead',
    );
    const s = await signMessage(m, { key: signer, components: ['@method', '"@query-param";name="b"'] });
    expect(s.base.split('\n')[1]).toBe('"@query-param";name="b": 3');
  });

  it('only @query-param is checked ahead: other components report their errors in component order (§2.5 step 1)', async () => {
    // A duplicated component comes before a missing one: the duplicate is the error.
    const dup = await outcome(signMessage(request(), { key: signer, components: ['@method', '@method', 'x-missing'] }));
    expect(dup.split(':')[0]).toBe('ERR_COMPONENT_DUPLICATE');
    const missing = await outcome(signMessage(request(), { key: signer, components: ['x-missing', '@method', '@method'] }));
    expect(missing.split(':')[0]).toBe('ERR_COMPONENT_MISSING');
  });
});

describe('RFC 9421 §3.2: verifySignatureBytes', () => {
  it('a key that is not a VerifyingKey is a TypeError', async () => {
    const s = await signMessage(request(), { key: signer, components: ['@method'] });
    for (const key of [null, 'k', {}, { alg: 'ed25519', verify: 'x' }]) {
      expect(await outcome(verifySignatureBytes(key as unknown as VerifyingKey, s.base, s.signature)), JSON.stringify(key) ?? 'undefined').toBe(
        'TypeError: key must be a VerifyingKey',
      );
    }
  });

  it('a function is not a VerifyingKey, even with a verify and a registry algorithm: TypeError, not a failed verification', async () => {
    const s = await signMessage(request(), { key: signer, components: ['@method'] });
    const fnKey = Object.assign(() => undefined, { alg: 'ed25519', thumbprint: verifier.thumbprint, verify: async () => true }) as unknown as VerifyingKey;
    expect(await outcome(verifySignatureBytes(fnKey, s.base, s.signature))).toBe('TypeError: key must be a VerifyingKey');
  });

  it('only a verify that answers `true` verifies; a BotsigError from the key passes through, other failures are false', async () => {
    const s = await signMessage(request(), { key: signer, components: ['@method'] });
    expect(
      await verifySignatureBytes(
        handMade(async () => 'yes' as unknown as boolean),
        s.base,
        s.signature,
      ),
    ).toBe(false);
    expect(
      await verifySignatureBytes(
        handMade(async () => 1 as unknown as boolean),
        s.base,
        s.signature,
      ),
    ).toBe(false);
    expect(
      await verifySignatureBytes(
        handMade(async () => true),
        s.base,
        s.signature,
      ),
    ).toBe(true);
    expect(
      await verifySignatureBytes(
        handMade(() => Promise.reject(new RangeError('bad bytes'))),
        s.base,
        s.signature,
      ),
    ).toBe(false);
    const unsupported = handMade(() => Promise.reject(new BotsigError('ERR_CRYPTO_UNSUPPORTED', 'no Ed25519 here')));
    expect(await outcome(verifySignatureBytes(unsupported, s.base, s.signature))).toBe('ERR_CRYPTO_UNSUPPORTED: no Ed25519 here');
  });

  it('a key object made by hand must name a registry algorithm; alg must equal it (§3.2 step 6.4)', async () => {
    const s = await signMessage(request(), { key: signer, components: ['@method'] });
    const real = handMade((data, sig) => verifier.verify(data, sig));
    expect(await verifySignatureBytes(real, s.base, s.signature, 'ed25519')).toBe(true);
    expect(await outcome(verifySignatureBytes(real, s.base, s.signature, 'ecdsa-p256-sha256'))).toBe(
      'ERR_ALG_MISMATCH: the alg parameter does not match the key',
    );
    expect((await outcome(verifySignatureBytes(handMade(real.verify, 'hmac-sha256'), s.base, s.signature))).split(':')[0]).toBe('ERR_ALG_NOT_ALLOWED');
    // A key that names no algorithm and was not imported by botsig cannot be bound to one.
    expect((await outcome(verifySignatureBytes(handMade(real.verify, null), s.base, s.signature, 'ed25519'))).split(':')[0]).toBe('ERR_ALG_MISMATCH');
  });
});

describe('RFC 9421 §3.2: verifyMessage', () => {
  it('documented misuse is a TypeError naming what is wrong', async () => {
    const m = await signed();
    const verify = (o: unknown) => verifyMessage(m, o as VerifyMessageOptions);
    expect(await outcome(verify(undefined))).toBe('TypeError: verifyMessage needs options');
    expect(await outcome(verify(null))).toBe('TypeError: verifyMessage needs options');
    expect(await outcome(verify('key'))).toBe('TypeError: verifyMessage needs options');
    expect(await outcome(verify({}))).toBe('TypeError: verifyMessage needs options.key or options.keyLookup');
    expect(await outcome(verify({ keyLookup: 'k' }))).toBe('TypeError: verifyMessage needs options.key or options.keyLookup');
    const algs = 'TypeError: options.algorithms must list RFC 9421 asymmetric algorithm names';
    expect(await outcome(verify({ key: verifier, algorithms: 'ed25519' }))).toBe(algs);
    expect(await outcome(verify({ key: verifier, algorithms: new Set(['ed25519']) }))).toBe(algs);
    expect(await outcome(verify({ key: verifier, algorithms: ['ed25519', 'hmac-sha256'] }))).toBe(algs);
    expect(await outcome(verify({ key: verifier, algorithms: ['ed25519'] }))).toBe('accepted');
    // keyLookup is enough; a key that is given wins over a lookup that is not a function.
    expect(await outcome(verify({ keyLookup: () => verifier }))).toBe('accepted');
    expect(await outcome(verify({ key: verifier, keyLookup: 'k' }))).toBe('accepted');
  });

  it('the keyLookup is asked with the signature input and its answer must be a VerifyingKey', async () => {
    const m = await signed(['@method'], { params: { keyid: 'k1' } });
    const asked: SignatureInput[] = [];
    const v = await verifyMessage(m, {
      keyLookup: (input) => {
        asked.push(input);
        return verifier;
      },
    });
    expect(asked.map((i) => [i.label, i.params.get('keyid')?.value])).toEqual([['sig1', 'k1']]);
    expect(v.key).toBe(verifier);
    expect(v.params).toEqual({ keyid: 'k1' });
    expect(await outcome(verifyMessage(m, { keyLookup: () => ({}) as VerifyingKey }))).toBe('TypeError: key must be a VerifyingKey');
    expect(await outcome(verifyMessage(m, { keyLookup: () => null as unknown as VerifyingKey }))).toBe('TypeError: key must be a VerifyingKey');
    // The shape is checked before the algorithm: a function naming an unknown algorithm is still a TypeError.
    const fnKey = Object.assign(() => undefined, { alg: 'none', verify: async () => true }) as unknown as VerifyingKey;
    expect(await outcome(verifyMessage(m, { keyLookup: () => fnKey }))).toBe('TypeError: key must be a VerifyingKey');
    expect(await outcome(verifyMessage(m, { key: fnKey }))).toBe('TypeError: key must be a VerifyingKey');
    expect(await outcome(verifyMessage(m, { keyLookup: () => undefined, label: 'sig1' }))).toBe('ERR_KEY_UNKNOWN: no key for signature sig1');
  });

  it('§3.3: a shared-secret or unknown key algorithm is refused before the base is built', async () => {
    // The message lacks the covered `x-missing`: building the base would fail with ERR_COMPONENT_MISSING.
    const m = request({ 'Signature-Input': 'sig1=("x-missing");created=1', Signature: 'sig1=:AA==:' });
    const hmacKey = handMade(async () => true, 'hmac-sha256');
    expect((await outcome(verifyMessage(m, { key: hmacKey }))).split(':')[0]).toBe('ERR_ALG_NOT_ALLOWED');
    expect((await outcome(verifyMessage(m, { keyLookup: () => hmacKey }))).split(':')[0]).toBe('ERR_ALG_NOT_ALLOWED');
    expect((await outcome(verifyMessage(m, { key: handMade(async () => true, 'none') }))).split(':')[0]).toBe('ERR_ALG_UNKNOWN');
    expect((await outcome(verifyMessage(m, { key: verifier }))).split(':')[0]).toBe('ERR_COMPONENT_MISSING');
  });

  it('§3.2 step 6.4: an alg parameter the key does not serve is ERR_ALG_MISMATCH naming the signature', async () => {
    const m = request({ 'Signature-Input': 'mine=("@method");alg="ecdsa-p256-sha256"', Signature: 'mine=:AA==:' });
    expect(await outcome(verifyMessage(m, { key: verifier }))).toBe('ERR_ALG_MISMATCH: signature mine names an alg that does not match the key');
    const allowed = await signed(['@method']);
    expect(await outcome(verifyMessage(allowed, { key: verifier, algorithms: ['ecdsa-p256-sha256'] }))).toBe(
      'ERR_ALG_NOT_ALLOWED: the key algorithm of signature sig1 is not allowed',
    );
  });

  it('a signature that does not verify is ERR_SIGNATURE_INVALID naming it; a missing label is ERR_LABEL_MISSING', async () => {
    const m = await signed(['@method']);
    expect(await outcome(verifyMessage(m, { key: otherVerifier }))).toBe('ERR_SIGNATURE_INVALID: signature sig1 does not verify');
    expect(await outcome(verifyMessage(m, { key: verifier, label: 'sig9' }))).toBe('ERR_LABEL_MISSING: no signature labelled sig9');
    expect(await outcome(verifyMessage(request(), { key: verifier }))).toBe('ERR_NO_SIGNATURE: the message has no Signature-Input or Signature field');
  });

  it('without a label: the first signature that verifies wins; when none does, the error of the first is thrown', async () => {
    const one = await signMessage(request(), { key: signer, components: ['@method'], params: { keyid: 'a' } });
    const two = await signMessage(request({ 'Signature-Input': one.headers['signature-input'], Signature: one.headers.signature }), {
      key: signer,
      components: ['@authority'],
      params: { keyid: 'b' },
    });
    const m = request({ 'Signature-Input': two.headers['signature-input'], Signature: two.headers.signature });
    // sig1 has no key (ERR_KEY_UNKNOWN), sig2 verifies.
    const onlyB = (input: SignatureInput) => (input.params.get('keyid')?.value === 'b' ? verifier : undefined);
    expect(await verifyMessage(m, { keyLookup: onlyB })).toMatchObject({ label: 'sig2', params: { keyid: 'b' } });
    // sig1 has no key, sig2 does not verify: sig1's error.
    const wrongB = (input: SignatureInput) => (input.params.get('keyid')?.value === 'b' ? otherVerifier : undefined);
    expect(await outcome(verifyMessage(m, { keyLookup: wrongB }))).toBe('ERR_KEY_UNKNOWN: no key for signature sig1');
    // sig1 does not verify, sig2 has no key: sig1's error.
    const wrongA = (input: SignatureInput) => (input.params.get('keyid')?.value === 'a' ? otherVerifier : undefined);
    expect(await outcome(verifyMessage(m, { keyLookup: wrongA }))).toBe('ERR_SIGNATURE_INVALID: signature sig1 does not verify');
  });

  it('an error that is not a BotsigError (a broken keyLookup) ends verification at once: no later signature is tried', async () => {
    const one = await signMessage(request(), { key: signer, components: ['@method'], params: { keyid: 'a' } });
    const two = await signMessage(request({ 'Signature-Input': one.headers['signature-input'], Signature: one.headers.signature }), {
      key: signer,
      components: ['@authority'],
      params: { keyid: 'b' },
    });
    const m = request({ 'Signature-Input': two.headers['signature-input'], Signature: two.headers.signature });
    const asked: string[] = [];
    const broken = (input: SignatureInput) => {
      asked.push(input.label);
      if (input.label === 'sig1') throw new RangeError('lookup down');
      return verifier;
    };
    await expect(verifyMessage(m, { keyLookup: broken })).rejects.toThrow(RangeError);
    expect(asked).toEqual(['sig1']);
  });

  it('§2.4: a response with ;req components verifies only with its request', async () => {
    const req = { method: 'POST', url: 'https://example.com/orders' };
    const res = { status: 201, headers: { 'Content-Type': 'text/plain' } };
    const s = await signMessage(res, { key: signer, request: req, components: ['@status', '@method;req', '@path;req'] });
    expect(s.base.split('\n').slice(0, 3)).toEqual(['"@status": 201', '"@method";req: POST', '"@path";req: /orders']);
    const signedRes = { ...res, headers: { ...res.headers, ...s.headers } };
    expect(await verifyMessage(signedRes, { key: verifier, request: req })).toMatchObject({ label: 'sig1', base: s.base });
    expect((await outcome(verifyMessage(signedRes, { key: verifier }))).split(':')[0]).toBe('ERR_COMPONENT_MISSING');
    // Without a request, a response signs its own components only.
    const own = await signMessage(res, { key: signer, components: ['@status'] });
    expect(own.base).toBe('"@status": 201\n"@signature-params": ("@status")');
  });
});

describe('RFC 9421 §2.4 with ;req: a response covering a signature of its request', () => {
  it('without the request, the signature it names is missing: a BotsigError, not a failed property read', async () => {
    const response = { status: 200, headers: { 'content-type': 'text/plain' } };
    const refused = await signMessage(response, { key: signer, components: ['"signature";req;key="sig1"'], params: { created: 1 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isBotsigError(refused), String(refused)).toBe(true);
    expect((refused as BotsigError).code).toBe('ERR_COMPONENT_MISSING');
  });
});
