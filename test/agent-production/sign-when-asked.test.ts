/**
 * Signing only where asked: the memory of origins that asked (bounded in count and
 * time) and the test for a response that asks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, verifyRequest, MemoryNonceStore } from '../../src/index';
import type { Jwk } from '../../src/index';
import { createSignedFetch } from '../../src/fetch';
import { AskedOrigins, asksForSignature, checkSignWhen, originOf } from '../../src/adapters/sign-when-asked';
import { startLoopbackServer, type LoopbackServer } from '../helpers/loopback';

describe('AskedOrigins', () => {
  it('remembers an origin for rememberSeconds, then forgets it', () => {
    let now = 1_000_000;
    const asked = new AskedOrigins({ rememberSeconds: 60 }, () => now);
    expect(asked.has('https://a.example')).toBe(false);
    asked.remember('https://a.example');
    expect(asked.has('https://a.example')).toBe(true);
    now += 59_999;
    expect(asked.has('https://a.example')).toBe(true);
    now += 1;
    expect(asked.has('https://a.example')).toBe(false);
    expect(asked.size).toBe(0);
    asked.remember('https://a.example');
    now += 30_000;
    asked.remember('https://a.example'); // asked again: the deadline moves
    now += 45_000;
    expect(asked.has('https://a.example')).toBe(true);
  });

  it('keeps at most maxOrigins, forgetting the least recently asked', () => {
    const asked = new AskedOrigins({ maxOrigins: 3 }, () => 0);
    for (let i = 0; i < 1000; i++) asked.remember(`https://h${i}.example`);
    expect(asked.size).toBe(3);
    expect(asked.has('https://h999.example')).toBe(true);
    expect(asked.has('https://h996.example')).toBe(false);
  });

  it('refuses malformed options', () => {
    expect(() => new AskedOrigins({ maxOrigins: 0 })).toThrow(RangeError);
    expect(() => new AskedOrigins({ rememberSeconds: 1.5 })).toThrow(RangeError);
    expect(() => new AskedOrigins(null as never)).toThrow(TypeError);
    expect(checkSignWhen(undefined)).toBe('always');
    expect(checkSignWhen('asked')).toBe('asked');
    expect(() => checkSignWhen('sometimes')).toThrow(TypeError);
  });
});

describe('asksForSignature', () => {
  const h = (fields: Record<string, string>) => (name: string) => fields[name] ?? null;
  it('is true for 401, 403 and 429 (without a real Retry-After) that carry Accept-Signature', () => {
    const accept = { 'accept-signature': 'sig1=("@authority");tag="web-bot-auth"' };
    for (const status of [401, 403, 429]) expect(asksForSignature(status, h(accept)), String(status)).toBe(true);
    expect(asksForSignature(429, h({ ...accept, 'retry-after': '0' }))).toBe(true);
    expect(asksForSignature(429, h({ ...accept, 'retry-after': '30' }))).toBe(false);
    for (const status of [200, 302, 400, 404, 500]) expect(asksForSignature(status, h(accept)), String(status)).toBe(false);
    expect(asksForSignature(401, h({}))).toBe(false);
    expect(asksForSignature(401, h({ 'accept-signature': '  ' }))).toBe(false);
  });
  it('originOf', () => {
    expect(originOf('https://a.example:8443/x?y')).toBe('https://a.example:8443');
    expect(originOf('not a url')).toBeUndefined();
  });
});

describe("createSignedFetch({ signWhen: 'asked' }) against loopback origins", () => {
  interface Hit {
    readonly signed: boolean;
    readonly outcome: string;
    readonly body: string;
  }
  let publicJwk: Jwk;
  let privateJwk: Jwk;
  const servers: LoopbackServer[] = [];
  beforeAll(async () => {
    ({ publicJwk, privateJwk } = await generateKeyPair('ed25519'));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  /** An origin that asks unsigned requests for a signature (`ask`), and verifies signed ones. */
  async function origin(ask: { status: number; retryAfter?: string } | undefined, now?: () => number): Promise<LoopbackServer & { hits: Hit[] }> {
    const hits: Hit[] = [];
    const store = new MemoryNonceStore();
    const server = await startLoopbackServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const signed = req.headers['signature'] !== undefined;
      const result = await verifyRequest(
        { method: req.method ?? 'GET', url: `http://${req.headers.host ?? ''}${req.url ?? '/'}`, headers: req.headers },
        { keys: [publicJwk], allowInsecure: true, nonce: { policy: 'required', store }, ...(now === undefined ? {} : { now }) },
      );
      hits.push({ signed, outcome: result.outcome, body: Buffer.concat(chunks).toString('utf8') });
      if (!signed && ask !== undefined) {
        res.writeHead(ask.status, {
          'accept-signature': 'sig1=("@authority");tag="web-bot-auth"',
          ...(ask.retryAfter === undefined ? {} : { 'retry-after': ask.retryAfter }),
        });
        return void res.end('sign please');
      }
      res.writeHead(signed && result.outcome !== 'verified' ? 403 : 200);
      res.end(result.outcome);
    });
    servers.push(server);
    return Object.assign(server, { hits });
  }

  it('sends unsigned until an origin asks (401), answers once, then signs that origin from the start; other origins never see a signature', async () => {
    let now = Date.now();
    const asking = await origin({ status: 401 }, () => now);
    const quiet = await origin(undefined, () => now);
    const signedFetch = createSignedFetch({
      key: privateJwk,
      signatureAgent: 'https://agent.example',
      signWhen: 'asked',
      askedOrigins: { rememberSeconds: 600 },
      now: () => now,
    });

    const first = await signedFetch(asking.origin + '/a');
    expect([first.status, await first.text()]).toEqual([200, 'verified']);
    expect(asking.hits.map((h) => h.signed)).toEqual([false, true]);
    const second = await signedFetch(asking.origin + '/b');
    expect([second.status, await second.text()]).toEqual([200, 'verified']);
    expect(asking.hits.map((h) => h.signed)).toEqual([false, true, true]);

    for (let i = 0; i < 3; i++) expect((await signedFetch(quiet.origin + '/')).status).toBe(200);
    expect(quiet.hits.map((h) => h.signed)).toEqual([false, false, false]);

    // Past rememberSeconds the origin is unsigned again until it asks again.
    now += 600_000;
    expect((await signedFetch(asking.origin + '/c')).status).toBe(200);
    expect(asking.hits.map((h) => h.signed)).toEqual([false, true, true, false, true]);
  });

  it('answers 403 and 429 (Retry-After: 0) challenges with the body sent again; leaves a real rate limit alone', async () => {
    for (const ask of [{ status: 403 }, { status: 429, retryAfter: '0' }]) {
      const o = await origin(ask);
      const signedFetch = createSignedFetch({ key: privateJwk, signatureAgent: 'https://agent.example', signWhen: 'asked' });
      const r = await signedFetch(o.origin + '/submit', { method: 'POST', body: 'payload' });
      expect([r.status, await r.text()], String(ask.status)).toEqual([200, 'verified']);
      expect(o.hits.map((h) => [h.signed, h.body])).toEqual([
        [false, 'payload'],
        [true, 'payload'],
      ]);
    }
    const limited = await origin({ status: 429, retryAfter: '30' });
    const signedFetch = createSignedFetch({ key: privateJwk, signatureAgent: 'https://agent.example', signWhen: 'asked' });
    const r = await signedFetch(limited.origin + '/');
    expect(r.status).toBe(429);
    expect(await r.text()).toBe('sign please');
    expect(limited.hits.map((h) => h.signed)).toEqual([false]);
    // Not remembered either: the next request is unsigned again.
    await signedFetch(limited.origin + '/');
    expect(limited.hits.map((h) => h.signed)).toEqual([false, false]);
  });

  it('with retryOnChallenge: false nothing is sent twice: the challenge is returned, and the origin is signed for from its next request', async () => {
    const o = await origin({ status: 401 });
    const signedFetch = createSignedFetch({ key: privateJwk, signatureAgent: 'https://agent.example', signWhen: 'asked', retryOnChallenge: false });
    const r = await signedFetch(o.origin + '/order', { method: 'POST', body: 'buy=1' });
    expect([r.status, await r.text()]).toEqual([401, 'sign please']);
    expect(o.hits.map((h) => [h.signed, h.body])).toEqual([[false, 'buy=1']]);
    expect(await (await signedFetch(o.origin + '/next')).text()).toBe('verified');
  });

  it("signWhen: 'always' (the default) signs the first request", async () => {
    const o = await origin({ status: 401 });
    await createSignedFetch({ key: privateJwk, signatureAgent: 'https://agent.example' })(o.origin + '/');
    expect(o.hits.map((h) => h.signed)).toEqual([true]);
    expect(() => createSignedFetch({ key: privateJwk, signatureAgent: 'https://agent.example', signWhen: 'never' as never })).toThrow(TypeError);
  });
});
