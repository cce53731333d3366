/**
 * Pins for the options of `verifyRequest` (src/profile/verify/options.ts) that the mutation
 * run showed unpinned (issue 20): every validation with its message and both sides of each
 * range, the defaults that decide an outcome, how `authorities` are normalised, the nonce
 * store a verifier owns, and `options.profile` (tag rules inherited or their own, `{ keys }`
 * and `{ jwksUri }` sources).
 */
import { describe, expect, it } from 'vitest';
import { createContentDigest, verifyRequest } from '../../src/index';
import type { SigningKey, SignatureAgentMember, KeyDirectory, VerificationResult, VerifyProfile, VerifyRequestOptions } from '../../src/index';
import { WEB_BOT_AUTH_PROFILE } from '../../src/registry';
import { signMessage } from '../../src/httpsig';
import { prepareVerifyOptions } from '../../src/profile/verify/options';
import { T0 } from '../profile/helpers';
import { me, other } from '../helpers/pin-keys';

const NOW = T0 + 1000;
const now = (): number => NOW * 1000;
const URL_ = 'https://example.com/a';

type Req = { method: string; url: string; headers: Record<string, string>; body?: string };

interface Sig {
  label?: string;
  params?: Record<string, string | number | undefined>;
  components?: string[];
  key?: SigningKey;
}

async function addSignature(req: Req, s: Sig = {}): Promise<Req> {
  const k = await me();
  const key = s.key ?? k.signing;
  const merged = { created: NOW - 10, expires: NOW + 290, keyid: key.thumbprint, tag: 'web-bot-auth', ...s.params };
  const params: Record<string, string | number> = {};
  for (const [name, v] of Object.entries(merged)) if (v !== undefined) params[name] = v;
  const out = await signMessage(req, { key, label: s.label ?? 'sig1', components: s.components ?? ['@authority'], params });
  return { ...req, headers: { ...req.headers, ...out.headers } };
}

async function signed(s: Sig = {}, url = URL_, headers: Record<string, string> = {}): Promise<Req> {
  return addSignature({ method: 'GET', url, headers }, s);
}

function first(r: VerificationResult): { outcome: string; code: string | undefined } {
  return { outcome: r.signatures[0]!.outcome, code: r.signatures[0]!.error?.code };
}

async function withKeys(extra: Record<string, unknown> = {}): Promise<VerifyRequestOptions> {
  return { keys: [(await me()).publicJwk], now, ...extra } as VerifyRequestOptions;
}

/** The TypeError verifyRequest throws for these options, exactly. */
async function refused(extra: Record<string, unknown>, message: string | RegExp): Promise<void> {
  const promise = verifyRequest(await signed(), await withKeys(extra));
  await expect(promise).rejects.toBeInstanceOf(TypeError);
  if (typeof message === 'string') await expect(promise).rejects.toThrow(new TypeError(message));
  else await expect(promise).rejects.toThrow(message);
}

async function accepted(extra: Record<string, unknown>, req?: Req): Promise<VerificationResult> {
  return verifyRequest(req ?? (await signed()), await withKeys(extra));
}

