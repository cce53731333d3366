/**
 * Pins for the flow of `verifyRequest` (src/profile/verify-request.ts) that the mutation
 * run showed unpinned (issue 20): each path of each step, with its outcome and its code
 * (and its message where the message is the contract), on the synchronous path (a key
 * imported through a synchronous provider) as well as the asynchronous one, with a
 * profile (`options.profile`) as well as without, and with keys from a directory that
 * answers at once (`resolveFresh`) as well as later (`resolve`).
 */
import { describe, expect, it } from 'vitest';
import { BotsigError, createContentDigest, generateKeyPair, verifyRequest } from '../../src/index';
import type {
  Diagnostic,
  CryptoProvider,
  SigningKey,
  VerifyingKey,
  SignatureAgentMember,
  DirectoryResolution,
  KeyDelegation,
  KeyDirectory,
  VerificationResult,
  VerifyProfile,
  VerifyRequestOptions,
} from '../../src/index';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';
import type { BareItem } from '../../src/httpsig';
import { nobleEd25519Provider } from '../../src/sync';
import { flipSignatureBit, publicOf, rfc9421Key, T0 } from '../profile/helpers';
import { me, other } from '../helpers/pin-keys';

const NOW = T0 + 1000;
const URL_ = 'https://example.com/a';
const now = (): number => NOW * 1000;

let sync: Promise<VerifyingKey> | undefined;
/** My public key imported through a synchronous provider: verifying it takes no promise, so a whole verification can finish synchronously. */
const syncKey = (): Promise<VerifyingKey> => (sync ??= me().then((k) => importVerifyingKey(k.publicJwk, { provider: nobleEd25519Provider })));

type Req = { method: string; url: string; headers: Record<string, string>; body?: string };

interface Sig {
  label?: string;
  params?: Record<string, string | number | BareItem | undefined>;
  components?: string[];
  key?: SigningKey;
}

/** Adds one signature to `req` (created/expires fresh, keyid mine, tag web-bot-auth unless given). */
async function addSignature(req: Req, s: Sig = {}): Promise<Req> {
  const k = await me();
  const key = s.key ?? k.signing;
  const merged = { created: NOW - 10, expires: NOW + 290, keyid: key.thumbprint, tag: 'web-bot-auth', ...s.params };
  const params: Record<string, string | number | BareItem> = {};
  for (const [name, v] of Object.entries(merged)) if (v !== undefined) params[name] = v;
  const out = await signMessage(req, { key, label: s.label ?? 'sig1', components: s.components ?? ['@authority'], params });
  return { ...req, headers: { ...req.headers, ...out.headers } };
}

async function signed(s: Sig = {}, headers: Record<string, string> = {}, url = URL_): Promise<Req> {
  return addSignature({ method: 'GET', url, headers }, s);
}

async function twoSignatures(): Promise<Req> {
  return addSignature(await signed(), { label: 'sig2' });
}

/** The first signature's outcome and error, as reported (the request's outcome does not tell `unverified` from an unknown word). */
function sig(r: VerificationResult): [string, unknown] {
  return [r.signatures[0]!.outcome, r.signatures[0]!.error];
}

function first(r: VerificationResult): { outcome: string; code: string | undefined } {
  return { outcome: r.signatures[0]!.outcome, code: r.signatures[0]!.error?.code };
}

async function withKeys(extra: VerifyRequestOptions = {}): Promise<VerifyRequestOptions> {
  return { keys: [(await me()).publicJwk], now, ...extra };
}

