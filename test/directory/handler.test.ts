import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotsigError, verifyContentDigest, generateKeyPair, keyForAlgorithm, toAlgorithmName } from '../../src/index';
import type { Jwk, SigningKey, VerifyingKey } from '../../src/index';
import { createDirectoryHandler, parseDirectory } from '../../src/directory';
import type { DirectoryHandlerOptions, DirectoryRequestInfo } from '../../src/directory';
import { importSigningKey, importVerifyingKey, parseSignatureInput, verifyMessage } from '../../src/httpsig';
import { ifNoneMatchMatches } from '../../src/directory/handler';

const WK = '/.well-known/http-message-signatures-directory';
const MEDIA = 'application/http-message-signatures-directory+json';

interface Vector {
  id: string;
  request: string[];
  body: string;
  contentDigest: string;
  signatureInput: string;
  signature: string;
  created: number;
  expires: number;
  keyid: string;
  label: string;
  key: string;
}
const wba = JSON.parse(readFileSync(new URL('../../vectors/web-bot-auth.json', import.meta.url), 'utf8')) as { vectors: Vector[] };
const rfc = JSON.parse(readFileSync(new URL('../../vectors/rfc9421.json', import.meta.url), 'utf8')) as {
  keys: Array<{ id: string; jwk: Jwk }>;
};
const vector = wba.vectors.find((v) => v.id === 'wba-directory-response')!;
const edTestJwk = rfc.keys.find((k) => k.id === 'test-key-ed25519')!.jwk;

function clock(startSeconds: number): { now: () => number; set: (s: number) => void; advance: (s: number) => void } {
  let t = startSeconds * 1000;
  return { now: () => t, set: (s) => (t = s * 1000), advance: (s) => (t += s * 1000) };
}

function get(authority: string, init?: RequestInit & { path?: string }): Request {
  return new Request('https://' + authority + (init?.path ?? WK), init);
}

function maxAgeOf(res: Response): number {
  const cc = res.headers.get('cache-control') ?? '';
  const m = /max-age=(\d+)/.exec(cc);
  if (m === null) throw new Error('no max-age');
  return Number(m[1]);
}

/** Counts sign() calls, keeping the key usable by signMessage. */
function counting(key: SigningKey): SigningKey & { calls: () => number } {
  let n = 0;
  return {
    alg: key.alg,
    thumbprint: key.thumbprint,
    publicJwk: key.publicJwk,
    sign: (data: Uint8Array) => {
      n++;
      return key.sign(data);
    },
    calls: () => n,
  };
}

const T0 = 1_800_000_000;
let ed: { privateJwk: Jwk; publicJwk: Jwk; thumbprint: string };
let ec: { privateJwk: Jwk; publicJwk: Jwk; thumbprint: string };
let rsa: { privateJwk: Jwk; publicJwk: Jwk; thumbprint: string };
const verifying = new Map<string, VerifyingKey>();

beforeAll(async () => {
  ed = await generateKeyPair('ed25519');
  ec = await generateKeyPair('ecdsa-p256-sha256');
  rsa = await generateKeyPair('rsa-pss-sha512');
  for (const k of [ed, ec, rsa]) verifying.set(k.thumbprint, await importVerifyingKey(k.publicJwk));
});

async function verifyAll(res: Response, request: Request | { url: string }): Promise<string[]> {
  const inputs = parseSignatureInput(res.headers.get('signature-input')!);
  const keyids: string[] = [];
  for (const [label, input] of inputs) {
    const verified = await verifyMessage(res, {
      label,
      request,
      keyLookup: (i) => {
        const kid = i.params.get('keyid');
        return kid?.type === 'string' ? verifying.get(kid.value) : undefined;
      },
    });
    expect(verified.params.tag, 'SPEC 5.4: tag').toBe('http-message-signatures-directory');
    expect(
      input.components.map((c) => c.name),
      'SPEC 5.4 covered components',
    ).toEqual(['@authority', 'content-digest']);
    expect(input.components[0]!.params.get('req'), 'SPEC 5.4: @authority carries req').toEqual({ type: 'boolean', value: true });
    keyids.push(verified.params.keyid!);
  }
  return keyids;
}

