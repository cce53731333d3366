/**
 * A key from a warm directory cache is found synchronously (issue 16): no fetch, no
 * `resolve` promise, no discovery deadline timer. Only a miss or a stale entry goes
 * through `resolve` within the request's budget. The directory client fetches through
 * a function that answers from memory (no network), and `setTimeout` is counted by
 * wrapping it for the duration of one call.
 */
import { describe, expect, it } from 'vitest';
import { parseSignatureAgent, applySignatureHeaders, signRequest, verifyRequest, MemoryNonceStore, createVerifier, fullSigning } from '../../src/index';
import type { SignatureAgentMember, DirectoryResolution, KeyDirectory, VerificationResult, VerifyRequestOptions } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { keyPair, otherKeyPair } from './helpers';

const JWKS_A = 'https://keys-a.example/jwks.json';
const JWKS_B = 'https://keys-b.example/jwks.json';

/** A clock the test moves. */
function clock() {
  const c = { t: Math.floor(Date.now() / 1000) * 1000, now: () => c.t };
  return c;
}

/** A directory client whose fetch answers JWK Sets from memory, counting calls. */
async function setup(maxAge = 600) {
  const c = clock();
  const a = await keyPair();
  const b = await otherKeyPair();
  const fetched: string[] = [];
  const sets: Record<string, object> = { [JWKS_A]: { keys: [a.publicJwk] }, [JWKS_B]: { keys: [b.publicJwk] } };
  const client = new DirectoryClient({
    now: c.now,
    fetch: async (url: string) => {
      fetched.push(url);
      const set = sets[url];
      if (set === undefined) return new Response('not found', { status: 404 });
      return new Response(JSON.stringify(set), {
        status: 200,
        headers: { 'content-type': 'application/jwk-set+json', 'cache-control': `max-age=${maxAge}`, date: new Date(c.t).toUTCString() },
      });
    },
  });
  const resolves: string[] = [];
  const resolve = client.resolve.bind(client);
  client.resolve = (member: SignatureAgentMember) => {
    resolves.push(member.url);
    return resolve(member);
  };
  return { c, a, b, client, fetched, resolves };
}

type Req = { method: string; url: string; headers: Record<string, string> };

async function signedFor(privateJwk: Parameters<typeof signRequest>[1]['key'], jwks: string, nowMs: number, label?: string, into?: Req): Promise<Req> {
  const req: Req = into ?? { method: 'GET', url: 'https://origin.example/page', headers: {} };
  const added = await signRequest(req, {
    extend: fullSigning,
    key: privateJwk,
    signatureAgent: { url: jwks, type: 'jwks_uri' },
    now: () => nowMs,
    ...(label === undefined ? {} : { label }),
  });
  applySignatureHeaders(req.headers, added);
  return req;
}

/** Runs `fn` with `setTimeout` counted. */
async function countingTimers<T>(fn: () => Promise<T>): Promise<{ value: T; timers: number }> {
  const original = globalThis.setTimeout;
  let timers = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    timers++;
    return original(...args);
  }) as typeof setTimeout;
  try {
    const value = await fn();
    return { value, timers };
  } finally {
    globalThis.setTimeout = original;
  }
}

function options(client: KeyDirectory, now: () => number, extra: Partial<VerifyRequestOptions> = {}): VerifyRequestOptions {
  return { directory: client, now, nonce: { policy: 'required', store: new MemoryNonceStore() }, ...extra };
}