describe('options that are not what they should be: TypeError with what is wrong', () => {
  it('options that are not an object', async () => {
    for (const bad of [null, 5, 'x']) {
      await expect(verifyRequest(await signed(), bad as never)).rejects.toThrow(new TypeError('verifyRequest options must be an object'));
    }
  });

  it('unknown option names, at every level, with the closest known one', async () => {
    await refused({ nonse: {} }, 'verifyRequest options: unknown option "nonse" (did you mean "nonce"?)');
    await refused({ nonce: { polcy: 'none' } }, 'options.nonce: unknown option "polcy" (did you mean "policy"?)');
    await refused({ discovery: { maxDirectory: 1 } }, 'options.discovery: unknown option "maxDirectory" (did you mean "maxDirectories"?)');
    await refused({ verifiedSignatureMemo: { maxEntry: 1 } }, 'options.verifiedSignatureMemo: unknown option "maxEntry"');
  });

  const cases: Array<[string, unknown[], string]> = [
    ['nonce', [5, null, 'x'], 'options.nonce must be an object'],
    ['keys', ['no', {}], 'options.keys must be an array of JWKs or verifying keys'],
    ['resolveKey', ['no', {}], 'options.resolveKey must be a function'],
    ['directory', [{}, null, 5, { resolve: 1 }], 'options.directory must have a resolve(member) method'],
    ['now', [5, 'now'], 'options.now must be a function returning milliseconds'],
    ['clockSkewSeconds', [-1, -0.5, Number.NaN, Number.POSITIVE_INFINITY, '60'], 'options.clockSkewSeconds must be a non-negative number'],
    ['maxValiditySeconds', [0, -1, Number.NaN, '300'], 'options.maxValiditySeconds must be a positive number'],
    ['discovery', [5, 'x'], 'options.discovery must be an object'],
    ['maxSignatures', [0, 100_001, 1.5, '2', Number.NaN], 'options.maxSignatures must be an integer from 1 to 100,000'],
    ['algorithms', ['ed25519', ['md5'], ['ed25519', 'hmac-sha256']], 'options.algorithms must list RFC 9421 algorithm names'],
    ['requiredComponents', ['@method', 5], 'options.requiredComponents must be an array of component identifiers'],
    ['authorities', ['example.com', [], 5], 'options.authorities must be a non-empty array of host or host:port strings'],
    ['verifiedSignatureMemo', [5, null, true, 'x'], 'options.verifiedSignatureMemo must be an object or false'],
    ['requireContentDigest', ['yes', 1, null, {}], 'options.requireContentDigest must be a boolean or a function (request) => boolean'],
    ['maxBodyBytes', [-1, 1.5, '1', Number.NaN, null], 'options.maxBodyBytes must be a non-negative integer'],
    ['profile', [5, null, 'web-bot-auth'], 'options.profile must be a VerifyProfile ({ name, tags })'],
  ];
  for (const [name, values, message] of cases) {
    it(`${name}: ${message}`, async () => {
      for (const value of values) await refused({ [name]: value }, message);
    });
  }

  const nested: Array<[string, Record<string, unknown>[], string]> = [
    ['nonce.policy', [{ nonce: { policy: 'sometimes' } }, { nonce: { policy: 5 } }], 'options.nonce.policy must be none, optional or required'],
    [
      'nonce.maxLength',
      [{ nonce: { maxLength: 0 } }, { nonce: { maxLength: 1.5 } }, { nonce: { maxLength: '8' } }],
      'options.nonce.maxLength must be a positive integer',
    ],
    [
      'nonce.store',
      [{ nonce: { store: {} } }, { nonce: { store: 5 } }, { nonce: { store: { checkAndRecord: 1 } } }],
      'options.nonce.store must have a checkAndRecord method',
    ],
    [
      'discovery.maxDirectories',
      [{ discovery: { maxDirectories: -1 } }, { discovery: { maxDirectories: 65 } }, { discovery: { maxDirectories: 1.5 } }],
      'options.discovery.maxDirectories must be an integer from 0 to 64',
    ],
    [
      'discovery.timeoutMs',
      [{ discovery: { timeoutMs: 0 } }, { discovery: { timeoutMs: 300_001 } }, { discovery: { timeoutMs: 1.5 } }],
      'options.discovery.timeoutMs must be an integer number of milliseconds from 1 to 300,000',
    ],
    [
      'verifiedSignatureMemo.maxEntries',
      [{ verifiedSignatureMemo: { maxEntries: 0 } }, { verifiedSignatureMemo: { maxEntries: 1_000_001 } }, { verifiedSignatureMemo: { maxEntries: 1.5 } }],
      'options.verifiedSignatureMemo.maxEntries must be an integer from 1 to 1,000,000',
    ],
    [
      'requiredComponents entry',
      [{ requiredComponents: ['"unterminated'] }, { requiredComponents: [5] }],
      'options.requiredComponents has an invalid component identifier',
    ],
  ];
  for (const [name, list, message] of nested) {
    it(`${name}: ${message}`, async () => {
      for (const extra of list) await refused(extra, message);
    });
  }

  it('a directory or a store that is a function with the right method is still not an object', async () => {
    await refused({ directory: Object.assign(() => undefined, { resolve: async () => undefined }) }, 'options.directory must have a resolve(member) method');
    await refused(
      { nonce: { store: Object.assign(() => undefined, { checkAndRecord: () => true }) } },
      'options.nonce.store must have a checkAndRecord method',
    );
  });

  it("an invalid required component carries the parser's error as its cause", async () => {
    const error: unknown = await verifyRequest(await signed(), await withKeys({ requiredComponents: ['"bad'] })).catch((e: unknown) => e);
    expect((error as TypeError).cause).toBeInstanceOf(Error);
    const tagged: unknown = await verifyRequest(await signed(), { now, profile: { name: 'x', tags: { t: { requiredComponents: ['"bad'] } } } }).catch(
      (e: unknown) => e,
    );
    expect((tagged as TypeError).message).toBe('options.profile.tags["t"].requiredComponents has an invalid component identifier');
    expect((tagged as TypeError).cause).toBeInstanceOf(Error);
  });

  it('prepareVerifyOptions (what createVerifier calls) throws the same TypeError synchronously', () => {
    expect(() => prepareVerifyOptions({ clockSkewSeconds: -1 })).toThrow(new TypeError('options.clockSkewSeconds must be a non-negative number'));
  });

  it('an options object prepared again keeps what it prepared: its own nonce store remembers', async () => {
    const options = await withKeys();
    prepareVerifyOptions(options);
    const req = await signed({ params: { nonce: 'prepared-twice' } });
    expect((await verifyRequest(req, options)).outcome).toBe('verified');
    prepareVerifyOptions(options);
    expect(first(await verifyRequest(req, options))).toEqual({ outcome: 'invalid', code: 'ERR_NONCE_REPLAYED' });
  });

  it('a static JWK that is not a public key says which one', async () => {
    await refused({ keys: [(await me()).publicJwk, { kty: 'OKP', crv: 'Ed25519' }] }, /^options\.keys\[1\] /);
  });

  it('a static JWK that passes the checks but cannot be imported', async () => {
    // Well formed, but not a point of the curve.
    const broken = { kty: 'EC', crv: 'P-256', x: 'A'.repeat(43), y: 'A'.repeat(43) };
    await refused({ keys: [broken] }, 'options.keys: a key cannot be imported');
  });

  it('authorities that are not a host or host:port, each named', async () => {
    for (const entry of ['a/b', 'user@example.com', 'example.com?x', 'example.com#f', 'a b', '', 5, 'example.com:port', 'back\\slash']) {
      await refused({ authorities: ['example.com', entry] }, `options.authorities: ${JSON.stringify(entry)} is not a host or host:port`);
    }
  });
});