describe('draft vector: Signed Directory Response (draft-meunier-webbotauth-httpsig-protocol appendix)', () => {
  it('reproduces the draft signature, digest and body byte for byte', async () => {
    // The draft publishes {kty, crv, kid, x, use}: give the private JWK in that member order.
    const jwk: Jwk = { kty: 'OKP', crv: 'Ed25519', kid: 'anything', x: edTestJwk.x!, use: 'sig', d: edTestJwk.d! };
    const handler = createDirectoryHandler({
      keys: [jwk],
      now: () => vector.created * 1000,
      signatureValiditySeconds: vector.expires - vector.created,
      allowTestKeys: true,
    });
    const host = vector.request.find((l) => l.startsWith('Host: '))!.slice(6);
    const res = await handler(get(host, { headers: { accept: MEDIA } }));
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body, 'draft vector body').toBe(vector.body);
    expect(res.headers.get('content-digest'), 'draft vector Content-Digest').toBe(vector.contentDigest);
    expect(res.headers.get('signature-input'), 'draft vector Signature-Input').toBe(vector.signatureInput);
    expect(res.headers.get('signature'), 'draft vector Signature (Ed25519 is deterministic)').toBe(vector.signature);
  });

  it('refuses the RFC 9421 example key unless allowTestKeys (draft: test keys MUST NOT be used in production)', async () => {
    const handler = createDirectoryHandler({ keys: [edTestJwk], now: () => vector.created * 1000 });
    await expect(handler(get('signature-agent.test'))).rejects.toMatchObject({ code: 'ERR_KEY_TEST_KEY' });
  });
});