describe('a warm directory answers synchronously', () => {
  it('the first request fetches under a deadline; once warm, no fetch, no resolve, no timer', async () => {
    const { c, a, client, fetched, resolves } = await setup();
    const o = options(client, c.now);
    // Requests are signed before the count starts: only verification is counted.
    const first = await signedFor(a.privateJwk, JWKS_A, c.t);
    const cold = await countingTimers(() => verifyRequest(first, o));
    expect(cold.value.outcome).toBe('verified');
    expect(fetched).toEqual([JWKS_A]);
    expect(resolves).toEqual([JWKS_A]);
    expect(cold.timers, 'the cold lookup runs under the discovery deadline').toBeGreaterThanOrEqual(1);

    // Warm: a new signature (a new nonce), the same options and client.
    const second = await signedFor(a.privateJwk, JWKS_A, c.t);
    const warm = await countingTimers(() => verifyRequest(second, o));
    expect(warm.value.outcome).toBe('verified');
    expect(warm.value.signatures[0]!.keySource).toBe('directory');
    expect(warm.value.agent).toBe(JWKS_A);
    expect(fetched, 'no second fetch').toEqual([JWKS_A]);
    expect(resolves, 'resolve() not called').toEqual([JWKS_A]);
    expect(warm.timers, 'no deadline timer').toBe(0);
  });

  it('a stale entry goes through resolve() again (and its deadline), and is fresh once more after', async () => {
    const { c, a, client, fetched, resolves } = await setup(60);
    const o = options(client, c.now);
    expect((await verifyRequest(await signedFor(a.privateJwk, JWKS_A, c.t), o)).outcome).toBe('verified');
    c.t += 120_000;
    const req = await signedFor(a.privateJwk, JWKS_A, c.t);
    const stale = await countingTimers(() => verifyRequest(req, o));
    expect(stale.value.outcome).toBe('verified');
    expect(resolves).toEqual([JWKS_A, JWKS_A]);
    expect(fetched).toEqual([JWKS_A, JWKS_A]);
    expect(stale.timers).toBeGreaterThanOrEqual(1);
    const again = await countingTimers(async () => verifyRequest(await signedFor(a.privateJwk, JWKS_A, c.t), o));
    expect(again.value.outcome).toBe('verified');
    expect(again.timers).toBe(0);
    expect(resolves).toHaveLength(2);
  });

  it('warm lookups count toward maxDirectories like any other', async () => {
    const { c, a, b, client } = await setup();
    const o = options(client, c.now);
    // Warm both directories.
    expect((await verifyRequest(await signedFor(a.privateJwk, JWKS_A, c.t), o)).outcome).toBe('verified');
    expect((await verifyRequest(await signedFor(b.privateJwk, JWKS_B, c.t), o)).outcome).toBe('verified');
    // One request, two signatures, two members: with a budget of one directory the second is refused.
    const req = await signedFor(a.privateJwk, JWKS_A, c.t, 'sig1');
    await signedFor(b.privateJwk, JWKS_B, c.t, 'sig2', req);
    const limited = options(client, c.now, { discovery: { maxDirectories: 1 } });
    const r = await verifyRequest(req, limited);
    expect(r.signatures.map((s) => s.outcome)).toEqual(['verified', 'unverified']);
    expect(r.signatures[1]!.error?.code).toBe('ERR_DISCOVERY_BUDGET');
    const both = await verifyRequest(req, options(client, c.now));
    expect(both.signatures.map((s) => s.outcome)).toEqual(['verified', 'verified']);
  });

  it('an unknown keyid in a warm directory is ERR_KEY_UNKNOWN without a fetch', async () => {
    const { c, a, b, client, fetched } = await setup();
    const o = options(client, c.now);
    expect((await verifyRequest(await signedFor(a.privateJwk, JWKS_A, c.t), o)).outcome).toBe('verified');
    // b's key, claimed to be in a's directory.
    const r = await verifyRequest(await signedFor(b.privateJwk, JWKS_A, c.t), o);
    expect(r.outcome).toBe('unverified');
    expect(r.signatures[0]!.error?.code).toBe('ERR_KEY_UNKNOWN');
    expect(fetched).toEqual([JWKS_A]);
  });

  it('a directory without resolveFresh, or one whose resolveFresh throws, is asked through resolve()', async () => {
    const { c, a, client } = await setup();
    const calls: string[] = [];
    const plain: KeyDirectory = {
      resolve: (m) => {
        calls.push('resolve');
        return client.resolve(m);
      },
    };
    const throwing: KeyDirectory = {
      resolve: plain.resolve,
      resolveFresh: (): DirectoryResolution | undefined => {
        calls.push('fresh');
        throw new Error('broken');
      },
    };
    for (const directory of [plain, throwing, plain]) {
      const r: VerificationResult = await verifyRequest(await signedFor(a.privateJwk, JWKS_A, c.t), options(directory, c.now));
      expect(r.outcome).toBe('verified');
    }
    expect(calls).toEqual(['resolve', 'fresh', 'resolve', 'resolve']);
  });
});

describe('a verifier built with directory options (its client loaded on first use)', () => {
  it('answers from its warm cache without a timer too', async () => {
    const c = clock();
    const a = await keyPair();
    const fetched: string[] = [];
    const verifier = createVerifier({
      now: c.now,
      authorities: ['origin.example'],
      nonce: { policy: 'required' },
      directory: {
        now: c.now,
        fetch: async (url: string) => {
          fetched.push(url);
          return new Response(JSON.stringify({ keys: [a.publicJwk] }), {
            status: 200,
            headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=600', date: new Date(c.t).toUTCString() },
          });
        },
      },
    });
    const first = await signedFor(a.privateJwk, JWKS_A, c.t);
    expect((await verifier.verify(first)).outcome).toBe('verified');
    const second = await signedFor(a.privateJwk, JWKS_A, c.t);
    const warm = await countingTimers(() => verifier.verify(second));
    expect(warm.value.outcome).toBe('verified');
    expect(fetched).toEqual([JWKS_A]);
    expect(warm.timers).toBe(0);
  });
});

describe('DirectoryClient.resolveFresh', () => {
  const jwksMember = (url: string) => parseSignatureAgent(`sig1="${url}"`).members[0]!;

  it('answers only while resolve() would answer from a fresh entry, never fetching', async () => {
    const { c, client, fetched } = await setup(60);
    const m = jwksMember(JWKS_A);
    expect(client.resolveFresh(m), 'nothing known yet').toBeUndefined();
    expect(fetched).toEqual([]);
    const resolved = await client.resolve(m);
    expect(client.resolveFresh(m)).toBe(resolved);
    c.t += 61_000;
    expect(client.resolveFresh(m), 'stale').toBeUndefined();
    expect(fetched).toEqual([JWKS_A]);
    expect(client.resolveFresh({ url: 'data:application/json,{}', type: 'jwks_uri', scheme: 'data', index: 0 })).toBeUndefined();
    expect(() => client.resolveFresh({ url: 1 } as never)).toThrow(TypeError);
  });

  it('a URL the client refuses is left to resolve(), which reports it', async () => {
    const { client } = await setup();
    const refused = jwksMember('https://127.0.0.1/jwks.json');
    await expect(client.resolve(refused)).rejects.toThrow();
    expect(client.resolveFresh(refused)).toBeUndefined();
  });
});
