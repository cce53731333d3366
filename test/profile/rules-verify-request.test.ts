/**
 * verifyRequest's security decisions, one rule per test, each on every path it has
 * (issue 20: the mutation run showed these could be removed or flipped with the suite
 * still green). Signatures are made with `signMessage`, so that any parameter set can be
 * signed validly; the outcome is asserted as well as the code.
 */
import { describe, expect, it } from 'vitest';
import { BotsigError, verifyRequest, MemoryNonceStore } from '../../src/index';
import type { Jwk, SigningKey, VerifyingKey, VerificationResult, VerifyRequestOptions, NonceStore } from '../../src/index';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';
import type { BareItem } from '../../src/httpsig';
import { FakeDirectory, keyPair, otherKeyPair, setParam, T0 } from './helpers';

const NOW = T0 + 1000;
const URL = 'https://example.com/a';
const SKEW = 60;

interface Keys {
  signing: SigningKey;
  verifying: VerifyingKey;
  publicJwk: Jwk;
}
let mine: Keys | undefined;
let theirs: Keys | undefined;
async function keysOf(pair: Awaited<ReturnType<typeof keyPair>>): Promise<Keys> {
  return { signing: await importSigningKey(pair.privateJwk), verifying: await importVerifyingKey(pair.publicJwk), publicJwk: pair.publicJwk };
}
async function me(): Promise<Keys> {
  return (mine ??= await keysOf(await keyPair()));
}
async function other(): Promise<Keys> {
  return (theirs ??= await keysOf(await otherKeyPair()));
}

type Req = { method: string; url: string; headers: Record<string, string> };

/** A request signed over `components` with exactly `params` (keyid and tag web-bot-auth unless given). */
async function signed(
  params: Record<string, string | number | BareItem | undefined>,
  components: string[] = ['@authority'],
  headers: Record<string, string> = {},
): Promise<Req> {
  const k = await me();
  const all: Record<string, string | number | BareItem> = {};
  const merged = { created: NOW - 10, expires: NOW + 290, keyid: k.verifying.thumbprint, tag: 'web-bot-auth', ...params };
  for (const [name, v] of Object.entries(merged)) if (v !== undefined) all[name] = v;
  const req: Req = { method: 'GET', url: URL, headers: { ...headers } };
  const out = await signMessage(req, { key: k.signing, label: 'sig1', components, params: all });
  req.headers['signature-input'] = out.headers['signature-input'];
  req.headers.signature = out.headers.signature;
  return req;
}

async function verify(req: Req, extra: VerifyRequestOptions = {}): Promise<VerificationResult> {
  return verifyRequest(req, { keys: [(await me()).publicJwk], now: () => NOW * 1000, nonce: { policy: 'optional' }, ...extra });
}

function first(r: VerificationResult): { outcome: string; code: string | undefined } {
  return { outcome: r.signatures[0]!.outcome, code: r.signatures[0]!.error?.code };
}