describe('createDirectoryHandler: GET/HEAD (SPEC 4.1)', () => {
  it('serves the directory with media type, CORS, ETag, Cache-Control and Content-Digest', async () => {
    const c = clock(T0);
    const handler = createDirectoryHandler({ keys: [ed.privateJwk, ec.privateJwk], now: c.now });
    const res = await handler(get('bot.example'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type'), 'SPEC 2.1 rule 5 media type').toBe(MEDIA);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('Signature-Input');
    expect(maxAgeOf(res)).toBe(300);
    expect(res.headers.get('date')).toBe(new Date(T0 * 1000).toUTCString());
    const etag = res.headers.get('etag')!;
    expect(etag.startsWith('"') && etag.endsWith('"') && !etag.startsWith('W/'), 'strong ETag').toBe(true);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    await verifyContentDigest(res.headers.get('content-digest')!, bytes, { require: ['sha-256'] });

    const parsed = await parseDirectory(new TextDecoder().decode(bytes), { url: 'https://bot.example' + WK });
    expect(parsed.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
    expect(
      parsed.keys.map((k) => k.thumbprint),
      'published JWKs keep the order given (DESIGN.md)',
    ).toEqual([ed.thumbprint, ec.thumbprint]);
    for (const k of parsed.keys) expect(k.jwk.d, 'no private member is published').toBeUndefined();
  });

  it('HEAD gives the GET fields and no body', async () => {
    const c = clock(T0);
    const handler = createDirectoryHandler({ keys: [ed.privateJwk], now: c.now });
    const g = await handler(get('bot.example'));
    const h = await handler(get('bot.example', { method: 'HEAD' }));
    expect(h.status).toBe(200);
    expect(h.body).toBeNull();
    for (const name of ['content-type', 'etag', 'cache-control', 'content-digest', 'signature-input', 'signature', 'content-length']) {
      expect(h.headers.get(name), name).toBe(g.headers.get(name));
    }
  });

  it('signs once per key, each verifying with the response paired with its request (RFC 9421 §2.4, SPEC 5.4)', async () => {
    const c = clock(T0);
    const handler = createDirectoryHandler({ keys: [ed.privateJwk, ec.privateJwk, rsa.privateJwk], now: c.now, includeAlg: true });
    const req = get('bot.example:8443');
    const res = await handler(req);
    const keyids = await verifyAll(res, req);
    expect(keyids, 'keyid = JWK thumbprint, one per key').toEqual([ed.thumbprint, ec.thumbprint, rsa.thumbprint]);
    const inputs = parseSignatureInput(res.headers.get('signature-input')!);
    expect([...inputs.keys()]).toEqual(['binding', 'binding2', 'binding3']);
    for (const input of inputs.values()) {
      expect(input.params.get('created')).toEqual({ type: 'integer', value: T0 });
      expect(input.params.get('expires')).toEqual({ type: 'integer', value: T0 + 3600 });
      expect(input.params.has('alg')).toBe(true);
    }
    // Bound to the authority: the same response presented for another authority fails.
    await expect(verifyMessage(res, { label: 'binding', key: verifying.get(ed.thumbprint)!, request: get('evil.example') })).rejects.toMatchObject({
      code: 'ERR_SIGNATURE_INVALID',
    });
  });

  it('accepts SigningKeys and { key, nbf, exp } entries; publishes nbf/exp', async () => {
    const signing = await importSigningKey(ed.privateJwk);
    const handler = createDirectoryHandler({
      keys: [signing, { key: ec.privateJwk, nbf: T0 - 10, exp: T0 + 10_000 }],
      now: clock(T0).now,
    });
    const res = await handler(get('bot.example'));
    const doc = (await res.json()) as { keys: Jwk[] };
    expect(doc.keys[0]!.kid).toBe(ed.thumbprint);
    expect(doc.keys[1]).toMatchObject({ kid: ec.thumbprint, nbf: T0 - 10, exp: T0 + 10_000 });
  });
});

describe('published keys interoperate (issue 14)', () => {
  /** Verifies every response signature with keys imported from the published body, bound to each signature's alg. */
  async function verifyWithPublished(res: Response, request: Request): Promise<Array<{ keyid: string; alg: string | undefined }>> {
    const body = (await res.clone().json()) as { keys: Jwk[] };
    const keys = new Map<string, VerifyingKey>();
    for (const jwk of body.keys) keys.set(jwk.kid!, await importVerifyingKey(jwk));
    const out: Array<{ keyid: string; alg: string | undefined }> = [];
    for (const label of parseSignatureInput(res.headers.get('signature-input')!).keys()) {
      const verified = await verifyMessage(res, {
        label,
        request,
        keyLookup: (input) => {
          const kid = input.params.get('keyid');
          const alg = input.params.get('alg');
          const key = kid?.type === 'string' ? keys.get(kid.value) : undefined;
          if (key === undefined) return undefined;
          const bound = keyForAlgorithm(key, alg?.type === 'string' ? toAlgorithmName(alg.value) : undefined);
          if (bound instanceof BotsigError) throw bound;
          return bound;
        },
      });
      out.push({ keyid: verified.params.keyid!, alg: verified.params.alg });
    }
    return out;
  }

  it('Ed25519 and EC keys are published without alg, even from key files that carry one, and import unchanged into jose and WebCrypto', async () => {
    const handler = createDirectoryHandler({
      keys: [
        { ...ed.privateJwk, alg: 'ed25519' },
        { ...ec.privateJwk, alg: 'ES256' },
      ],
      now: clock(T0).now,
    });
    const req = get('bot.example');
    const res = await handler(req);
    const doc = (await res.clone().json()) as { keys: jose.JWK[] };
    expect(doc.keys.map((k) => k.alg)).toEqual([undefined, undefined]);
    const set = jose.createLocalJWKSet(doc);
    expect((await set({ alg: 'EdDSA', kid: ed.thumbprint })).type).toBe('public');
    expect((await set({ alg: 'ES256', kid: ec.thumbprint })).type).toBe('public');
    await crypto.subtle.importKey('jwk', doc.keys[0] as JsonWebKey, { name: 'Ed25519' }, false, ['verify']);
    await crypto.subtle.importKey('jwk', doc.keys[1] as JsonWebKey, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    expect(await verifyWithPublished(res, req)).toEqual([
      { keyid: ed.thumbprint, alg: undefined },
      { keyid: ec.thumbprint, alg: undefined },
    ]);
  });

  it('an RSA private JWK without alg is accepted: published as given, its signature names rsa-pss-sha512', async () => {
    const { alg: _alg, ...rsaPrivate } = rsa.privateJwk;
    const handler = createDirectoryHandler({ keys: [ed.privateJwk, rsaPrivate], now: clock(T0).now });
    const req = get('bot.example');
    const res = await handler(req);
    expect(res.status).toBe(200);
    const doc = (await res.clone().json()) as { keys: Jwk[] };
    expect(doc.keys[1]).not.toHaveProperty('alg');
    expect(doc.keys[1]).not.toHaveProperty('d');
    expect(doc.keys[1]!.kid).toBe(rsa.thumbprint);
    await crypto.subtle.importKey('jwk', doc.keys[1] as JsonWebKey, { name: 'RSA-PSS', hash: 'SHA-512' }, false, ['verify']);
    // includeAlg is off: only the key whose published JWK does not name its algorithm gets alg.
    expect(await verifyWithPublished(res, req)).toEqual([
      { keyid: ed.thumbprint, alg: undefined },
      { keyid: rsa.thumbprint, alg: 'rsa-pss-sha512' },
    ]);
    const parsed = await parseDirectory(await res.text(), { url: 'https://bot.example' + WK });
    expect(parsed.diagnostics).toEqual([]);
  });

  it('an RSA signing key bound to rsa-v1_5-sha256 by the caller: published without alg, its signature names rsa-v1_5-sha256', async () => {
    const { alg: _alg, ...rsaPrivate } = rsa.privateJwk;
    const signing = await importSigningKey(rsaPrivate, { alg: 'rsa-v1_5-sha256' });
    const handler = createDirectoryHandler({ keys: [signing], now: clock(T0).now });
    const req = get('bot.example');
    const res = await handler(req);
    const doc = (await res.clone().json()) as { keys: Jwk[] };
    expect(doc.keys[0]).not.toHaveProperty('alg');
    expect(await verifyWithPublished(res, req)).toEqual([{ keyid: rsa.thumbprint, alg: 'rsa-v1_5-sha256' }]);
  });

  it('an RSA key with alg is published with its RFC 9421 name (PS512 → rsa-pss-sha512) and signs without alg unless includeAlg', async () => {
    const handler = createDirectoryHandler({ keys: [{ ...rsa.privateJwk, alg: 'PS512' }], now: clock(T0).now });
    const req = get('bot.example');
    const res = await handler(req);
    const doc = (await res.clone().json()) as { keys: Jwk[] };
    expect(doc.keys[0]!.alg).toBe('rsa-pss-sha512');
    expect(await verifyWithPublished(res, req)).toEqual([{ keyid: rsa.thumbprint, alg: undefined }]);
  });
});

describe('conditional requests (RFC 9110 §13.1.2)', () => {
  it('If-None-Match with the ETag, a weak form, a list or * gives 304 with no body and fresh signatures', async () => {
    const c = clock(T0);
    const handler = createDirectoryHandler({ keys: [ed.privateJwk], now: c.now });
    const first = await handler(get('bot.example'));
    const etag = first.headers.get('etag')!;
    for (const inm of [etag, 'W/' + etag, '"nope", ' + etag, '"a",W/' + etag + ' ,"b"', '*']) {
      const res = await handler(get('bot.example', { headers: { 'if-none-match': inm } }));
      expect(res.status, `If-None-Match: ${inm}`).toBe(304);
      expect(res.body).toBeNull();
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('signature')).toBe(first.headers.get('signature'));
      expect(res.headers.get('content-type')).toBeNull();
    }
    for (const inm of ['"nope"', 'W/"x"', '', etag.slice(0, -2) + '"', 'garbage ' + etag]) {
      const res = await handler(get('bot.example', { headers: { 'if-none-match': inm } }));
      expect(res.status, `If-None-Match: ${inm}`).toBe(200);
    }
    const head = await handler(get('bot.example', { method: 'HEAD', headers: { 'if-none-match': etag } }));
    expect(head.status).toBe(304);
  });

  it('ifNoneMatchMatches never throws and matches only listed tags (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const r = ifNoneMatchMatches(s, '"abc"');
        expect(typeof r).toBe('boolean');
        if (r) expect(s.includes('"abc"') || s.includes('*')).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[A-Za-z0-9+/=]{0,12}$/), { maxLength: 5 }), fc.boolean(), (tags, weak) => {
        const list = [...tags.map((t) => `"${t}x"`), (weak ? 'W/' : '') + '"abc"'].join(', ');
        expect(ifNoneMatchMatches(list, '"abc"')).toBe(true);
      }),
    );
  });

  it('the ETag depends on the body bytes only: stable across requests, authorities and handler instances', async () => {
    const c = clock(T0);
    const a = createDirectoryHandler({ keys: [ed.privateJwk, ec.privateJwk], now: c.now });
    const b = createDirectoryHandler({ keys: [ed.privateJwk, ec.privateJwk], now: c.now, maxAgeSeconds: 10 });
    const e1 = (await a(get('one.example'))).headers.get('etag');
    c.advance(5000);
    const e2 = (await a(get('two.example'))).headers.get('etag');
    const e3 = (await b(get('one.example'))).headers.get('etag');
    expect(e2).toBe(e1);
    expect(e3).toBe(e1);
    const other = createDirectoryHandler({ keys: [ec.privateJwk, ed.privateJwk], now: c.now });
    expect((await other(get('one.example'))).headers.get('etag'), 'another body, another ETag').not.toBe(e1);
  });
});