describe('misuse and the request-level answers', () => {
  it('a request that is not an object (a string URL) is misuse: TypeError, not a result', async () => {
    await expect(verifyRequest(URL_ as never, await withKeys())).rejects.toThrow(TypeError);
  });

  it('a clock that throws: unverified, ERR_INTERNAL, not malformed, and its message is not passed on', async () => {
    const r = await verifyRequest(await signed(), {
      keys: [(await me()).publicJwk],
      now: () => {
        throw new Error('secret detail');
      },
    });
    expect(r).toMatchObject({ outcome: 'unverified', malformed: false, signatures: [], error: { code: 'ERR_INTERNAL', message: 'verification step failed' } });
  });

  it('a clock that gives no number says so', async () => {
    const r = await verifyRequest(await signed(), await withKeys({ now: () => Number.NaN }));
    expect(r.error).toEqual({ code: 'ERR_INTERNAL', message: 'options.now returned no usable time' });
  });

  it('plain HTTP says which rule and how to accept it', async () => {
    const r = await verifyRequest(await signed({}, {}, 'http://example.com/a'), await withKeys());
    expect(r.error).toEqual({
      code: 'ERR_INSECURE_TRANSPORT',
      message: 'signature received over plain HTTP (SPEC 5.3 rule 6); set allowInsecure to accept it',
    });
  });
});

describe('SPEC 5.3 rule 6: http is recognised in any case, and only http', () => {
  for (const url of ['HTTP://example.com/a', 'Http://example.com/a', 'hTTp://example.com/a']) {
    it(`${url}: unverified, ERR_INSECURE_TRANSPORT`, async () => {
      const r = await verifyRequest({ ...(await signed()), url }, await withKeys());
      expect([r.outcome, r.error?.code]).toEqual(['unverified', 'ERR_INSECURE_TRANSPORT']);
    });
  }
  for (const url of ['xttp://example.com/a', 'hxtp://example.com/a', 'htxp://example.com/a', 'httx://example.com/a', 'https://example.com/a']) {
    it(`${url}: not plain HTTP, the signature is judged`, async () => {
      const r = await verifyRequest(await signed({}, {}, url), await withKeys());
      expect(r.outcome).toBe('verified');
    });
  }
});

describe('a request given by its target and Host, without a URL', () => {
  it('is judged, not refused as plain HTTP nor an internal error: its signature has no target URI to cover (invalid, ERR_MESSAGE_INVALID)', async () => {
    const { headers } = await signed();
    const r = await verifyRequest({ method: 'GET', target: '/a', headers: { host: 'example.com', ...headers } }, await withKeys());
    expect([r.outcome, r.error?.code]).toEqual(['invalid', 'ERR_MESSAGE_INVALID']);
    expect(first(r)).toEqual({ outcome: 'invalid', code: 'ERR_MESSAGE_INVALID' });
  });
});