describe('the edges of each range are accepted', () => {
  const good: Array<Record<string, unknown>> = [
    { clockSkewSeconds: 0 },
    { maxValiditySeconds: 300.5 },
    { maxValiditySeconds: Number.POSITIVE_INFINITY },
    { maxSignatures: 1 },
    { maxSignatures: 100_000 },
    { discovery: { maxDirectories: 0 } },
    { discovery: { maxDirectories: 64 } },
    { discovery: { timeoutMs: 1 } },
    { discovery: { timeoutMs: 300_000 } },
    { discovery: null },
    { discovery: {} },
    { nonce: { maxLength: 1 } },
    { nonce: { store: null } },
    { verifiedSignatureMemo: false },
    { verifiedSignatureMemo: {} },
    { verifiedSignatureMemo: { maxEntries: 1 } },
    { verifiedSignatureMemo: { maxEntries: 1_000_000 } },
    { requireContentDigest: false },
    { maxBodyBytes: 0 },
    { algorithms: ['ed25519'] },
    { requiredComponents: [] },
    { authorities: ['EXAMPLE.com'] },
    { profile: WEB_BOT_AUTH_PROFILE },
  ];
  for (const extra of good) {
    it(JSON.stringify(extra), async () => {
      expect((await accepted(extra)).outcome).toBe('verified');
    });
  }

  it('algorithms: [] allows none (invalid, ERR_ALG_NOT_ALLOWED)', async () => {
    expect(first(await accepted({ algorithms: [] }))).toEqual({ outcome: 'invalid', code: 'ERR_ALG_NOT_ALLOWED' });
  });
});