describe('other paths and methods', () => {
  it('404 elsewhere, 405 with Allow for other methods, 204 for a CORS preflight', async () => {
    const seen: DirectoryRequestInfo[] = [];
    const handler = createDirectoryHandler({ keys: [ed.privateJwk], now: clock(T0).now, onRequest: (i) => seen.push(i) });
    expect((await handler(get('bot.example', { path: '/' }))).status).toBe(404);
    expect((await handler(get('bot.example', { path: WK + '/' }))).status).toBe(404);
    const post = await handler(get('bot.example', { method: 'POST', body: 'x' }));
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await handler(get('bot.example', { method: 'DELETE' }))).status).toBe(405);
    const pre = await handler(get('bot.example', { method: 'OPTIONS' }));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(seen.map((s) => s.status)).toEqual([404, 404, 405, 405, 204]);
  });

  it('serves a custom path', async () => {
    const handler = createDirectoryHandler({ keys: [ed.privateJwk], now: clock(T0).now, path: '/keys.json' });
    expect((await handler(get('bot.example', { path: '/keys.json' }))).status).toBe(200);
    expect((await handler(get('bot.example'))).status).toBe(404);
  });

  it('authorities: signs only for the configured names, 421 otherwise', async () => {
    const handler = createDirectoryHandler({ keys: [ed.privateJwk], now: clock(T0).now, authorities: ['Bot.Example', 'bot.example:8443'] });
    expect((await handler(get('bot.example'))).status).toBe(200);
    expect((await handler(get('bot.example:8443'))).status).toBe(200);
    expect((await handler(get('bot.example:443'))).status, 'default port is the same authority').toBe(200);
    expect((await handler(get('evil.example'))).status).toBe(421);
    expect((await handler(get('bot.example:9999'))).status).toBe(421);
  });

  it('onRequest sees method, path and status only (SPEC 5.6 rule 5); its errors do not break serving', async () => {
    const seen: DirectoryRequestInfo[] = [];
    const handler = createDirectoryHandler({ keys: [ed.privateJwk], now: clock(T0).now, onRequest: (i) => seen.push(i) });
    await handler(get('bot.example', { path: WK + '?q=1', headers: { 'user-agent': 'secret-agent', 'x-forwarded-for': '192.0.2.1' } }));
    expect(seen).toEqual([{ method: 'GET', path: WK, status: 200 }]);
    expect(Object.keys(seen[0]!).sort()).toEqual(['method', 'path', 'status']);
    const throwing = createDirectoryHandler({
      keys: [ed.privateJwk],
      now: clock(T0).now,
      onRequest: () => {
        throw new Error('log sink down');
      },
    });
    expect((await throwing(get('bot.example'))).status).toBe(200);
  });
});

