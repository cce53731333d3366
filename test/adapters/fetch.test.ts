/**
 * botsig/fetch against real origins on 127.0.0.1 that verify every request with
 * verifyRequest (static keys; allowInsecure because loopback is plain HTTP).
 * NETWORK RULE: every URL in this file is a loopback server started here.
 */
import type { IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSignedFetch } from '../../src/fetch';
import type { SignedFetchOptions } from '../../src/fetch';
import { generateKeyPair, createChallenge, verifyRequest, MemoryNonceStore } from '../../src/index';
import type { Jwk, VerificationResult, VerifyRequestOptions } from '../../src/index';
import { closeAllLoopbackServers, startLoopbackServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';

const AGENT = 'https://crawler.example';
/** What the agent's origin is sent as (draft -01: its well-known directory URL). */
const AGENT_SENT = `${AGENT}/.well-known/http-message-signatures-directory`;
let privateJwk: Jwk;
let publicJwk: Jwk;
let otherThumbprint: string;

beforeAll(async () => {
  ({ privateJwk, publicJwk } = await generateKeyPair('ed25519'));
  ({ thumbprint: otherThumbprint } = await generateKeyPair('ed25519'));
});
afterEach(closeAllLoopbackServers);
afterAll(closeAllLoopbackServers);

/** What an origin saw: the verdict on each request, in order, with its body. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly body: string;
  readonly headers: IncomingMessage['headers'];
  readonly result: VerificationResult;
}

type Reply = (seen: Seen, index: number) => { status: number; headers?: Record<string, string>; body?: string };

/** An origin that verifies each request (one nonce store per origin, as a real one would) and answers with `reply`. */
async function verifyingOrigin(reply: Reply, extra: Partial<VerifyRequestOptions> = {}): Promise<LoopbackServer & { seen: Seen[] }> {
  const seen: Seen[] = [];
  const options: VerifyRequestOptions = { keys: [publicJwk], allowInsecure: true, nonce: { store: new MemoryNonceStore() }, ...extra };
  const server = await startLoopbackServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const result = await verifyRequest(
      { method: req.method ?? 'GET', url: `http://${req.headers.host ?? ''}${req.url ?? '/'}`, headers: req.headers },
      options,
    );
    const entry: Seen = { method: req.method ?? 'GET', path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, result };
    seen.push(entry);
    const answer = reply(entry, seen.length - 1);
    res.writeHead(answer.status, answer.headers ?? {});
    res.end(answer.body ?? '');
  });
  return Object.assign(server, { seen });
}

const ok: Reply = () => ({ status: 200, body: 'ok' });

function options(extra: Partial<SignedFetchOptions> = {}): SignedFetchOptions {
  return { key: privateJwk, signatureAgent: AGENT, ...extra };
}

function nonceOf(seen: Seen): string | undefined {
  return seen.result.signatures[0]?.params.nonce;
}