describe('SPEC 5.1 freshness: every failure is invalid, with its code; boundaries in whole seconds', () => {
  it('a fresh signature verifies (the reference for the cases below)', async () => {
    const r = await verify(await signed({}));
    expect(r.outcome).toBe('verified');
    expect(first(r)).toEqual({ outcome: 'verified', code: undefined });
  });

  it('created missing: invalid, ERR_CREATED_MISSING', async () => {
    const r = await verify(await signed({ created: undefined }));
    expect([r.outcome, first(r)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_CREATED_MISSING' }]);
  });

  it('expires missing: invalid, ERR_EXPIRES_MISSING', async () => {
    const r = await verify(await signed({ expires: undefined }));
    expect([r.outcome, first(r)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_EXPIRES_MISSING' }]);
  });

  it('created = now + skew verifies; one second later: invalid, ERR_CREATED_IN_FUTURE', async () => {
    expect((await verify(await signed({ created: NOW + SKEW, expires: NOW + SKEW + 10 }))).outcome).toBe('verified');
    const r = await verify(await signed({ created: NOW + SKEW + 1, expires: NOW + SKEW + 10 }));
    expect([r.outcome, first(r)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_CREATED_IN_FUTURE' }]);
  });

  it('created during the current second is not in the future (ceil of now), with skew 0', async () => {
    const req = await signed({ created: NOW + 1, expires: NOW + 100 });
    expect((await verify(req, { now: () => NOW * 1000 + 1, clockSkewSeconds: 0 })).outcome).toBe('verified');
    expect(first(await verify(req, { now: () => NOW * 1000, clockSkewSeconds: 0 })).code).toBe('ERR_CREATED_IN_FUTURE');
  });

  it('expires = now - skew verifies; one second earlier: invalid, ERR_SIGNATURE_EXPIRED', async () => {
    expect((await verify(await signed({ created: NOW - 200, expires: NOW - SKEW }))).outcome).toBe('verified');
    const r = await verify(await signed({ created: NOW - 200, expires: NOW - SKEW - 1 }));
    expect([r.outcome, first(r)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_SIGNATURE_EXPIRED' }]);
  });

  it('expires during the current second has not expired (floor of now), with skew 0', async () => {
    const req = await signed({ created: NOW - 100, expires: NOW });
    expect((await verify(req, { now: () => NOW * 1000 + 999, clockSkewSeconds: 0 })).outcome).toBe('verified');
    expect(first(await verify(req, { now: () => (NOW + 1) * 1000, clockSkewSeconds: 0 })).code).toBe('ERR_SIGNATURE_EXPIRED');
  });

  it('expires = created verifies; expires < created: invalid, ERR_PARAM_INVALID', async () => {
    expect((await verify(await signed({ created: NOW - 5, expires: NOW - 5 }))).outcome).toBe('verified');
    const r = await verify(await signed({ created: NOW - 5, expires: NOW - 6 }));
    expect([r.outcome, first(r)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_PARAM_INVALID' }]);
  });

  it('expires - created = maxValiditySeconds verifies; one more: invalid, ERR_VALIDITY_TOO_LONG', async () => {
    expect((await verify(await signed({ created: NOW - 10, expires: NOW + 90 }), { maxValiditySeconds: 100 })).outcome).toBe('verified');
    const r = await verify(await signed({ created: NOW - 10, expires: NOW + 91 }), { maxValiditySeconds: 100 });
    expect([r.outcome, first(r)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_VALIDITY_TOO_LONG' }]);
  });
});

describe('SPEC 5.1 freshness failures say which signature and which rule', () => {
  for (const [params, message, extra] of [
    [{ created: undefined }, 'signature "sig1" has no created parameter', {}],
    [{ expires: undefined }, 'signature "sig1" has no expires parameter', {}],
    [{ created: NOW + 3600, expires: NOW + 3700 }, 'signature "sig1" was created in the future', {}],
    [{ created: NOW - 7200, expires: NOW - 3600 }, 'signature "sig1" has expired', {}],
    [{ created: NOW - 5, expires: NOW - 6 }, 'signature "sig1" expires before it was created', {}],
    [{ created: NOW - 10, expires: NOW + 200 }, 'signature "sig1" is valid for longer than 100 s', { maxValiditySeconds: 100 }],
  ] as const) {
    it(message, async () => {
      const r = await verify(await signed(params), extra);
      expect(r.signatures[0]!.error?.message).toBe(message);
    });
  }
});

describe('what a signature covers, as reported, on both readers', () => {
  for (const [path, extra] of [
    ['direct reader', {}],
    ['general parser', { x: 1 }],
  ] as const) {
    it(`${path}: covered lists each identifier as serialised, and requiredComponents checks them`, async () => {
      const plain = await signed({ ...extra }, ['@authority', '@method']);
      const r = await verify(plain, { requiredComponents: ['@method'] });
      expect(r.outcome).toBe('verified');
      expect(r.signatures[0]!.covered).toEqual(['"@authority"', '"@method"']);
      const missing = await verify(await signed({ ...extra }, ['@authority']), { requiredComponents: ['@method'] });
      expect(first(missing)).toEqual({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
    });
  }
});

describe('a component identifier is the same whatever the order of its parameters (RFC 9421 §2)', () => {
  const dict = { 'example-dict': 'a=1, b=2' };
  for (const [path, extra] of [
    ['direct reader', {}],
    ['general parser', { x: 1 }],
  ] as const) {
    it(`${path}: requiredComponents written in another parameter order is covered`, async () => {
      const req = await signed({ ...extra }, ['@authority', '"example-dict";sf;key="a"'], dict);
      for (const required of ['"example-dict";key="a";sf', 'example-dict;sf;key="a"']) {
        const r = await verify(req, { requiredComponents: [required] });
        expect(r.outcome).toBe('verified');
      }
      // Another member, or the member without sf, is another component.
      for (const required of ['"example-dict";key="b";sf', '"example-dict";key="a"']) {
        expect(first(await verify(req, { requiredComponents: [required] }))).toEqual({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
      }
    });
  }

  it("a covered signature's Signature-Input and components count in any parameter order", async () => {
    const k = await me();
    const params = { created: NOW - 10, expires: NOW + 290, keyid: k.verifying.thumbprint, tag: 'web-bot-auth' };
    const req: Req = { method: 'GET', url: URL, headers: { ...dict } };
    const inner = await signMessage(req, { key: k.signing, label: 'sig1', components: ['@authority', '"example-dict";sf;key="a"'], params });
    req.headers['signature-input'] = inner.headers['signature-input'];
    req.headers.signature = inner.headers.signature;
    const outer = await signMessage(req, {
      key: k.signing,
      label: 'sig2',
      components: ['@authority', '"example-dict";key="a";sf', '"signature-input";key="sig1"', '"signature";key="sig1"'],
      params,
    });
    req.headers['signature-input'] = outer.headers['signature-input'];
    req.headers.signature = outer.headers.signature;
    const r = await verify(req);
    expect(r.signatures.map((s) => [s.label, s.outcome])).toEqual([
      ['sig1', 'verified'],
      ['sig2', 'verified'],
    ]);
  });
});

describe("the origin's own authorities (options.authorities)", () => {
  it('a signature made for another authority is invalid (ERR_AUTHORITY_NOT_ALLOWED); for one of ours it verifies', async () => {
    const req = await signed({});
    expect(first(await verify(req, { authorities: ['other.example'] }))).toEqual({ outcome: 'invalid', code: 'ERR_AUTHORITY_NOT_ALLOWED' });
    expect((await verify(req, { authorities: ['other.example', 'example.com'] })).outcome).toBe('verified');
  });
});

describe('a clock or option that gives no number never lets a stale signature through', () => {
  for (const [name, value] of [
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a string', '1735690600000' as unknown as number],
    ['undefined', undefined as unknown as number],
  ] as const) {
    it(`now() returning ${name}: unverified, ERR_INTERNAL (an expired signature is not verified)`, async () => {
      const req = await signed({ created: NOW - 7200, expires: NOW - 3600 });
      const r = await verify(req, { now: () => value });
      expect(r.outcome).toBe('unverified');
      expect(r.error?.code).toBe('ERR_INTERNAL');
      expect(r.signatures).toEqual([]);
    });
  }

  for (const bad of [Number.NaN, -1, Number.POSITIVE_INFINITY, '60' as unknown as number]) {
    it(`clockSkewSeconds ${String(bad)} is refused (TypeError)`, async () => {
      await expect(verify(await signed({}), { clockSkewSeconds: bad })).rejects.toThrow(/clockSkewSeconds/);
    });
  }

  for (const bad of [Number.NaN, 0, -1, '300' as unknown as number]) {
    it(`maxValiditySeconds ${String(bad)} is refused (TypeError)`, async () => {
      await expect(verify(await signed({}), { maxValiditySeconds: bad })).rejects.toThrow(/maxValiditySeconds/);
    });
  }

  it('clockSkewSeconds 0 and a fractional maxValiditySeconds are accepted', async () => {
    expect((await verify(await signed({}), { clockSkewSeconds: 0, maxValiditySeconds: 300.5 })).outcome).toBe('verified');
  });
});

describe('SPEC 5.1: keyid is required', () => {
  it('a web-bot-auth signature without keyid: invalid, ERR_PARAM_INVALID, before any key lookup', async () => {
    let asked = 0;
    const req = await signed({ keyid: undefined });
    const r = await verifyRequest(req, {
      now: () => NOW * 1000,
      resolveKey: () => {
        asked++;
        return undefined;
      },
    });
    expect([r.outcome, first(r)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_PARAM_INVALID' }]);
    expect(r.signatures[0]!.error?.message).toContain('keyid');
    expect(asked).toBe(0);
  });
});

describe('SPEC 5.3 rule 2: only web-bot-auth signatures are judged, on the direct reader and the general parser alike', () => {
  // An unregistered parameter (`x`) makes the direct reader give up: the general parser reads it.
  for (const [path, extra] of [
    ['direct reader', {}],
    ['general parser', { x: 1 }],
  ] as const) {
    it(`${path}: tag "other" is skipped (unverified, ERR_TAG_MISMATCH); the same signature tagged web-bot-auth verifies`, async () => {
      const skipped = await verify(await signed({ tag: 'other', ...extra }));
      expect([skipped.outcome, first(skipped)]).toEqual(['unverified', { outcome: 'unverified', code: 'ERR_TAG_MISMATCH' }]);
      const judged = await verify(await signed({ ...extra }));
      expect(judged.outcome).toBe('verified');
    });

    it(`${path}: no tag at all is skipped`, async () => {
      const r = await verify(await signed({ tag: undefined, ...extra }));
      expect(first(r)).toEqual({ outcome: 'unverified', code: 'ERR_TAG_MISMATCH' });
    });
  }

  it('general parser: a Token web-bot-auth is not the String tag', async () => {
    const req = await signed({ x: 1 });
    req.headers['signature-input'] = setParam(req.headers['signature-input']!, 'sig1', 'tag', { type: 'token', value: 'web-bot-auth' });
    expect(first(await verify(req))).toEqual({ outcome: 'unverified', code: 'ERR_TAG_MISMATCH' });
  });
});

describe('keys are matched by thumbprint = keyid (SPEC 5.3), among several directory keys', () => {
  const AGENT = 'https://agent.example';
  async function viaDirectory(keys: VerifyingKey[]): Promise<VerificationResult> {
    const req = await signed({}, ['@authority', '"signature-agent";key="agent1"'], { 'signature-agent': `agent1="${AGENT}"` });
    return verifyRequest(req, {
      now: () => NOW * 1000,
      directory: new FakeDirectory({ [AGENT]: keys }),
    });
  }

  it('the key named by keyid is used, whether it comes first or last', async () => {
    const [a, b] = [(await me()).verifying, (await other()).verifying];
    for (const keys of [
      [b, a],
      [a, b],
    ]) {
      const r = await viaDirectory(keys);
      expect(r.outcome).toBe('verified');
      expect(r.signatures[0]!.keyid).toBe(a.thumbprint);
    }
  });

  it('a resolver answering with another key than the keyid names is ignored: unverified, ERR_KEY_UNKNOWN', async () => {
    const req = await signed({});
    const wrong = await other();
    const r = await verifyRequest(req, { now: () => NOW * 1000, resolveKey: () => wrong.publicJwk });
    expect([r.outcome, first(r)]).toEqual(['unverified', { outcome: 'unverified', code: 'ERR_KEY_UNKNOWN' }]);
    const right = await verifyRequest(req, { now: () => NOW * 1000, resolveKey: async () => (await me()).publicJwk });
    expect(right.outcome).toBe('verified');
  });

  it('SPEC 2.3: of several String members covered whole, the first that yields the key is used; a failing one is skipped', async () => {
    const two = '"https://broken.example", "https://agent.example"';
    const req = await signed({}, ['@authority', 'signature-agent'], { 'signature-agent': two });
    const directory = new FakeDirectory({ 'https://agent.example': [(await me()).verifying] });
    const r = await verifyRequest(req, { now: () => NOW * 1000, directory });
    expect(r.outcome).toBe('verified');
    expect(directory.calls.map((m) => m.url)).toEqual(['https://broken.example', 'https://agent.example']);
    // When none yields it, the first failure is the reason.
    const none = await verifyRequest(req, { now: () => NOW * 1000, directory: new FakeDirectory({}) });
    expect(first(none)).toEqual({ outcome: 'unverified', code: 'ERR_DIRECTORY_FETCH' });
  });

  it('a directory without that key: unverified, ERR_KEY_UNKNOWN (the first key is not tried in its place)', async () => {
    const r = await viaDirectory([(await other()).verifying]);
    expect([r.outcome, first(r)]).toEqual(['unverified', { outcome: 'unverified', code: 'ERR_KEY_UNKNOWN' }]);
  });
});

describe('RFC 9421 §2.2.1: a method that is not a token never reaches a verified result', () => {
  it('a request whose method has a line break is not verified', async () => {
    const req = await signed({}, ['@authority', '@method']);
    const r = await verify({ ...req, method: 'GET\r\nX: y' });
    expect(r.outcome).not.toBe('verified');
    expect(first(r).code).toBe('ERR_MESSAGE_INVALID');
  });
});

describe('setParam keeps working as a way to break a signed input (helper sanity)', () => {
  it('changing created after signing invalidates the signature', async () => {
    const req = await signed({});
    req.headers['signature-input'] = setParam(req.headers['signature-input']!, 'sig1', 'created', { type: 'integer', value: NOW - 11 });
    expect(first(await verify(req))).toEqual({ outcome: 'invalid', code: 'ERR_SIGNATURE_INVALID' });
  });
});

describe('SPEC 5.3 rule 5: nonces', () => {
  async function signedBy(k: Keys, params: Record<string, string | number>): Promise<Req> {
    const req: Req = { method: 'GET', url: URL, headers: {} };
    const all = { created: NOW - 10, expires: NOW + 290, keyid: k.verifying.thumbprint, tag: 'web-bot-auth', ...params };
    const out = await signMessage(req, { key: k.signing, label: 'sig1', components: ['@authority'], params: all });
    req.headers['signature-input'] = out.headers['signature-input'];
    req.headers.signature = out.headers.signature;
    return req;
  }

  it('scoped by agent: the same nonce from two keys is two nonces; from the same key again, a replay (invalid)', async () => {
    const [a, b] = [await me(), await other()];
    const options: VerifyRequestOptions = {
      keys: [a.publicJwk, b.publicJwk],
      now: () => NOW * 1000,
      nonce: { policy: 'optional', store: new MemoryNonceStore() },
    };
    expect((await verifyRequest(await signedBy(a, { nonce: 'same' }), options)).outcome).toBe('verified');
    expect((await verifyRequest(await signedBy(b, { nonce: 'same' }), options)).outcome).toBe('verified');
    const again = await verifyRequest(await signedBy(a, { nonce: 'same' }), options);
    expect([again.outcome, first(again)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_NONCE_REPLAYED' }]);
  });

  it('a nonce is remembered for as long as its signature is accepted: through the last second of expires + skew', async () => {
    const a = await me();
    const store = new MemoryNonceStore();
    const req = await signedBy(a, { nonce: 'late', created: NOW - 10, expires: NOW + 10 });
    const at = (ms: number): VerifyRequestOptions => ({ keys: [a.publicJwk], now: () => ms, nonce: { policy: 'optional', store } });
    expect((await verifyRequest(req, at(NOW * 1000))).outcome).toBe('verified');
    const last = await verifyRequest(req, at((NOW + 10 + SKEW) * 1000 + 999));
    expect(first(last)).toEqual({ outcome: 'invalid', code: 'ERR_NONCE_REPLAYED' });
    expect(first(await verifyRequest(req, at((NOW + 10 + SKEW + 1) * 1000)))).toEqual({ outcome: 'invalid', code: 'ERR_SIGNATURE_EXPIRED' });
  });

  it('maxLength: a nonce of exactly that length verifies, one longer is invalid (ERR_NONCE_TOO_LONG); policy none does not look', async () => {
    const a = await me();
    const opts = (policy: 'none' | 'optional' | 'required'): VerifyRequestOptions => ({
      keys: [a.publicJwk],
      now: () => NOW * 1000,
      nonce: { policy, maxLength: 8, store: new MemoryNonceStore() },
    });
    expect((await verifyRequest(await signedBy(a, { nonce: '12345678' }), opts('optional'))).outcome).toBe('verified');
    const long = await signedBy(a, { nonce: '123456789' });
    expect(first(await verifyRequest(long, opts('optional')))).toEqual({ outcome: 'invalid', code: 'ERR_NONCE_TOO_LONG' });
    expect(first(await verifyRequest(long, opts('required')))).toEqual({ outcome: 'invalid', code: 'ERR_NONCE_TOO_LONG' });
    expect((await verifyRequest(long, opts('none'))).outcome).toBe('verified');
  });

  it('policy required: no nonce is invalid (ERR_NONCE_MISSING); optional: verified', async () => {
    const a = await me();
    const req = await signedBy(a, {});
    const r = await verifyRequest(req, { keys: [a.publicJwk], now: () => NOW * 1000, nonce: { policy: 'required' } });
    expect([r.outcome, first(r)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_NONCE_MISSING' }]);
    expect((await verifyRequest(req, { keys: [a.publicJwk], now: () => NOW * 1000, nonce: { policy: 'optional' } })).outcome).toBe('verified');
  });

  describe('what the store answers decides the outcome, synchronously or not', () => {
    for (const [what, answer, outcome, code] of [
      ['true', true, 'verified', undefined],
      ['false (a replay)', false, 'invalid', 'ERR_NONCE_REPLAYED'],
      ['a quota error', new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', 'full'), 'unverified', 'ERR_NONCE_QUOTA_EXCEEDED'],
      ['a nonce-too-long error', new BotsigError('ERR_NONCE_TOO_LONG', 'long'), 'invalid', 'ERR_NONCE_TOO_LONG'],
      ['another BotsigError', new BotsigError('ERR_INTERNAL', 'x'), 'unverified', 'ERR_NONCE_STORE_UNAVAILABLE'],
      ['a plain Error', new Error('down'), 'unverified', 'ERR_NONCE_STORE_UNAVAILABLE'],
      ['something that is not a boolean', 'yes', 'unverified', 'ERR_NONCE_STORE_UNAVAILABLE'],
    ] as const) {
      for (const async of [false, true]) {
        it(`${what}${async ? ' (as a promise)' : ''}: ${outcome}${code === undefined ? '' : `, ${code}`}`, async () => {
          const a = await me();
          const store: NonceStore = {
            checkAndRecord: () => {
              if (answer instanceof Error) {
                if (async) return Promise.reject(answer);
                throw answer;
              }
              return (async ? Promise.resolve(answer) : answer) as boolean;
            },
          };
          const r = await verifyRequest(await signedBy(a, { nonce: 'n' }), {
            keys: [a.publicJwk],
            now: () => NOW * 1000,
            nonce: { policy: 'optional', store },
          });
          expect(first(r)).toEqual({ outcome, code });
        });
      }
    }
  });
});

describe('request-level answers (SPEC 5.3, SPEC 7)', () => {
  async function twoSignatures(): Promise<Req> {
    const k = await me();
    const req = await signed({});
    const out = await signMessage(req, {
      key: k.signing,
      label: 'sig2',
      components: ['@authority'],
      params: { created: NOW - 10, expires: NOW + 290, keyid: k.verifying.thumbprint, tag: 'web-bot-auth' },
    });
    req.headers['signature-input'] = out.headers['signature-input'];
    req.headers.signature = out.headers.signature;
    return req;
  }

  it('maxSignatures: that many signatures are judged; the next one is unverified, ERR_TOO_MANY_SIGNATURES', async () => {
    const req = await twoSignatures();
    const all = await verify(req, { maxSignatures: 2 });
    expect(all.signatures.map((s) => s.outcome)).toEqual(['verified', 'verified']);
    const one = await verify(req, { maxSignatures: 1 });
    expect(one.outcome).toBe('verified');
    expect(one.signatures.map((s) => [s.label, s.outcome, s.error?.code])).toEqual([
      ['sig1', 'verified', undefined],
      ['sig2', 'unverified', 'ERR_TOO_MANY_SIGNATURES'],
    ]);
    expect(one.signatures[1]!.error?.message).toBe('the request carries more than 1 signatures; "sig2" was not judged');
  });

  it('options.label: only that signature is judged; an absent label is unverified, ERR_LABEL_MISSING', async () => {
    const req = await twoSignatures();
    const r = await verify(req, { label: 'sig2' });
    expect(r.signatures.map((s) => [s.label, s.outcome])).toEqual([['sig2', 'verified']]);
    const missing = await verify(req, { label: 'nope' });
    expect([missing.outcome, missing.error]).toEqual([
      'unverified',
      { code: 'ERR_LABEL_MISSING', message: 'the request has no signature with the requested label' },
    ]);
  });

  it('no signature: unverified, ERR_NO_SIGNATURE, not malformed', async () => {
    const r = await verify({ method: 'GET', url: URL, headers: {} });
    expect([r.outcome, r.malformed, r.error]).toEqual(['unverified', false, { code: 'ERR_NO_SIGNATURE', message: 'the request carries no signature' }]);
  });

  it('a Signature-Input that is not a Dictionary: invalid and malformed (SPEC 7: MAY answer 400)', async () => {
    const req = await signed({});
    req.headers['signature-input'] = 'sig1=(';
    const r = await verify(req);
    expect([r.outcome, r.malformed, r.error?.code]).toEqual(['invalid', true, 'ERR_SIGNATURE_INPUT_PARSE']);
  });

  it('SPEC 5.3 rule 6: over plain HTTP, unverified (ERR_INSECURE_TRANSPORT) unless allowInsecure', async () => {
    const req = await signed({});
    const plain = { ...req, url: 'http://example.com/a' };
    const r = await verify(plain);
    expect([r.outcome, r.error?.code]).toEqual(['unverified', 'ERR_INSECURE_TRANSPORT']);
    expect(r.signatures).toEqual([]);
    expect((await verify(plain, { allowInsecure: true })).outcome).toBe('verified');
  });

  it('a request that is not a message shape: unverified, ERR_MESSAGE_INVALID; not an object at all: TypeError', async () => {
    const r = await verify({ method: 'GET', url: URL, headers: 5 } as unknown as Req);
    expect([r.outcome, r.malformed, r.error?.code]).toEqual(['unverified', false, 'ERR_MESSAGE_INVALID']);
    await expect(verifyRequest(null as never)).rejects.toThrow(new TypeError('verifyRequest expects a Request or a { method, url, headers } object'));
  });
});