describe('signature lifetime and caching (NOTES "Directory response signatures")', () => {
  it('max-age never outlives the signatures, over any clock walk (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 600 }),
        fc.integer({ min: 0, max: 900 }),
        fc.array(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 12 }),
        async (maxAge, extra, steps) => {
          const c = clock(T0);
          const validity = maxAge + extra + (maxAge + extra === 0 ? 1 : 0);
          const handler = createDirectoryHandler({ keys: [ed.privateJwk], now: c.now, maxAgeSeconds: maxAge, signatureValiditySeconds: validity });
          for (const step of steps) {
            c.advance(step);
            const res = await handler(get('bot.example'));
            const input = parseSignatureInput(res.headers.get('signature-input')!).get('binding')!;
            const created = (input.params.get('created') as { value: number }).value;
            const expires = (input.params.get('expires') as { value: number }).value;
            const nowS = c.now() / 1000;
            const age = maxAgeOf(res);
            expect(created).toBeLessThanOrEqual(nowS);
            expect(age).toBeLessThanOrEqual(expires - nowS);
            expect(age).toBeLessThanOrEqual(maxAge);
            expect(age, 'full max-age while the cached signature has that much left').toBe(maxAge);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('signs once per authority and validity window, then re-signs (bounded authority cache)', async () => {
    const c = clock(T0);
    const key = counting(await importSigningKey(ed.privateJwk));
    const handler = createDirectoryHandler({ keys: [key], now: c.now, maxAgeSeconds: 300, signatureValiditySeconds: 1000, maxCachedAuthorities: 2 });
    await Promise.all(Array.from({ length: 50 }, () => handler(get('a.example'))));
    expect(key.calls(), 'concurrent requests for one authority share one signature').toBe(1);
    c.advance(700); // 300 left of 1000: still a full max-age
    await handler(get('a.example'));
    expect(key.calls()).toBe(1);
    c.advance(1); // 299 left: re-sign
    const res = await handler(get('a.example'));
    expect(key.calls()).toBe(2);
    expect(parseSignatureInput(res.headers.get('signature-input')!).get('binding')!.params.get('created')).toEqual({ type: 'integer', value: T0 + 701 });
    await handler(get('b.example'));
    expect(key.calls(), 'another authority, another signature').toBe(3);
    await handler(get('c.example')); // evicts a.example (least recently used)
    await handler(get('b.example'));
    expect(key.calls()).toBe(4);
    await handler(get('a.example'));
    expect(key.calls(), 'a.example was evicted').toBe(5);
  });

  it('re-signs when the clock goes back before created', async () => {
    const c = clock(T0);
    const key = counting(await importSigningKey(ed.privateJwk));
    const handler = createDirectoryHandler({ keys: [key], now: c.now });
    await handler(get('a.example'));
    c.advance(-10);
    const res = await handler(get('a.example'));
    expect(key.calls()).toBe(2);
    expect(parseSignatureInput(res.headers.get('signature-input')!).get('binding')!.params.get('created')).toEqual({ type: 'integer', value: T0 - 10 });
  });

  it('a key leaves the directory at its exp, and max-age never reaches past that (SPEC 2.2 rule 4)', async () => {
    const c = clock(T0);
    const handler = createDirectoryHandler({ keys: [{ key: ed.privateJwk, exp: T0 + 100 }, ec.privateJwk], now: c.now });
    const before = await handler(get('bot.example'));
    expect(maxAgeOf(before)).toBe(100);
    expect(((await before.json()) as { keys: Jwk[] }).keys).toHaveLength(2);
    c.advance(100);
    const after = await handler(get('bot.example'));
    expect(maxAgeOf(after)).toBe(300);
    const doc = (await after.json()) as { keys: Jwk[] };
    expect(doc.keys.map((k) => k.kid)).toEqual([ec.thumbprint]);
    expect(await verifyAll(after, get('bot.example'))).toEqual([ec.thumbprint]);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  it('an empty key set is served unsigned', async () => {
    const handler = createDirectoryHandler({ keys: [], now: clock(T0).now });
    const res = await handler(get('bot.example'));
    expect(await res.text()).toBe('{"keys":[]}');
    expect(res.headers.get('signature')).toBeNull();
  });
});

describe('option checks', () => {
  it('rejects malformed options with TypeError', () => {
    const bad: Array<Partial<DirectoryHandlerOptions>> = [
      { maxAgeSeconds: -1 },
      { maxAgeSeconds: 1.5 },
      { maxAgeSeconds: 600, signatureValiditySeconds: 599 },
      { path: 'no-slash' },
      { label: 'Binding' },
      { authorities: ['host/path'] },
      // An empty list would refuse every request (421): a mistake, said at creation.
      { authorities: [] },
      { authorities: 'bot.example' as unknown as string[] },
      { label: 'a'.repeat(65) },
      { maxCachedAuthorities: 0 },
    ];
    for (const b of bad) expect(() => createDirectoryHandler({ keys: [ed.privateJwk], ...b } as DirectoryHandlerOptions), JSON.stringify(b)).toThrow(TypeError);
    // The message names the option as the caller wrote it.
    expect(() => createDirectoryHandler({ keys: [ed.privateJwk], maxAgeSeconds: -1 })).toThrow(new TypeError('options.maxAgeSeconds must be an integer >= 0'));
    expect(() => createDirectoryHandler({ keys: [ed.privateJwk], label: 'B' })).toThrow(
      new TypeError('options.label must be a Structured Field key (e.g. "binding")'),
    );
    // The longest label allowed, and two authorities in both schemes, are accepted.
    expect(() => createDirectoryHandler({ keys: [ed.privateJwk], label: 'a'.repeat(64), authorities: ['bot.example', 'bot.example:8443'] })).not.toThrow();
    expect(() => createDirectoryHandler({ keys: 'x' } as unknown as DirectoryHandlerOptions)).toThrow(TypeError);
    expect(() => createDirectoryHandler({ keys: [{ key: ed.privateJwk, exp: 1.5 }] })).toThrow(TypeError);
  });

  it('a public-only JWK cannot sign: the handler rejects with ERR_KEY_INVALID', async () => {
    const handler = createDirectoryHandler({ keys: [ed.publicJwk], now: clock(T0).now });
    await expect(handler(get('bot.example'))).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
  });
});

// A minimal node:http adapter: IncomingMessage → Request → handler → ServerResponse.
function nodeAdapter(handler: (r: Request) => Promise<Response>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const request = new Request('http://' + (req.headers.host ?? 'localhost') + (req.url ?? '/'), { method: req.method ?? 'GET', headers });
    handler(request).then(
      async (response) => {
        res.statusCode = response.status;
        response.headers.forEach((value, name) => res.setHeader(name, value));
        res.end(response.body === null ? undefined : new Uint8Array(await response.arrayBuffer()));
      },
      () => {
        res.statusCode = 500;
        res.end();
      },
    );
  };
}

describe('served on a real loopback node:http server', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const handler = createDirectoryHandler({ keys: [ed.privateJwk, ec.privateJwk] });
    server = createServer(nodeAdapter(handler));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = 'http://127.0.0.1:' + String((server.address() as AddressInfo).port);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('GET with fetch: body, digest and both signatures verify against the request authority', async () => {
    const res = await fetch(base + WK, { headers: { accept: MEDIA } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(MEDIA);
    const bytes = new Uint8Array(await res.arrayBuffer());
    await verifyContentDigest(res.headers.get('content-digest')!, bytes, { require: ['sha-256'] });
    expect(await verifyAll(res, { url: base + WK })).toEqual([ed.thumbprint, ec.thumbprint]);
    const again = await fetch(base + WK, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect((await fetch(base + '/other')).status).toBe(404);
    expect((await fetch(base + WK, { method: 'PUT', body: 'x' })).status).toBe(405);
  });
});