describe('createSignedFetch: every request signed (SPEC 5.1)', () => {
  it('signs GET and POST with @authority and the Signature-Agent member; the origin verifies both', async () => {
    const origin = await verifyingOrigin(ok);
    const signedFetch = createSignedFetch(options());
    const get = await signedFetch(`${origin.origin}/page?q=1`);
    expect(get.status).toBe(200);
    expect(await get.text()).toBe('ok');
    const post = await signedFetch(new URL('/form', origin.origin), {
      method: 'POST',
      body: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(post.status).toBe(200);
    await post.arrayBuffer();

    expect(origin.seen).toHaveLength(2);
    for (const seen of origin.seen) {
      expect(seen.result.outcome, `${seen.method} ${seen.path}: ${JSON.stringify(seen.result.error)}`).toBe('verified');
      const sig = seen.result.signatures[0]!;
      expect(sig.covered).toEqual(['"@authority"', '"signature-agent";key="sig1"']);
      expect(sig.tag).toBe('web-bot-auth');
      expect(sig.signatureAgent?.url).toBe(AGENT_SENT);
      expect(seen.headers['signature-agent']).toBe(`sig1="${AGENT_SENT}"`);
    }
    expect(origin.seen[1]!.body).toBe('a=1');
    expect(nonceOf(origin.seen[0]!)).not.toBe(nonceOf(origin.seen[1]!));
  });

  it('gives each request a fresh signature: twenty concurrent calls carry twenty nonces and all verify (no replay)', async () => {
    const origin = await verifyingOrigin(ok);
    const signedFetch = createSignedFetch(options());
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => signedFetch(`${origin.origin}/n/${i}`)));
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(origin.seen.map((s) => s.result.outcome)).toEqual(Array(20).fill('verified'));
    expect(new Set(origin.seen.map(nonceOf)).size).toBe(20);
  });

  it('covers extra components (@method, @path) when asked', async () => {
    const origin = await verifyingOrigin(ok, { requiredComponents: ['@method', '@path'] });
    const signedFetch = createSignedFetch(options({ components: ['@method', '@path'] }));
    await (await signedFetch(`${origin.origin}/x`, { method: 'DELETE' })).arrayBuffer();
    expect(origin.seen[0]!.result.outcome).toBe('verified');
    expect(origin.seen[0]!.result.signatures[0]!.covered).toEqual(['"@authority"', '"signature-agent";key="sig1"', '"@method"', '"@path"']);
  });

  it('accepts a Request object as input, with its method, headers and body', async () => {
    const origin = await verifyingOrigin(ok);
    const signedFetch = createSignedFetch(options());
    const request = new Request(`${origin.origin}/r`, { method: 'PUT', body: 'payload', headers: { 'x-custom': 'yes' } });
    await (await signedFetch(request)).arrayBuffer();
    const seen = origin.seen[0]!;
    expect(seen.method).toBe('PUT');
    expect(seen.body).toBe('payload');
    expect(seen.headers['x-custom']).toBe('yes');
    expect(seen.result.outcome).toBe('verified');
  });

  it('is assignable to typeof fetch and uses an injected fetch', async () => {
    const origin = await verifyingOrigin(ok);
    let calls = 0;
    const injected = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      calls++;
      return fetch(input, init);
    };
    const signedFetch: typeof fetch = createSignedFetch(options({ fetch: injected }));
    await (await signedFetch(`${origin.origin}/`)).arrayBuffer();
    expect(calls).toBe(1);
    expect(origin.seen[0]!.result.outcome).toBe('verified');
  });

  it('rejects every call with ERR_KEY_INVALID when the key cannot be imported, and sends nothing', async () => {
    const origin = await verifyingOrigin(ok);
    const signedFetch = createSignedFetch(options({ key: { kty: 'OKP', crv: 'Ed25519', x: 'AAAA', d: 'AAAA' } }));
    await expect(signedFetch(`${origin.origin}/`)).rejects.toMatchObject({ name: 'BotsigError', code: 'ERR_KEY_INVALID' });
    await expect(signedFetch(`${origin.origin}/`)).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
    expect(origin.count()).toBe(0);
  });

  it('checks its options up front', () => {
    expect(() => createSignedFetch(undefined as unknown as SignedFetchOptions)).toThrow(TypeError);
    expect(() => createSignedFetch({} as SignedFetchOptions)).toThrow(TypeError);
    expect(() => createSignedFetch(options({ maxRedirects: -1 }))).toThrow(RangeError);
    expect(() => createSignedFetch(options({ maxReplayBodyBytes: 1.5 }))).toThrow(RangeError);
    expect(() => createSignedFetch(options({ validitySeconds: 0 }))).toThrow(RangeError);
    expect(() => createSignedFetch(options({ fetch: 'no' as unknown as typeof fetch }))).toThrow(TypeError);
    expect(() => createSignedFetch(options({ components: ['bad name'] }))).toThrow(expect.objectContaining({ code: 'ERR_COMPONENT_INVALID' }));
    // Draft -01: every signed request carries Signature-Agent, so the helper needs one from the start.
    expect(() => createSignedFetch({ key: privateJwk } as SignedFetchOptions)).toThrow(/options\.signatureAgent is required/);
    expect(() => createSignedFetch(options({ signatureAgent: 'ftp://crawler.example/keys' }))).toThrow(
      expect.objectContaining({ code: 'ERR_SIGNATURE_AGENT_INVALID' }),
    );
    expect(() => createSignedFetch(options({ signatureAgent: { url: AGENT, type: 'cimd' } }))).toThrow(TypeError);
  });

  it('honours an aborted signal without sending anything', async () => {
    const origin = await verifyingOrigin(ok);
    const signedFetch = createSignedFetch(options());
    await expect(signedFetch(`${origin.origin}/`, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(origin.count()).toBe(0);
  });
});

describe('createSignedFetch: redirects, each hop signed for its own authority (RFC 9421 §2.2.3 @authority; Fetch §4.4)', () => {
  it('follows 302 → 307 → 200 across two loopback origins (different ports, so different @authority), verifying every hop', async () => {
    let b!: LoopbackServer & { seen: Seen[] };
    const a = await verifyingOrigin((seen) => {
      if (seen.path === '/start') return { status: 302, headers: { location: `${b.origin}/hop` } };
      return { status: 200, body: `end:${seen.method}:${seen.body}` };
    });
    b = await verifyingOrigin(() => ({ status: 307, headers: { location: `${a.origin}/end` } }));
    const signedFetch = createSignedFetch(options());
    const response = await signedFetch(`${a.origin}/start`, { method: 'PUT', body: 'kept' });

    expect(response.status).toBe(200);
    expect(response.redirected).toBe(true);
    expect(response.url).toBe(`${a.origin}/end`);
    // 302 keeps PUT and its body (only POST becomes GET); 307 keeps both.
    expect(await response.text()).toBe('end:PUT:kept');
    const hops = [a.seen[0]!, b.seen[0]!, a.seen[1]!];
    expect(hops.map((h) => `${h.method} ${h.path}`)).toEqual(['PUT /start', 'PUT /hop', 'PUT /end']);
    for (const hop of hops) {
      expect(hop.result.outcome, `${hop.path}: ${JSON.stringify(hop.result.error)}`).toBe('verified');
      // The previous hop's signature is gone: one signature, one Signature-Agent member.
      expect(hop.result.signatures.map((s) => s.label)).toEqual(['sig1']);
      expect(hop.headers['signature-agent']).toBe(`sig1="${AGENT_SENT}"`);
    }
    expect(new Set(hops.map(nonceOf)).size).toBe(3);
  });

  it('turns POST into GET without body and body headers on 303 and 301, and re-signs', async () => {
    const origin = await verifyingOrigin((seen) => {
      if (seen.path === '/see-other') return { status: 303, headers: { location: '/moved' } };
      if (seen.path === '/moved') return { status: 301, headers: { location: '/final' } };
      return { status: 200, body: seen.method };
    });
    const signedFetch = createSignedFetch(options());
    const response = await signedFetch(`${origin.origin}/see-other`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
    expect(await response.text()).toBe('GET');
    expect(origin.seen.map((s) => `${s.method} ${s.path} ${s.body.length}`)).toEqual(['POST /see-other 7', 'GET /moved 0', 'GET /final 0']);
    expect(origin.seen[1]!.headers['content-type']).toBeUndefined();
    expect(origin.seen.every((s) => s.result.outcome === 'verified')).toBe(true);
  });

  it('drops Authorization and Cookie on a redirect to another origin, keeps them on the same origin', async () => {
    let b!: LoopbackServer & { seen: Seen[] };
    const a = await verifyingOrigin((seen) =>
      seen.path === '/same' ? { status: 302, headers: { location: '/cross' } } : { status: 302, headers: { location: `${b.origin}/other` } },
    );
    b = await verifyingOrigin(ok);
    const signedFetch = createSignedFetch(options());
    await (await signedFetch(`${a.origin}/same`, { headers: { authorization: 'Bearer t', cookie: 'c=1' } })).arrayBuffer();
    expect(a.seen[1]!.headers.authorization).toBe('Bearer t');
    expect(b.seen[0]!.headers.authorization).toBeUndefined();
    expect(b.seen[0]!.headers.cookie).toBeUndefined();
    expect(b.seen[0]!.result.outcome).toBe('verified');
  });

  it("returns the 3xx for redirect: 'manual' and rejects for redirect: 'error'", async () => {
    const origin = await verifyingOrigin(() => ({ status: 302, headers: { location: '/elsewhere' } }));
    const signedFetch = createSignedFetch(options());
    const manual = await signedFetch(`${origin.origin}/`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('/elsewhere');
    expect(manual.redirected).toBe(false);
    await expect(signedFetch(`${origin.origin}/`, { redirect: 'error' })).rejects.toThrow(TypeError);
    expect(origin.count()).toBe(2);
  });

  it('stops a redirect loop after maxRedirects hops with a TypeError (bounded: maxRedirects + 1 requests)', async () => {
    const origin = await verifyingOrigin((seen, i) => ({ status: 302, headers: { location: `/loop/${i + 1}` } }));
    const signedFetch = createSignedFetch(options({ maxRedirects: 3 }));
    await expect(signedFetch(`${origin.origin}/loop/0`)).rejects.toThrow(/more than 3 redirects/);
    expect(origin.count()).toBe(4);
    expect(origin.seen.every((s) => s.result.outcome === 'verified')).toBe(true);
  });

  it('sends the http hops of a chain that reached https unsigned, even when they ask for a signature (@authority names no scheme)', async () => {
    // An injected fetch: the https origin is not served here; the chain goes https → http → http.
    const sent: Array<[string, boolean]> = [];
    const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const href = typeof url === 'string' ? url : url instanceof URL ? url.href : url.url;
      sent.push([href, new Headers(init?.headers).has('signature')]);
      if (href === 'https://shop.example/') return new Response(null, { status: 302, headers: { location: 'http://shop.example/plain' } });
      if (href === 'http://shop.example/plain')
        return new Response('sign please', { status: 401, headers: { 'accept-signature': 'sig1=("@authority");tag="web-bot-auth"' } });
      return new Response('?', { status: 404 });
    };
    for (const signWhen of ['always', 'asked'] as const) {
      sent.length = 0;
      const response = await createSignedFetch(options({ fetch: fetch as typeof globalThis.fetch, signWhen }))('https://shop.example/');
      expect(response.status).toBe(401);
      expect(sent, signWhen).toEqual([
        ['https://shop.example/', signWhen === 'always'],
        ['http://shop.example/plain', false],
      ]);
    }
    // A chain that is http from the start is signed as the caller asked.
    sent.length = 0;
    await createSignedFetch(options({ fetch: fetch as typeof globalThis.fetch }))('http://shop.example/plain');
    expect(sent[0]).toEqual(['http://shop.example/plain', true]);
  });

  it('refuses a redirect to a non-HTTP scheme', async () => {
    const origin = await verifyingOrigin(() => ({ status: 302, headers: { location: 'file:///etc/passwd' } }));
    await expect(createSignedFetch(options())(`${origin.origin}/`)).rejects.toThrow(/non-HTTP/);
  });
});

describe('createSignedFetch: Accept-Signature challenges (RFC 9421 §5.1, SPEC 4.3 and 7)', () => {
  it('403 with an origin nonce and extra components: signs again as asked and retries once; the nonce is checked', async () => {
    const issued: string[] = [];
    const origin = await verifyingOrigin((seen) => {
      const sig = seen.result.signatures[0];
      const answered = seen.result.outcome === 'verified' && sig !== undefined && sig.params.nonce === issued.at(-1) && sig.covered.includes('"@method"');
      if (answered) return { status: 200, body: 'welcome' };
      const nonce = `origin-nonce-${issued.length}`;
      issued.push(nonce);
      const challenge = createChallenge({ ...seen.result, outcome: 'unverified', signatures: [] }, { nonce, components: ['@authority', '@method'] })!;
      return { status: challenge.status, headers: challenge.headers, body: challenge.reason };
    });
    const signedFetch = createSignedFetch(options());
    const response = await signedFetch(`${origin.origin}/guarded`, { method: 'POST', body: 'again' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('welcome');
    expect(origin.count()).toBe(2);
    const retry = origin.seen[1]!;
    expect(retry.result.outcome).toBe('verified');
    expect(retry.result.signatures[0]!.params.nonce).toBe('origin-nonce-0');
    expect(retry.result.signatures[0]!.covered).toContain('"@method"');
    expect(retry.body).toBe('again');
  });

  it('429 after a replay: a fresh signature (fresh nonce) is sent and verifies', async () => {
    const origin = await verifyingOrigin((seen) => {
      const challenge = createChallenge(seen.result);
      return challenge === undefined ? { status: 200, body: 'ok' } : { status: challenge.status, headers: challenge.headers };
    });
    // A replaying middlebox: the first request goes out twice, so the origin sees the second copy as a replay.
    let replayed = false;
    const replaying = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      if (!replayed) {
        replayed = true;
        await (await fetch(input, init)).arrayBuffer();
      }
      return fetch(input, init);
    };
    const response = await createSignedFetch(options({ fetch: replaying }))(`${origin.origin}/`);
    expect(response.status).toBe(200);
    expect(origin.seen.map((s) => s.result.outcome)).toEqual(['verified', 'invalid', 'verified']);
    expect(origin.seen[1]!.result.signatures[0]!.error?.code).toBe('ERR_NONCE_REPLAYED');
    expect(nonceOf(origin.seen[2]!)).not.toBe(nonceOf(origin.seen[0]!));
  });

  it('retries at most once: an origin that always answers 403 sees exactly two requests', async () => {
    const origin = await verifyingOrigin(() => ({ status: 403, headers: { 'accept-signature': 'sig1=("@authority");tag="web-bot-auth";created;expires' } }));
    const response = await createSignedFetch(options())(`${origin.origin}/`);
    expect(response.status).toBe(403);
    expect(origin.count()).toBe(2);
  });

  it('answers the challenge of each redirect hop once, then follows on', async () => {
    let b!: LoopbackServer & { seen: Seen[] };
    const a = await verifyingOrigin((_, i) =>
      i === 0
        ? { status: 403, headers: { 'accept-signature': 'sig1=("@authority");tag="web-bot-auth"' } }
        : { status: 302, headers: { location: `${b.origin}/` } },
    );
    b = await verifyingOrigin((_, i) =>
      i === 0 ? { status: 403, headers: { 'accept-signature': 'sig1=("@authority");tag="web-bot-auth"' } } : { status: 200 },
    );
    const response = await createSignedFetch(options())(`${a.origin}/`);
    expect(response.status).toBe(200);
    expect([a.count(), b.count()]).toEqual([2, 2]);
    expect([...a.seen, ...b.seen].every((s) => s.result.outcome === 'verified')).toBe(true);
  });

  it('does not retry when the challenge names another key, is malformed, or is a rate limit with Retry-After', async () => {
    const answers = [
      { status: 403, headers: { 'accept-signature': `sig1=("@authority");keyid="${otherThumbprint}";tag="web-bot-auth"` } },
      { status: 403, headers: { 'accept-signature': 'sig1=(' } },
      { status: 429, headers: { 'accept-signature': 'sig1=("@authority");tag="web-bot-auth"', 'retry-after': '120' } },
      { status: 403 },
    ];
    for (const answer of answers) {
      const origin = await verifyingOrigin(() => answer);
      const response = await createSignedFetch(options())(`${origin.origin}/`);
      expect(response.status, JSON.stringify(answer)).toBe(answer.status);
      expect(origin.count(), JSON.stringify(answer)).toBe(1);
    }
  });

  it('does not retry when the challenge asks for a component the request lacks (content-digest); the caller sees the 403', async () => {
    const origin = await verifyingOrigin(() => ({ status: 403, headers: { 'accept-signature': 'sig1=("@authority" "content-digest");tag="web-bot-auth"' } }));
    const response = await createSignedFetch(options())(`${origin.origin}/`);
    expect(response.status).toBe(403);
    expect(origin.count()).toBe(1);
  });

  it('returns the challenge, without a retry, when what it asks cannot be signed (an empty nonce)', async () => {
    const origin = await verifyingOrigin(() => ({ status: 403, headers: { 'accept-signature': 'sig1=("@authority");nonce="";tag="web-bot-auth"' } }));
    const response = await createSignedFetch(options())(`${origin.origin}/`);
    expect(response.status).toBe(403);
    expect(origin.count()).toBe(1);
  });

  it('with retryOnChallenge: false, returns the first 403', async () => {
    const origin = await verifyingOrigin(() => ({ status: 403, headers: { 'accept-signature': 'sig1=("@authority");tag="web-bot-auth"' } }));
    await createSignedFetch(options({ retryOnChallenge: false }))(`${origin.origin}/`);
    expect(origin.count()).toBe(1);
  });
});

describe('createSignedFetch: bodies larger than maxReplayBodyBytes are sent once', () => {
  it('streams the body intact, does not retry a challenge, and fails a 307 that would need it again', async () => {
    const body = 'x'.repeat(64);
    const challenged = await verifyingOrigin(() => ({ status: 403, headers: { 'accept-signature': 'sig1=("@authority");tag="web-bot-auth"' } }));
    const signedFetch = createSignedFetch(options({ maxReplayBodyBytes: 16 }));
    const response = await signedFetch(`${challenged.origin}/`, { method: 'POST', body });
    expect(response.status).toBe(403);
    expect(challenged.count()).toBe(1);
    expect(challenged.seen[0]!.body).toBe(body);
    expect(challenged.seen[0]!.result.outcome).toBe('verified');

    const redirecting = await verifyingOrigin(() => ({ status: 307, headers: { location: '/again' } }));
    await expect(signedFetch(`${redirecting.origin}/`, { method: 'POST', body })).rejects.toThrow(/too large to buffer/);
    expect(redirecting.count()).toBe(1);
  });

  it('a large body still follows a 303 (which drops it)', async () => {
    const origin = await verifyingOrigin((seen) => (seen.path === '/' ? { status: 303, headers: { location: '/done' } } : { status: 200 }));
    const response = await createSignedFetch(options({ maxReplayBodyBytes: 4 }))(`${origin.origin}/`, { method: 'POST', body: 'more than four bytes' });
    expect(response.status).toBe(200);
    expect(origin.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /', 'GET /done']);
  });
});
