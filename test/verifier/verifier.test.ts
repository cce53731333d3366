/**
 * createVerifier (src/verifier.ts): option checks, the default enforcement rules
 * (SPEC 4.3, 7), origin nonces (SPEC 5.3 rule 8), transport and proxy rules on
 * web-standard Requests, policies, and the Forwarded parser (RFC 7239 §4).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, parseAcceptSignature, signOptionsFromChallenge, signRequest, challengeResponse, createVerifier, isVerifier } from '../../src/index';
import type { GeneratedKeyPair, SignRequestOptions, VerificationResult, VerifierOptions } from '../../src/index';
import { serializeComponentIdentifier } from '../../src/httpsig';
import { isValidAuthority, parseForwarded } from '../../src/verifier';

let pair: GeneratedKeyPair;
beforeAll(async () => {
  pair = await generateKeyPair('ed25519');
});

const URL_HTTPS = 'https://site.example/page';

async function signed(url: string, extra: Partial<SignRequestOptions> = {}, headers: Record<string, string> = {}): Promise<Request> {
  const sig = await signRequest({ method: 'GET', url, headers }, { key: pair.privateJwk, signatureAgent: 'https://agent.example', ...extra });
  return new Request(url, { headers: { ...headers, ...sig } });
}

function staticVerifier(extra: VerifierOptions = {}) {
  return createVerifier({ keys: [pair.publicJwk], ...extra });
}

describe('createVerifier options (validated once)', () => {
  it('TypeError for malformed options', () => {
    const bad: unknown[] = [
      { mode: 'block' },
      { policy: 'deny' },
      { mode: 'observe', policy: () => undefined },
      { trustProxy: -1 },
      { trustProxy: 'yes' },
      { trustProxy: 1.5 },
      { challenge: { components: ['not a component!'] } },
      { challenge: { label: 'Bad Label' } },
      { originNonce: { secret: 'short' } },
      { originNonce: 'yes' },
      { originNonce: { required: true }, nonce: { policy: 'none' } },
      { nonce: { policy: 'sometimes' } },
      { directory: 42 },
      { allowInsecure: 'true' },
      { keys: 'jwk' },
      { clockSkewSeconds: -1 },
    ];
    for (const options of bad) expect(() => createVerifier(options as VerifierOptions), JSON.stringify(options)).toThrow(TypeError);
    expect(() => createVerifier(null as unknown as VerifierOptions)).toThrow(TypeError);
  });

  it('mode defaults to observe, and to enforce when a policy is given; the verifier and its options are frozen', () => {
    expect(createVerifier({ directory: false }).mode).toBe('observe');
    const v = createVerifier({ directory: false, policy: () => undefined });
    expect(v.mode).toBe('enforce');
    expect(isVerifier(v)).toBe(true);
    expect(isVerifier({ ...v })).toBe(false);
    expect(Object.isFrozen(v)).toBe(true);
    expect(Object.isFrozen(v.verifyOptions)).toBe(true);
  });

  it('a default DirectoryClient only when no keys or resolver are given; a nonce store of its own', () => {
    expect(createVerifier().verifyOptions.directory).toBeDefined();
    expect(staticVerifier().verifyOptions.directory).toBeUndefined();
    expect(createVerifier({ resolveKey: () => undefined }).verifyOptions.directory).toBeUndefined();
    expect(createVerifier({ directory: false }).verifyOptions.directory).toBeUndefined();
    const a = createVerifier({ directory: false }).verifyOptions.nonce?.store;
    const b = createVerifier({ directory: false }).verifyOptions.nonce?.store;
    expect(a).toBeDefined();
    expect(a).not.toBe(b);
  });

  it('the caller’s arrays are copied: changing them later does not change the verifier', async () => {
    const keys = [pair.publicJwk];
    const v = createVerifier({ keys, allowInsecure: false });
    keys.length = 0;
    expect((await v.verify(await signed(URL_HTTPS))).outcome).toBe('verified');
  });
});

describe('decide: the default enforcement rules (SPEC 4.3, 7)', () => {
  const v = createVerifier({ directory: false, requiredComponents: ['@method'] });
  const base = { signatures: [], diagnostics: [] } as const;

  it('verified → undefined; malformed → 400 without Accept-Signature', () => {
    expect(v.decide({ ...base, outcome: 'verified', malformed: false })).toBeUndefined();
    const c = v.decide({ ...base, outcome: 'invalid', malformed: true });
    expect(c?.status).toBe(400);
    expect(c?.headers['accept-signature']).toBeUndefined();
  });

  it('no signature → 403 asking for @authority plus the required components (RFC 9421 §5.1)', () => {
    const c = v.decide({ ...base, outcome: 'unverified', malformed: false, error: { code: 'ERR_NO_SIGNATURE', message: '' } });
    expect(c?.status).toBe(403);
    const sig1 = parseAcceptSignature(c!.headers['accept-signature']!).get('sig1');
    expect(sig1?.components.map(serializeComponentIdentifier)).toEqual(['"@authority"', '"@method"']);
  });

  it('replay → 429 with Accept-Signature', () => {
    const result: VerificationResult = {
      outcome: 'invalid',
      malformed: false,
      diagnostics: [],
      signatures: [{ label: 'sig1', outcome: 'invalid', skipped: false, params: {}, covered: [], error: { code: 'ERR_NONCE_REPLAYED', message: '' } }],
    };
    const c = v.decide(result);
    expect(c?.status).toBe(429);
    expect(c?.headers['accept-signature']).toContain('tag="web-bot-auth"');
  });

  it('challenge options name the label, components and key asked for', () => {
    const custom = createVerifier({ directory: false, challenge: { label: 'bot', components: ['@authority', '@path'], keyid: 'abc' } });
    const c = custom.decide({ ...base, outcome: 'unverified', malformed: false });
    const bot = parseAcceptSignature(c!.headers['accept-signature']!).get('bot');
    expect(bot?.components.map(serializeComponentIdentifier)).toEqual(['"@authority"', '"@path"']);
    expect(bot?.params.get('keyid')).toEqual({ type: 'string', value: 'abc' });
  });
});

describe('origin nonces (SPEC 5.3 rule 8)', () => {
  const unsignedResult: VerificationResult = { outcome: 'unverified', malformed: false, signatures: [], diagnostics: [] };

  it('each challenge carries a fresh minted nonce; a signature with it verifies; the same nonce again is a replay (429)', async () => {
    const v = staticVerifier({ mode: 'enforce', originNonce: { required: true } });
    const c1 = v.decide(unsignedResult)!;
    const c2 = v.decide(unsignedResult)!;
    expect(c1.nonce).toBeDefined();
    expect(c1.nonce).not.toBe(c2.nonce);
    const retry = signOptionsFromChallenge(c1.headers['accept-signature']!);
    expect(retry.nonce).toBe(c1.nonce);
    const ok = await v.handle(await signed(URL_HTTPS, retry));
    expect(ok.result.outcome).toBe('verified');
    expect(ok.challenge).toBeUndefined();
    const replay = await v.handle(await signed(URL_HTTPS, retry));
    expect((replay.challenge as { status: number }).status).toBe(429);
  });

  it('required: the agent’s own nonce → invalid ERR_NONCE_INVALID; no nonce → ERR_NONCE_MISSING; both answered 403 with a new nonce', async () => {
    const v = staticVerifier({ mode: 'enforce', originNonce: { required: true } });
    const own = await v.handle(await signed(URL_HTTPS));
    expect(own.result.outcome).toBe('invalid');
    expect(own.result.error?.code).toBe('ERR_NONCE_INVALID');
    expect(own.result.agent).toBeUndefined();
    expect((own.challenge as { status: number }).status).toBe(403);
    const none = await v.handle(await signed(URL_HTTPS, { nonce: false }));
    expect(none.result.signatures[0]?.error?.code).toBe('ERR_NONCE_MISSING');
  });

  it('not required: minted nonces are offered, the agent’s own nonces still pass', async () => {
    const v = staticVerifier({ originNonce: true });
    expect(v.decide(unsignedResult)?.nonce).toMatch(/^[A-Za-z0-9_-]{48}$/);
    expect((await v.verify(await signed(URL_HTTPS))).outcome).toBe('verified');
  });

  it('a shared secret lets another verifier accept the nonce; another secret, a forged MAC or an old nonce do not', async () => {
    let now = Date.now();
    const clock = () => now;
    const secret = 'a shared secret of 32 bytes ....';
    const a = staticVerifier({ now: clock, originNonce: { secret, required: true, maxAgeSeconds: 60 } });
    const b = staticVerifier({ now: clock, originNonce: { secret, required: true, maxAgeSeconds: 60 } });
    const other = staticVerifier({ now: clock, originNonce: { secret: 'another secret of 32 bytes .....', required: true } });
    const signWith = async (nonce: string) => signed(URL_HTTPS, { nonce, now: clock });
    const nonce = a.decide(unsignedResult)!.nonce!;
    expect((await b.verify(await signWith(nonce))).outcome).toBe('verified');
    expect((await other.verify(await signWith(nonce))).error?.code).toBe('ERR_NONCE_INVALID');
    const forged = nonce.slice(0, -2) + (nonce.endsWith('AA') ? 'AB' : 'AA');
    expect((await a.verify(await signWith(forged))).error?.code).toBe('ERR_NONCE_INVALID');
    const fresh = a.decide(unsignedResult)!.nonce!;
    now += (60 + 60 + 1) * 1000; // maxAge + clock skew + 1 s
    expect((await a.verify(await signWith(fresh))).error?.code).toBe('ERR_NONCE_INVALID');
  });
});

describe('transport and proxy rules on web-standard Requests', () => {
  it('transport.secure overrides the URL scheme: https verifies without allowInsecure, a plain socket makes it insecure (SPEC 5.3 rule 6)', async () => {
    const v = staticVerifier();
    const req = await signed(URL_HTTPS);
    expect((await v.verify(req)).outcome).toBe('verified');
    const plain = await v.verify(await signed(URL_HTTPS), { secure: false });
    expect(plain).toMatchObject({ outcome: 'unverified', error: { code: 'ERR_INSECURE_TRANSPORT' } });
    const httpUrl = 'http://site.example/page';
    const viaTls = await signed(httpUrl);
    expect((await v.verify(viaTls)).error?.code).toBe('ERR_INSECURE_TRANSPORT');
    // Signed for http:// (the client's view) but the connection was TLS: @scheme is not covered, the authority matches.
    expect((await v.verify(await signed(httpUrl), { secure: true })).outcome).toBe('verified');
  });

  it('X-Forwarded-Proto / Forwarded are read only with trustProxy; a forged X-Forwarded-Host does not change @authority', async () => {
    const url = 'http://internal:8080/page';
    const signedForPublic = async (headers: Record<string, string>) => {
      const sig = await signRequest(
        { method: 'GET', url: 'https://shop.example/page', headers },
        { key: pair.privateJwk, signatureAgent: 'https://agent.example' },
      );
      return new Request(url, { headers: { ...headers, ...sig } });
    };
    const headers = { 'x-forwarded-host': 'shop.example', 'x-forwarded-proto': 'https' };
    expect((await staticVerifier({ allowInsecure: true }).verify(await signedForPublic(headers))).outcome).toBe('invalid');
    expect((await staticVerifier({ trustProxy: true }).verify(await signedForPublic(headers))).outcome).toBe('verified');
    expect((await staticVerifier({ trustProxy: () => true }).verify(await signedForPublic({ forwarded: 'host=shop.example;proto=https' }))).outcome).toBe(
      'verified',
    );
    const refusedPeer = staticVerifier({ trustProxy: (addr) => addr === '10.0.0.1', allowInsecure: true });
    expect((await refusedPeer.verify(await signedForPublic(headers), { remoteAddress: '192.0.2.1' })).outcome).toBe('invalid');
    expect((await refusedPeer.verify(await signedForPublic(headers), { remoteAddress: '10.0.0.1' })).outcome).toBe('verified');
  });

  it('a message object is taken as it is (its builder applied the rules)', async () => {
    const v = staticVerifier({ trustProxy: true });
    const sig = await signRequest({ method: 'GET', url: URL_HTTPS }, { key: pair.privateJwk, signatureAgent: 'https://agent.example' });
    const result = await v.verify({ method: 'GET', url: URL_HTTPS, headers: { ...sig, 'x-forwarded-proto': 'http' } });
    expect(result.outcome).toBe('verified');
  });
});

describe('policies and responses', () => {
  it('the policy sees the result, the request (method, url, headers) and the default answer; observe mode never blocks', async () => {
    const seen: unknown[] = [];
    const v = staticVerifier({
      policy: (result, request, fallback) => {
        seen.push([result.outcome, request.method, request.url, request.header('X-Test'), request.header('absent'), fallback?.status]);
        return fallback;
      },
    });
    const out = await v.handle(new Request(URL_HTTPS, { method: 'POST', headers: { 'x-test': 'yes' } }));
    expect(seen).toEqual([['unverified', 'POST', URL_HTTPS, 'yes', undefined, 403]]);
    expect(out.challenge).toMatchObject({ status: 403 });
    const observe = await staticVerifier().handle(new Request(URL_HTTPS));
    expect(observe).toMatchObject({ result: { outcome: 'unverified' }, challenge: undefined });
  });

  it('message-object requests give the policy their header lines joined (records and pair lists)', async () => {
    const headersSeen: (string | undefined)[] = [];
    const v = createVerifier({ directory: false, policy: (_r, request) => void headersSeen.push(request.header('x-a')) });
    await v.handle({ method: 'GET', url: URL_HTTPS, headers: { 'X-A': ['1', '2'] } });
    await v.handle({
      method: 'GET',
      url: URL_HTTPS,
      headers: [
        ['x-a', '3'],
        ['X-A', '4'],
      ],
    });
    expect(headersSeen).toEqual(['1, 2', '3, 4']);
  });

  it('a policy answer that is not undefined, a Response or { status 200–599 } is a TypeError', async () => {
    for (const answer of [{ status: 99 }, { status: '403' }, 'deny', { status: 403, reason: 5 }]) {
      const v = createVerifier({ directory: false, policy: () => answer as never });
      await expect(v.handle(new Request(URL_HTTPS)), JSON.stringify(answer)).rejects.toThrow(TypeError);
    }
  });

  it('challengeResponse: status, Accept-Signature, text/plain reason, no-store; a Response passes through', async () => {
    const v = createVerifier({ directory: false });
    const c = v.decide({ outcome: 'unverified', malformed: false, signatures: [], diagnostics: [] })!;
    const r = challengeResponse(c);
    expect(r.status).toBe(403);
    expect(r.headers.get('accept-signature')).toBe(c.headers['accept-signature']);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(await r.text()).toBe('signature required');
    const own = new Response('x', { status: 402 });
    expect(challengeResponse(own)).toBe(own);
    expect(challengeResponse({ status: 401, headers: { 'Cache-Control': 'max-age=5' } }).headers.get('cache-control')).toBe('max-age=5');
  });
});

describe('parseForwarded (RFC 7239 §4) and isValidAuthority', () => {
  it('elements, quoted strings with escapes, case-insensitive names, first value per element', () => {
    expect(parseForwarded('for=192.0.2.60;proto=http;by=203.0.113.43')).toEqual([{ proto: 'http' }]);
    expect(parseForwarded('Host="a.example:8443";PROTO=https, host=b.example')).toEqual([{ host: 'a.example:8443', proto: 'https' }, { host: 'b.example' }]);
    expect(parseForwarded('host="a\\"b";host=second')).toEqual([{ host: 'a"b' }]);
    expect(parseForwarded('for="[2001:db8:cafe::17]:4711"')).toEqual([{}]);
    expect(parseForwarded('host=a.example:8080')).toEqual([{ host: 'a.example:8080' }]);
  });

  it('malformed fields say nothing (undefined)', () => {
    for (const bad of ['host', 'host=', '=x', 'host="open', 'ho st=x', 'host=a"b', 'host="x\\']) expect(parseForwarded(bad), bad).toBeUndefined();
    expect(parseForwarded(Array.from({ length: 100 }, () => 'proto=http').join(','))).toBeUndefined();
  });

  it('property: never throws, linear, at most 65 elements', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const out = parseForwarded(text);
        if (out !== undefined) expect(out.length).toBeLessThanOrEqual(65);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.array(fc.constantFrom('host=', 'proto=', '"', '\\', ';', ',', ' ', 'a', ':', '='), { maxLength: 200 }), (parts) => {
        parseForwarded(parts.join(''));
      }),
      { numRuns: 2000 },
    );
  });

  it('isValidAuthority: host[:port], IP literals in brackets, nothing else', () => {
    for (const ok of ['a.example', 'a.example:1', 'a.example:65535', '127.0.0.1:8080', '[::1]', '[::1]:443', 'xn--bcher-kva.example'])
      expect(isValidAuthority(ok), ok).toBe(true);
    for (const bad of [
      '',
      ':80',
      'a.example:',
      'a.example:123456',
      'a/b',
      'u@a',
      'a b',
      '[::1',
      '::1]',
      '[::1]x',
      'a[::1]',
      '\u00e9.example',
      'a#b',
      'a?b',
      'x'.repeat(300),
    ]) {
      expect(isValidAuthority(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