describe('defaults that decide an outcome', () => {
  it('maxValiditySeconds defaults to one day', async () => {
    expect((await accepted({}, await signed({ params: { created: NOW - 10, expires: NOW - 10 + 86_400 } }))).outcome).toBe('verified');
    expect(first(await accepted({}, await signed({ params: { created: NOW - 10, expires: NOW - 10 + 86_401 } })))).toEqual({
      outcome: 'invalid',
      code: 'ERR_VALIDITY_TOO_LONG',
    });
  });

  it('nonce.maxLength defaults to 256 characters', async () => {
    expect((await accepted({}, await signed({ params: { nonce: 'n'.repeat(256) } }))).outcome).toBe('verified');
    expect(first(await accepted({}, await signed({ params: { nonce: 'n'.repeat(257) } })))).toEqual({ outcome: 'invalid', code: 'ERR_NONCE_TOO_LONG' });
  });

  it('nonce.policy defaults to optional: a nonce is recorded (a replay is invalid), none is not required', async () => {
    const options = await withKeys();
    const req = await signed({ params: { nonce: 'once' } });
    expect((await verifyRequest(req, options)).outcome).toBe('verified');
    expect(first(await verifyRequest(req, options))).toEqual({ outcome: 'invalid', code: 'ERR_NONCE_REPLAYED' });
    expect((await verifyRequest(await signed(), options)).outcome).toBe('verified');
  });

  it('the store a verifier owns keeps time by options.now: a nonce is remembered until its signature expires by that clock', async () => {
    // NOW is in 2025: by the system clock every signature here expired long ago.
    const options = await withKeys();
    const req = await signed({ params: { nonce: 'by-options-clock' } });
    expect((await verifyRequest(req, options)).outcome).toBe('verified');
    expect(first(await verifyRequest(req, options))).toEqual({ outcome: 'invalid', code: 'ERR_NONCE_REPLAYED' });
  });

  it('each options object owns its store: the same nonce under another options object is not a replay', async () => {
    const req = await signed({ params: { nonce: 'per-options' } });
    expect((await verifyRequest(req, await withKeys())).outcome).toBe('verified');
    expect((await verifyRequest(req, await withKeys())).outcome).toBe('verified');
  });

  it('maxSignatures defaults to 16', async () => {
    let req = await signed();
    for (let i = 2; i <= 17; i++) req = await addSignature(req, { label: `sig${i}` });
    const r = await accepted({}, req);
    expect(r.signatures.filter((s) => s.outcome === 'verified')).toHaveLength(16);
    expect(r.signatures[16]).toMatchObject({ label: 'sig17', outcome: 'unverified', error: { code: 'ERR_TOO_MANY_SIGNATURES' } });
  });

  it('maxBodyBytes: content longer than the limit is not read (unverified, ERR_BODY_TOO_LARGE); up to it, checked', async () => {
    const body = '{"a":1}';
    const headers = { 'content-digest': await createContentDigest(body, ['sha-256']) };
    const req = { ...(await addSignature({ method: 'POST', url: URL_, headers }, { components: ['@authority', 'content-digest'] })), body };
    expect(first(await accepted({ maxBodyBytes: body.length - 1 }, req))).toEqual({ outcome: 'unverified', code: 'ERR_BODY_TOO_LARGE' });
    expect((await accepted({ maxBodyBytes: body.length }, req)).outcome).toBe('verified');
  });

  it('requireContentDigest: a predicate is asked about the request', async () => {
    const asked: unknown[] = [];
    const r = await accepted({ requireContentDigest: (info: unknown) => (asked.push(info), true) });
    expect(first(r)).toEqual({ outcome: 'invalid', code: 'ERR_CONTENT_DIGEST_REQUIRED' });
    expect(asked).toEqual([{ method: 'GET', path: '/a', url: URL_ }]);
  });

  it('requiredComponents are compared in their serialised form (a bare or a quoted name alike)', async () => {
    const req = await signed({ components: ['@authority', '@method'] });
    for (const name of ['@method', '"@method"']) expect((await accepted({ requiredComponents: [name] }, req)).outcome).toBe('verified');
    expect(first(await accepted({ requiredComponents: ['@path'] }, req))).toEqual({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
  });
});

describe('every documented option is accepted, and a wrong type is named', () => {
  it('the Signature-Agent reading flags and headersOnly are options; a non-boolean says which', async () => {
    for (const name of ['bareOriginDirectory', 'typedSignatureAgent', 'headersOnly']) {
      for (const value of [true, false]) expect((await accepted({ [name]: value })).outcome, `${name}: ${value}`).toBe('verified');
      await refused({ [name]: 'yes' }, `options.${name} must be a boolean`);
    }
  });

  it('nonce.windowSeconds is an option of nonce', async () => {
    expect((await accepted({ nonce: { windowSeconds: 600 } })).outcome).toBe('verified');
  });

  it('a numeric option given as null takes its default, as undefined does', async () => {
    const r = await accepted({ clockSkewSeconds: null, maxSignatures: null, discovery: { maxDirectories: null } });
    expect(r.outcome).toBe('verified');
  });

  it('requireContentDigest: false is not required', async () => {
    expect((await accepted({ requireContentDigest: false })).outcome).toBe('verified');
  });

  it('a profile jwksUri must be a string: an object that prints as a URL is refused', async () => {
    const uri = { toString: () => 'https://k.example/j' };
    const profile = { name: 'x', tags: { t: { keys: { jwksUri: uri } } } };
    const promise = verifyRequest(await signed(), await withKeys({ profile, directory: { resolve: () => Promise.reject(new Error('no')) } }));
    await expect(promise).rejects.toThrow(new TypeError('options.profile.tags["t"].keys.jwksUri must be an absolute https URL'));
  });
});

describe('authorities: host and port as @authority gives them', () => {
  for (const [url, list, ok] of [
    ['https://example.com/a', ['EXAMPLE.COM'], true],
    ['https://example.com/a', ['example.com:443'], true],
    ['https://example.com:8443/a', ['example.com:8443'], true],
    ['https://example.com:8443/a', ['example.com'], false],
    ['https://example.com/a', ['example.com:8443'], false],
    ['http://example.com/a', ['example.com:80'], true],
    ['http://example.com:8080/a', ['example.com:8080'], true],
    ['https://example.com/a', ['other.example', 'example.com'], true],
    ['https://other.example/a', ['example.com'], false],
  ] as const) {
    it(`${url} with ${JSON.stringify(list)}: ${ok ? 'verified' : 'invalid, ERR_AUTHORITY_NOT_ALLOWED'}`, async () => {
      const r = await accepted({ authorities: list, allowInsecure: true }, await signed({}, url));
      if (ok) expect(r.outcome).toBe('verified');
      else expect(first(r)).toEqual({ outcome: 'invalid', code: 'ERR_AUTHORITY_NOT_ALLOWED' });
    });
  }
});

describe('options.profile', () => {
  const where = 'options.profile.tags["t"]';
  const profileCases: Array<[unknown, string]> = [
    [{ name: 'x', tags: {}, extra: 1 }, 'options.profile: unknown option "extra"'],
    [{ name: '', tags: { t: {} } }, 'options.profile.name must be a non-empty string'],
    [{ name: 5, tags: { t: {} } }, 'options.profile.name must be a non-empty string'],
    [{ name: 'x', tags: null }, 'options.profile.tags must be an object of tag → rules'],
    [{ name: 'x', tags: ['t'] }, 'options.profile.tags must be an object of tag → rules'],
    [{ name: 'x', tags: 5 }, 'options.profile.tags must be an object of tag → rules'],
    [{ name: 'x', tags: {} }, 'options.profile.tags must name at least one tag'],
    [{ name: 'x', tags: { '': {} } }, 'options.profile.tags[""]: a tag is a non-empty printable ASCII string'],
    [{ name: 'x', tags: { 'caf\u00e9': {} } }, 'options.profile.tags["café"]: a tag is a non-empty printable ASCII string'],
    [{ name: 'x', tags: { '\u00e7a': {} } }, 'options.profile.tags["ça"]: a tag is a non-empty printable ASCII string'],
    [{ name: 'x', tags: { 'a\x7f': {} } }, `options.profile.tags[${JSON.stringify('a\x7f')}]: a tag is a non-empty printable ASCII string`],
    [{ name: 'x', tags: { t: null } }, `${where} must be an object`],
    [{ name: 'x', tags: { t: 5 } }, `${where} must be an object`],
    [{ name: 'x', tags: { t: { maxValidity: 1 } } }, `${where}: unknown option "maxValidity"`],
    [{ name: 'x', tags: { t: { maxValiditySeconds: 0 } } }, `${where}.maxValiditySeconds must be a positive number`],
    [{ name: 'x', tags: { t: { maxValiditySeconds: Number.NaN } } }, `${where}.maxValiditySeconds must be a positive number`],
    [{ name: 'x', tags: { t: { maxValiditySeconds: '1' } } }, `${where}.maxValiditySeconds must be a positive number`],
    [{ name: 'x', tags: { t: { nonce: 'sometimes' } } }, `${where}.nonce must be none, optional or required`],
    [{ name: 'x', tags: { t: { strictAuthority: 'yes' } } }, `${where}.strictAuthority must be a boolean`],
    [{ name: 'x', tags: { t: { requiredComponents: '@path' } } }, `${where}.requiredComponents must be an array of component identifiers`],
    [{ name: 'x', tags: { t: { requiredComponents: ['"bad'] } } }, `${where}.requiredComponents has an invalid component identifier`],
    [{ name: 'x', tags: { t: { keys: 5 } } }, `${where}.keys must be 'signature-agent', { jwksUri } or { keys }`],
    [{ name: 'x', tags: { t: { keys: { jwksUri: 'https://k.example/j', keys: [] } } } }, `${where}.keys: unknown option "keys"`],
    [{ name: 'x', tags: { t: { keys: { keys: [], jwks: 1 } } } }, `${where}.keys: unknown option "jwks"`],
    [{ name: 'x', tags: { t: { keys: { jwksUri: 'https://k.example/j', matchKid: 'yes' } } } }, `${where}.keys.matchKid must be a boolean`],
    [{ name: 'x', tags: { t: { keys: { jwksUri: 'ftp://k.example/j' } } } }, `${where}.keys.jwksUri must be an absolute https URL`],
    [{ name: 'x', tags: { t: { keys: { jwksUri: 5 } } } }, `${where}.keys.jwksUri must be an absolute https URL`],
    [{ name: 'x', tags: { t: { keys: { jwksUri: 'x-https://k.example/j' } } } }, `${where}.keys.jwksUri must be an absolute https URL`],
    [{ name: 'x', tags: { t: { keys: { jwksUri: '/relative' } } } }, `${where}.keys.jwksUri must be an absolute https URL`],
    [{ name: 'x', tags: { t: { keys: { jwksUri: 'https://' } } } }, `${where}.keys.jwksUri must be an absolute https URL`],
    [{ name: 'x', tags: { t: { keys: { keys: [] } } } }, `${where}.keys.keys must be a non-empty array of public JWKs or verifying keys`],
    [{ name: 'x', tags: { t: { keys: { keys: 'k' } } } }, `${where}.keys.keys must be a non-empty array of public JWKs or verifying keys`],
  ];
  for (const [profile, message] of profileCases) {
    it(message, async () => {
      const extra = { profile, directory: { resolve: () => Promise.reject(new Error('no')) } };
      const promise = verifyRequest(await signed(), await withKeys(extra));
      await expect(promise).rejects.toThrow(message.includes('unknown option') ? message : new TypeError(message));
    });
  }

  it('{ jwksUri } without a directory says what it needs', async () => {
    await expect(verifyRequest(await signed(), { now, profile: { name: 'x', tags: { t: { keys: { jwksUri: 'https://k.example/j' } } } } })).rejects.toThrow(
      new TypeError(`${where}.keys.jwksUri needs options.directory (a DirectoryClient) to fetch it`),
    );
  });

  it('{ keys } with a JWK that is not a public key says which one; one that cannot be imported too', async () => {
    const bad = { name: 'x', tags: { t: { keys: { keys: [(await me()).publicJwk, { kty: 'OKP' }] } } } };
    await expect(verifyRequest(await signed(), { now, profile: bad as VerifyProfile })).rejects.toThrow(/^options\.profile\.tags\["t"\]\.keys\.keys\[1\] /);
    const broken = { name: 'x', tags: { t: { keys: { keys: [{ kty: 'EC', crv: 'P-256', x: 'A'.repeat(43), y: 'A'.repeat(43) }] } } } };
    // verifyRequest throws the tag's own message (not options.keys'); the import's error is its cause.
    const error: unknown = await verifyRequest(await signed(), { now, profile: broken as VerifyProfile }).catch((e: unknown) => e);
    expect(error).toEqual(new TypeError(`${where}.keys: a key cannot be imported`));
    expect((error as TypeError).cause).toBeInstanceOf(Error);
  });

  it('WEB_BOT_AUTH_PROFILE given explicitly is the default: a signature of another tag is "not tagged web-bot-auth"', async () => {
    const r = await verifyRequest(await signed({ params: { tag: 'other' } }), await withKeys({ profile: WEB_BOT_AUTH_PROFILE }));
    expect(r.signatures[0]!.error).toEqual({ code: 'ERR_TAG_MISMATCH', message: 'signature "sig1" is not tagged web-bot-auth; skipped' });
  });

  it('options.keys still serve the tags whose keys come from Signature-Agent when another tag has its own keys', async () => {
    const o = await other();
    const profile = { name: 'p', tags: { beta: {}, alpha: { keys: { keys: [o.publicJwk] } } } } as VerifyProfile;
    const r = await verifyRequest(await signed({ params: { tag: 'beta' } }), await withKeys({ profile }));
    expect(r.outcome).toBe('verified');
    expect(r.signatures[0]!.keySource).toBe('static');
    const own = await verifyRequest(await signed({ key: o.signing, params: { tag: 'alpha' } }), await withKeys({ profile }));
    expect(own.outcome).toBe('verified');
  });

  it('a tag inherits the options-wide rules it does not set', async () => {
    const req = await signed({ params: { tag: 't' }, components: ['@target-uri'] });
    const k = await me();
    const profile = (rules: Record<string, unknown> = {}): VerifyProfile =>
      ({ name: 'p', tags: { t: { keys: { keys: [k.publicJwk] }, ...rules } } }) as VerifyProfile;
    // strictAuthority: @target-uri does not stand for @authority.
    expect(first(await verifyRequest(req, { now, strictAuthority: true, profile: profile() }))).toEqual({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
    expect((await verifyRequest(req, { now, strictAuthority: true, profile: profile({ strictAuthority: false }) })).outcome).toBe('verified');
    expect((await verifyRequest(req, { now, profile: profile() })).outcome).toBe('verified');
    // requiredComponents.
    expect(first(await verifyRequest(req, { now, requiredComponents: ['@method'], profile: profile() }))).toEqual({
      outcome: 'invalid',
      code: 'ERR_REQUIRED_COMPONENT',
    });
    // maxValiditySeconds.
    expect(first(await verifyRequest(req, { now, maxValiditySeconds: 100, profile: profile() }))).toEqual({
      outcome: 'invalid',
      code: 'ERR_VALIDITY_TOO_LONG',
    });
    expect((await verifyRequest(req, { now, maxValiditySeconds: 100, profile: profile({ maxValiditySeconds: 300 }) })).outcome).toBe('verified');
    // nonce policy.
    expect(first(await verifyRequest(req, { now, nonce: { policy: 'required' }, profile: profile() }))).toEqual({
      outcome: 'invalid',
      code: 'ERR_NONCE_MISSING',
    });
  });

  it('{ keys } with matchKid: a JWK is also found by its kid, unless another key has that thumbprint; without matchKid, by thumbprint only', async () => {
    const k = await me();
    const o = await other();
    const byKid = (matchKid: boolean, keys: unknown[]): VerifyProfile => ({ name: 'p', tags: { t: { keys: { keys, matchKid } } } }) as VerifyProfile;
    const sig = await signed({ params: { tag: 't', keyid: 'agent-1' } });
    expect((await verifyRequest(sig, { now, profile: byKid(true, [{ ...k.publicJwk, kid: 'agent-1' }]) })).outcome).toBe('verified');
    expect(first(await verifyRequest(sig, { now, profile: byKid(false, [{ ...k.publicJwk, kid: 'agent-1' }]) }))).toEqual({
      outcome: 'unverified',
      code: 'ERR_KEY_UNKNOWN',
    });
    // A kid that is another key's thumbprint does not take its place.
    const byThumbprint = await signed({ params: { tag: 't', keyid: k.verifying.thumbprint } });
    const r = await verifyRequest(byThumbprint, { now, profile: byKid(true, [k.publicJwk, { ...o.publicJwk, kid: k.verifying.thumbprint }]) });
    expect(r.outcome).toBe('verified');
    // VerifyingKey objects carry no kid.
    expect(first(await verifyRequest(sig, { now, profile: byKid(true, [k.verifying]) }))).toEqual({ outcome: 'unverified', code: 'ERR_KEY_UNKNOWN' });
  });

  it('{ jwksUri }: the directory is asked about a jwks_uri member with the URL as given, its scheme in lowercase', async () => {
    const asked: SignatureAgentMember[] = [];
    const directory: KeyDirectory = {
      resolve: (member) => {
        asked.push(member);
        return Promise.resolve({ url: member.url, keys: [], diagnostics: [] });
      },
    };
    for (const jwksUri of ['HTTPS://keys.example/j', 'http://keys.example/j']) {
      await verifyRequest(await signed({ params: { tag: 't' } }), { now, directory, profile: { name: 'p', tags: { t: { keys: { jwksUri } } } } });
    }
    expect(asked.map((m) => [m.url, m.type, m.scheme])).toEqual([
      ['HTTPS://keys.example/j', 'jwks_uri', 'https'],
      ['http://keys.example/j', 'jwks_uri', 'http'],
    ]);
  });
});