describe('a synchronous verification (a key whose provider answers at once) gives the same answers', () => {
  it('maxSignatures counts the signatures judged before: the second of two is unverified, ERR_TOO_MANY_SIGNATURES', async () => {
    const r = await verifyRequest(await twoSignatures(), { keys: [await syncKey()], now, maxSignatures: 1 });
    expect(r.signatures.map((s) => [s.label, s.outcome, s.error?.code])).toEqual([
      ['sig1', 'verified', undefined],
      ['sig2', 'unverified', 'ERR_TOO_MANY_SIGNATURES'],
    ]);
  });

  it('options.label: the labelled signature is judged and reported', async () => {
    const r = await verifyRequest(await twoSignatures(), { keys: [await syncKey()], now, label: 'sig2' });
    expect(r.outcome).toBe('verified');
    expect(r.signatures.map((s) => [s.label, s.outcome])).toEqual([['sig2', 'verified']]);
  });

  it('with the verified-signature memo turned off, a valid signature verifies', async () => {
    const r = await verifyRequest(await signed(), { keys: [await syncKey()], now, verifiedSignatureMemo: false });
    expect(r.outcome).toBe('verified');
  });

  for (const [name, key] of [
    ['synchronous', syncKey],
    ['asynchronous', async () => (await me()).verifying],
  ] as const) {
    it(`${name}: a signature that does not verify is never remembered as verified (invalid every time, same options)`, async () => {
      const req = await signed();
      req.headers.signature = flipSignatureBit(req.headers.signature!, 'sig1');
      const options: VerifyRequestOptions = { keys: [await key()], now };
      for (let i = 0; i < 3; i++) {
        const r = await verifyRequest(req, options);
        expect([r.outcome, first(r)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_SIGNATURE_INVALID' }]);
        expect(r.signatures[0]!.error?.message).toBe('signature "sig1" does not verify');
      }
    });
  }

  it('a key whose verify throws is a failed verification: invalid, ERR_SIGNATURE_INVALID', async () => {
    const real = (await me()).verifying;
    const throwing: VerifyingKey = {
      alg: real.alg,
      thumbprint: real.thumbprint,
      jwk: real.jwk,
      verify: () => {
        throw new Error('provider down');
      },
    };
    const r = await verifyRequest(await signed(), { keys: [throwing], now });
    expect([r.outcome, first(r)]).toEqual(['invalid', { outcome: 'invalid', code: 'ERR_SIGNATURE_INVALID' }]);
  });
});

describe('the verified-signature memo skips the crypto call only for signatures that can be reused', () => {
  async function counting(): Promise<{ key: VerifyingKey; calls: () => number }> {
    const real = (await me()).verifying;
    let calls = 0;
    const key: VerifyingKey = {
      alg: real.alg,
      thumbprint: real.thumbprint,
      jwk: real.jwk,
      verify: (d, s) => {
        calls++;
        return real.verify(d, s);
      },
    };
    return { key, calls: () => calls };
  }
  const acceptAll = { checkAndRecord: () => true };

  it('synchronous provider: a valid signature without a nonce is verified once for many requests', async () => {
    let calls = 0;
    const provider: CryptoProvider = {
      name: 'counting-noble',
      synchronous: true,
      importSign: (jwk, alg) => nobleEd25519Provider.importSign(jwk, alg),
      importVerify: async (jwk, alg) => {
        const fn = await nobleEd25519Provider.importVerify(jwk, alg);
        return (d: Uint8Array, s: Uint8Array) => {
          calls++;
          return fn(d, s);
        };
      },
    };
    const key = await importVerifyingKey((await me()).publicJwk, { provider });
    const req = await signed();
    const options: VerifyRequestOptions = { keys: [key], now };
    for (let i = 0; i < 3; i++) expect((await verifyRequest(req, options)).outcome).toBe('verified');
    expect(calls).toBe(1);
  });

  it('a signature without a nonce is verified once for many requests', async () => {
    const { key, calls } = await counting();
    const req = await signed();
    const options: VerifyRequestOptions = { keys: [key], now, nonce: { policy: 'optional', store: acceptAll } };
    for (let i = 0; i < 3; i++) expect((await verifyRequest(req, options)).outcome).toBe('verified');
    expect(calls()).toBe(1);
  });

  it('a signature whose nonce the store records is verified on every request (its reuse is the store’s to judge)', async () => {
    const { key, calls } = await counting();
    const req = await signed({ params: { nonce: 'n-1' } });
    const options: VerifyRequestOptions = { keys: [key], now, nonce: { policy: 'optional', store: acceptAll } };
    for (let i = 0; i < 3; i++) expect((await verifyRequest(req, options)).outcome).toBe('verified');
    expect(calls()).toBe(3);
  });

  it("with a profile, the tag's nonce policy decides: none lets a signature with a nonce be reused, optional does not", async () => {
    for (const [nonce, expected] of [
      ['none', 1],
      ['optional', 3],
    ] as const) {
      const { key, calls } = await counting();
      const req = await signed({ params: { nonce: 'n-3', tag: 'alpha' } });
      const options: VerifyRequestOptions = {
        now,
        nonce: { policy: nonce === 'none' ? 'optional' : 'none', store: acceptAll },
        profile: { name: 'p', tags: { alpha: { nonce, keys: { keys: [key] } } } },
      };
      for (let i = 0; i < 3; i++) expect((await verifyRequest(req, options)).outcome).toBe('verified');
      expect(calls()).toBe(expected);
    }
  });

  it('with policy none the nonce is not recorded, so the signature is reused like one without a nonce', async () => {
    const { key, calls } = await counting();
    const req = await signed({ params: { nonce: 'n-2' } });
    const options: VerifyRequestOptions = { keys: [key], now, nonce: { policy: 'none' } };
    for (let i = 0; i < 3; i++) expect((await verifyRequest(req, options)).outcome).toBe('verified');
    expect(calls()).toBe(1);
  });
});

describe('SPEC 5.3 rule 2: a skipped signature is reported with its parameters, on both readers', () => {
  for (const [path, extra] of [
    ['direct reader', {}],
    ['general parser', { x: 1 }],
  ] as const) {
    it(`${path}: tag "other" is skipped, with its keyid and tag reported and the reason`, async () => {
      const r = await verifyRequest(await signed({ params: { tag: 'other', ...extra } }), await withKeys());
      const s = r.signatures[0]!;
      expect([s.outcome, s.skipped, s.error]).toEqual([
        'unverified',
        true,
        { code: 'ERR_TAG_MISMATCH', message: 'signature "sig1" is not tagged web-bot-auth; skipped' },
      ]);
      expect(s.params.tag).toBe('other');
      expect(s.tag).toBe('other');
      expect(s.keyid).toBe((await me()).verifying.thumbprint);
    });
  }
});

describe('refusals say which signature and which rule', () => {
  it('ERR_AUTHORITY_NOT_ALLOWED', async () => {
    const r = await verifyRequest(await signed(), await withKeys({ authorities: ['other.example'] }));
    expect(r.signatures[0]!.error).toEqual({
      code: 'ERR_AUTHORITY_NOT_ALLOWED',
      message: 'signature "sig1" was made for an authority this origin does not answer to',
    });
  });

  it('ERR_SIGNATURE_AGENT_NOT_COVERED', async () => {
    const r = await verifyRequest(await signed({}, { 'signature-agent': 'agent1="https://agent.example"' }), await withKeys());
    expect(r.signatures[0]!.error).toEqual({
      code: 'ERR_SIGNATURE_AGENT_NOT_COVERED',
      message: 'signature "sig1" does not cover the Signature-Agent header (SPEC 5.2 rule 1)',
    });
  });

  it('ERR_KEY_TEST_KEY (the example key known by its thumbprint)', async () => {
    const test = rfc9421Key('test-key-ed25519');
    const key = await importSigningKey(test.jwk);
    const r = await verifyRequest(await signed({ key }), { now });
    expect(sig(r)).toEqual(['invalid', { code: 'ERR_KEY_TEST_KEY', message: 'the key is a public RFC 9421 example key; set allowTestKeys to accept it' }]);
  });

  it('an unknown key without a directory: unverified, ERR_KEY_UNKNOWN, with the label', async () => {
    const r = await verifyRequest(await signed(), { keys: [(await other()).publicJwk], now });
    expect(sig(r)).toEqual(['unverified', { code: 'ERR_KEY_UNKNOWN', message: 'no key known for the keyid of signature "sig1"' }]);
  });
});

describe('RFC 9421 §3.2 step 6: the algorithm', () => {
  it('an alg the options do not allow is refused before anything about the key (even a missing keyid)', async () => {
    let asked = 0;
    const options: VerifyRequestOptions = {
      now,
      algorithms: ['rsa-pss-sha512'],
      resolveKey: () => {
        asked++;
        return undefined;
      },
    };
    const r = await verifyRequest(await signed({ params: { alg: 'ed25519' } }), options);
    expect(sig(r)).toEqual(['invalid', { code: 'ERR_ALG_NOT_ALLOWED', message: 'algorithm ed25519 is not allowed here' }]);
    const noKeyid = await verifyRequest(await signed({ params: { alg: 'ed25519', keyid: undefined } }), options);
    expect(first(noKeyid)).toEqual({ outcome: 'invalid', code: 'ERR_ALG_NOT_ALLOWED' });
    expect(asked).toBe(0);
  });

  it("without an alg parameter, the key's algorithm is checked against the options", async () => {
    const r = await verifyRequest(await signed(), await withKeys({ algorithms: ['rsa-pss-sha512'] }));
    expect(sig(r)).toEqual(['invalid', { code: 'ERR_ALG_NOT_ALLOWED', message: 'algorithm ed25519 is not allowed here' }]);
  });

  it('an alg that is not the key’s: invalid, ERR_ALG_MISMATCH, even when the bytes verify with the key', async () => {
    const k = await me();
    // A signer that claims rsa-pss-sha512 but signs with the Ed25519 key.
    const liar: SigningKey = { alg: 'rsa-pss-sha512', thumbprint: k.signing.thumbprint, publicJwk: k.publicJwk, sign: (d) => k.signing.sign(d) };
    const r = await verifyRequest(await signed({ key: liar, params: { alg: 'rsa-pss-sha512' } }), await withKeys());
    expect(first(r)).toEqual({ outcome: 'invalid', code: 'ERR_ALG_MISMATCH' });
  });

  it('a key that names no algorithm (an RSA JWK without alg) is bound to the alg the signature names', async () => {
    const pair = await generateKeyPair('rsa-pss-sha512');
    const key = await importSigningKey(pair.privateJwk);
    const bare = publicOf(pair.publicJwk);
    const r = await verifyRequest(await signed({ key, params: { alg: 'rsa-pss-sha512' } }), { keys: [bare], now });
    expect(r.outcome).toBe('verified');
    expect(r.signatures[0]!.alg).toBe('rsa-pss-sha512');
    const none = await verifyRequest(await signed({ key }), { keys: [bare], now });
    expect(first(none)).toEqual({ outcome: 'invalid', code: 'ERR_ALG_UNKNOWN' });
  });
});

describe('keys from a directory: what the directory says about the key is reported', () => {
  const AGENT = 'https://agent.example';
  const delegation: KeyDelegation = {
    chain: ['CN=leaf', 'CN=root'],
    anchor: 'CN=root',
    via: 'x5c',
    subject: AGENT,
    subjectSource: 'san-uri',
    notBefore: NOW - 100,
    notAfter: NOW + 100,
  };
  const card = { client_name: 'Agent', jwks_uri: `${AGENT}/jwks` };

  function directory(resolution: (member: SignatureAgentMember) => DirectoryResolution): KeyDirectory {
    return { resolve: async (member) => resolution(member) };
  }

  async function viaAgent(dir: KeyDirectory): Promise<VerificationResult> {
    const req = await signed({ components: ['@authority', '"signature-agent";key="agent1"'] }, { 'signature-agent': `agent1="${AGENT}"` });
    return verifyRequest(req, { now, directory: dir });
  }

  it('a key accepted through a certificate chain: its delegation is reported', async () => {
    const k = await me();
    const r = await viaAgent(directory(() => ({ url: AGENT, diagnostics: [], keys: [{ thumbprint: k.verifying.thumbprint, key: k.verifying, delegation }] })));
    expect(r.outcome).toBe('verified');
    expect(r.signatures[0]!.delegation).toEqual(delegation);
    expect(r.signatures[0]!.card).toBeUndefined();
  });

  it('a key from a Signature Agent Card: the card is reported, on the signature and the request', async () => {
    const k = await me();
    const r = await viaAgent(directory(() => ({ url: AGENT, diagnostics: [], card, keys: [{ thumbprint: k.verifying.thumbprint, key: k.verifying }] })));
    expect(r.outcome).toBe('verified');
    expect(r.signatures[0]!.card).toEqual(card);
    expect(r.card).toEqual(card);
    expect(r.signatures[0]!.delegation).toBeUndefined();
  });

  it('a covered Signature-Agent member that is not usable: unverified, ERR_SIGNATURE_AGENT_INVALID (with a directory)', async () => {
    const req = await signed({ components: ['@authority', '"signature-agent";key="agent1"'] }, { 'signature-agent': 'agent1=42' });
    const r = await verifyRequest(req, { now, directory: directory(() => ({ url: AGENT, diagnostics: [], keys: [] })) });
    expect(sig(r)).toEqual([
      'unverified',
      {
        code: 'ERR_SIGNATURE_AGENT_INVALID',
        message: 'the Signature-Agent member covered by "sig1" is not usable (see diagnostics); its keys cannot be found',
      },
    ]);
    // Without a directory there is nothing the member could have given: the key is unknown.
    expect(first(await verifyRequest(req, { now }))).toEqual({ outcome: 'unverified', code: 'ERR_KEY_UNKNOWN' });
  });

  it('with a directory but no Signature-Agent at all: unverified, ERR_KEY_UNKNOWN', async () => {
    const r = await verifyRequest(await signed(), { now, directory: directory(() => ({ url: AGENT, diagnostics: [], keys: [] })) });
    expect(first(r)).toEqual({ outcome: 'unverified', code: 'ERR_KEY_UNKNOWN' });
  });

  for (const found of [true, false]) {
    it(`a warm directory (resolveFresh) ${found ? 'holding' : 'without'} the key: its diagnostics are reported once`, async () => {
      const k = await me();
      const o = await other();
      const diagnostic: Diagnostic = { level: 'warning', code: 'kid-not-thumbprint', message: 'a kid that is not the thumbprint', at: 'keys[0]' };
      const resolution: DirectoryResolution = {
        url: AGENT,
        diagnostics: [diagnostic],
        keys: [found ? { thumbprint: k.verifying.thumbprint, key: k.verifying } : { thumbprint: o.verifying.thumbprint, key: o.verifying }],
      };
      const r = await viaAgent({ resolve: async () => resolution, resolveFresh: () => resolution });
      expect(first(r)).toEqual(found ? { outcome: 'verified', code: undefined } : { outcome: 'unverified', code: 'ERR_KEY_UNKNOWN' });
      expect(r.diagnostics).toEqual([diagnostic]);
    });
  }

  it('a directory that answers at once with something that is not a resolution: unverified, ERR_DIRECTORY_FETCH', async () => {
    const broken: KeyDirectory = {
      resolve: () => Promise.reject(new Error('not reached')),
      resolveFresh: () => ({}) as DirectoryResolution,
    };
    const r = await viaAgent(broken);
    expect(sig(r)).toEqual(['unverified', { code: 'ERR_DIRECTORY_FETCH', message: 'malformed input' }]);
  });
});

describe('RFC 9530 Content-Digest: covered, required, checked', () => {
  const BODY = '{"a":1}';
  async function post(cover: boolean, digest?: string): Promise<Req> {
    const headers: Record<string, string> = { 'content-digest': digest ?? (await createContentDigest(BODY, ['sha-256'])) };
    const req = await addSignature({ method: 'POST', url: URL_, headers }, { components: cover ? ['@authority', 'content-digest'] : ['@authority'] });
    return { ...req, body: BODY };
  }

  it('requireContentDigest: a signature that does not cover it is invalid, ERR_CONTENT_DIGEST_REQUIRED', async () => {
    const r = await verifyRequest(await post(false), await withKeys({ requireContentDigest: true }));
    expect(sig(r)).toEqual([
      'invalid',
      { code: 'ERR_CONTENT_DIGEST_REQUIRED', message: 'signature "sig1" does not cover content-digest, which this origin requires here' },
    ]);
    expect((await verifyRequest(await post(false), await withKeys({ requireContentDigest: () => false }))).outcome).toBe('verified');
    expect((await verifyRequest(await post(false), await withKeys())).outcome).toBe('verified');
  });

  it('requireContentDigest: a signature that covers a matching digest verifies', async () => {
    const r = await verifyRequest(await post(true), await withKeys({ requireContentDigest: true }));
    expect(r.outcome).toBe('verified');
    expect(r.contentDigest).toEqual({ status: 'matched', algorithms: ['sha-256'] });
  });

  it('a covered digest that is not the content’s: invalid, whatever requireContentDigest says', async () => {
    const wrong = await createContentDigest('{"a":2}', ['sha-256']);
    const r = await verifyRequest(await post(true, wrong), await withKeys());
    expect(r.outcome).toBe('invalid');
    expect(r.signatures[0]!.contentDigest?.status).toBe('failed');
  });
});

describe('options.profile: the rules of the signature’s tag', () => {
  const AGENT = 'https://agent.example';
  const JWKS = 'https://keys.example/jwks.json';

  async function profileWithKeys(rules: Record<string, unknown> = {}): Promise<VerifyProfile> {
    return { name: 'mine', tags: { alpha: { keys: { keys: [(await me()).publicJwk] }, ...rules } } } as VerifyProfile;
  }

  it('a tag the profile does not name is skipped, with the profile named', async () => {
    const r = await verifyRequest(await signed(), { now, profile: await profileWithKeys() });
    expect(sig(r)).toEqual(['unverified', { code: 'ERR_TAG_MISMATCH', message: 'signature "sig1" has no tag of profile mine; skipped' }]);
    expect(r.signatures[0]!.params.tag).toBe('web-bot-auth');
  });

  it('a tag with its own keys verifies with them, whatever Signature-Agent says (even uncovered)', async () => {
    const req = await signed({ params: { tag: 'alpha' } }, { 'signature-agent': `agent1="${AGENT}"` });
    const r = await verifyRequest(req, { now, profile: await profileWithKeys() });
    expect(r.outcome).toBe('verified');
    expect(r.signatures[0]).toMatchObject({ tag: 'alpha', keySource: 'static', agent: (await me()).verifying.thumbprint });
  });

  it('a tag with its own keys and a keyid it does not know: unverified, ERR_KEY_UNKNOWN naming the tag (options.keys do not count)', async () => {
    const req = await signed({ key: (await other()).signing, params: { tag: 'alpha' } });
    const r = await verifyRequest(req, { now, keys: [(await other()).publicJwk], profile: await profileWithKeys() });
    expect(sig(r)).toEqual(['unverified', { code: 'ERR_KEY_UNKNOWN', message: 'no key of tag alpha is known for the keyid of signature "sig1"' }]);
  });

  it("the tag's requiredComponents apply, not the options-wide ones", async () => {
    const req = await signed({ params: { tag: 'alpha' } });
    const strict = await verifyRequest(req, { now, profile: await profileWithKeys({ requiredComponents: ['@method'] }) });
    expect(first(strict)).toEqual({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
    const loose = await verifyRequest(req, { now, requiredComponents: ['@method'], profile: await profileWithKeys({ requiredComponents: [] }) });
    expect(loose.outcome).toBe('verified');
  });

  it("the tag's nonce policy applies, not the options-wide one", async () => {
    const req = await signed({ params: { tag: 'alpha' } });
    const required = await verifyRequest(req, { now, nonce: { policy: 'optional' }, profile: await profileWithKeys({ nonce: 'required' }) });
    expect(first(required)).toEqual({ outcome: 'invalid', code: 'ERR_NONCE_MISSING' });
    const optional = await verifyRequest(req, { now, nonce: { policy: 'required' }, profile: await profileWithKeys({ nonce: 'optional' }) });
    expect(optional.outcome).toBe('verified');
  });

  it('a tag whose keys come from Signature-Agent looks them up there', async () => {
    const k = await me();
    const req = await signed(
      { params: { tag: 'beta' }, components: ['@authority', '"signature-agent";key="agent1"'] },
      { 'signature-agent': `agent1="${AGENT}"` },
    );
    const dir: KeyDirectory = { resolve: async () => ({ url: AGENT, diagnostics: [], keys: [{ thumbprint: k.verifying.thumbprint, key: k.verifying }] }) };
    const r = await verifyRequest(req, { now, directory: dir, profile: { name: 'p', tags: { beta: {} } } });
    expect(r.outcome).toBe('verified');
    expect(r.agent).toBe(AGENT);
  });

  describe('a tag with { jwksUri }: the key set looked up through the directory', () => {
    function jwksDirectory(answer: () => DirectoryResolution | Error, fresh: boolean): KeyDirectory {
      const resolve = async (): Promise<DirectoryResolution> => {
        const a = answer();
        if (a instanceof Error) throw a;
        return a;
      };
      if (!fresh) return { resolve };
      return {
        resolve,
        resolveFresh: () => {
          const a = answer();
          return a instanceof Error ? undefined : a;
        },
      };
    }
    const profile: VerifyProfile = { name: 'jwks', tags: { alpha: { keys: { jwksUri: JWKS } } } };

    for (const fresh of [false, true]) {
      const how = fresh ? 'answered at once (resolveFresh)' : 'answered later (resolve)';
      it(`${how}: the keyid's key verifies, agent = the key set's URL`, async () => {
        const k = await me();
        const dir = jwksDirectory(() => ({ url: JWKS, diagnostics: [], keys: [{ thumbprint: k.verifying.thumbprint, key: k.verifying }] }), fresh);
        const r = await verifyRequest(await signed({ params: { tag: 'alpha' } }), { now, directory: dir, profile });
        expect(r.outcome).toBe('verified');
        expect(r.signatures[0]).toMatchObject({ agent: JWKS, keySource: 'directory' });
      });

      it(`${how}: a key set without the keyid: unverified, ERR_KEY_UNKNOWN naming the tag`, async () => {
        const o = await other();
        const dir = jwksDirectory(() => ({ url: JWKS, diagnostics: [], keys: [{ thumbprint: o.verifying.thumbprint, key: o.verifying }] }), fresh);
        const r = await verifyRequest(await signed({ params: { tag: 'alpha' } }), { now, directory: dir, profile });
        expect(sig(r)).toEqual(['unverified', { code: 'ERR_KEY_UNKNOWN', message: 'no key of tag alpha is known for the keyid of signature "sig1"' }]);
      });
    }

    it('a lookup that fails: unverified, with the directory’s code', async () => {
      const dir = jwksDirectory(() => new BotsigError('ERR_DIRECTORY_FETCH', 'down'), false);
      const r = await verifyRequest(await signed({ params: { tag: 'alpha' } }), { now, directory: dir, profile });
      expect(sig(r)).toEqual(['unverified', { code: 'ERR_DIRECTORY_FETCH', message: 'down' }]);
    });

    it('a lookup that fails with something not botsig’s: unverified, ERR_DIRECTORY_FETCH, its message not passed on', async () => {
      const dir = jwksDirectory(() => new Error('secret'), false);
      const r = await verifyRequest(await signed({ params: { tag: 'alpha' } }), { now, directory: dir, profile });
      expect(sig(r)).toEqual(['unverified', { code: 'ERR_DIRECTORY_FETCH', message: 'verification step failed' }]);
    });

    it('a directory that answers at once with something that is not a resolution: unverified, ERR_DIRECTORY_FETCH', async () => {
      const dir: KeyDirectory = { resolve: () => Promise.reject(new Error('not reached')), resolveFresh: () => ({}) as DirectoryResolution };
      const r = await verifyRequest(await signed({ params: { tag: 'alpha' } }), { now, directory: dir, profile });
      expect(sig(r)).toEqual(['unverified', { code: 'ERR_DIRECTORY_FETCH', message: 'malformed input' }]);
    });
  });
});
