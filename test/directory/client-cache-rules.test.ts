/**
 * What a DirectoryClient may answer from a cached copy (src/directory/client/state.ts):
 * a copy whose directory response signatures lapsed since it was fetched is refetched,
 * not answered from (its HTTP freshness says nothing of them); a copy whose response said
 * `must-revalidate` or `no-cache` is never used stale (RFC 9111 §4.2.4); and between two
 * signed copies the newer wins, also when the older comes through a shared cache.
 */
import { describe, expect, it } from 'vitest';
import { DirectoryClient, MemoryDirectoryCache } from '../../src/directory';
import type { DirectoryClientOptions } from '../../src/directory';
import { DIRECTORY_TYPE, jwks, member, signatureHeaders, TestClock, testKey, WELL_KNOWN } from './client-fixtures';
import type { TestKey } from './client-fixtures';

const ORIGIN = 'https://agent.example';
const DIR_URL = ORIGIN + WELL_KNOWN;

interface Served {
  status: number;
  keys: TestKey[];
  headers: Record<string, string>;
  sign?: (body: string) => Promise<Record<string, string>>;
}

/** The agent's directory as `served` says, at the clock's time (no network). */
function agent(clock: TestClock, served: Served) {
  const calls: string[] = [];
  const fetch = async (url: string): Promise<Response> => {
    calls.push(url);
    const body = jwks(...served.keys);
    const date = new Date(clock.t).toUTCString();
    if (served.status !== 200) return new Response(null, { status: served.status, headers: { date } });
    const signed = served.sign === undefined ? {} : await served.sign(body);
    return new Response(body, { status: 200, headers: { date, 'content-type': DIRECTORY_TYPE, ...served.headers, ...signed } });
  };
  return { fetch, calls };
}

const client = (clock: TestClock, fetch: (url: string) => Promise<Response>, extra: DirectoryClientOptions = {}): DirectoryClient =>
  new DirectoryClient({ now: clock.now, random: () => 1, fetch: fetch as never, ...extra });
const thumbprints = (keys: ReadonlyArray<{ thumbprint: string }>): string[] => keys.map((k) => k.thumbprint).sort();

describe('a cached copy whose directory response signatures lapsed is refetched', () => {
  /** Signed for 100 s, fresh by its headers for an hour. */
  const shortProof = (clock: TestClock, a: TestKey): Served => ({
    status: 200,
    keys: [a],
    headers: { 'cache-control': 'max-age=3600' },
    sign: (body) => signatureHeaders(body, DIR_URL, [a], clock, { expires: clock.seconds + 100 }),
  });

  it('when the URL is resolved again after its state went (forget, or eviction by other URLs)', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const { fetch, calls } = agent(clock, shortProof(clock, a));
    const c = client(clock, fetch, { requireProof: true });
    expect((await c.resolve(member(ORIGIN))).keys).toHaveLength(1);
    clock.advance(200); // past expires and the 60 s the check tolerates
    c.forget(member(ORIGIN)); // the directory cache keeps the copy
    const r = await c.resolve(member(ORIGIN));
    expect({ fetches: calls.length, keys: r.keys.length, proof: r.proof }).toEqual({ fetches: 2, keys: 1, proof: 'signed' });
  });

  it('when other URLs pushed it out of the client (maxEntries): the key keeps its proof', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const other = await testKey();
    const own = agent(clock, shortProof(clock, a));
    const fetch = async (url: string): Promise<Response> =>
      url.startsWith(ORIGIN)
        ? own.fetch(url)
        : new Response(jwks(other), {
            status: 200,
            headers: { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=3600', date: new Date(clock.t).toUTCString() },
          });
    const c = client(clock, fetch, { maxEntries: 4 });
    expect((await c.resolve(member(ORIGIN))).proof).toBe('signed');
    clock.advance(1);
    for (let i = 0; i < 4; i++) await c.resolve(member(`https://s${i}.other${i}.example`));
    clock.advance(200);
    const r = await c.resolve(member(ORIGIN));
    expect({ fetches: own.calls.length, proof: r.proof }).toEqual({ fetches: 2, proof: 'signed' });
  });
});

describe('stale-if-error and the response’s own Cache-Control (RFC 9111 §4.2.4)', () => {
  for (const cc of ['max-age=60, must-revalidate', 'no-cache']) {
    it(`Cache-Control: ${cc}: once a refresh fails, the old keys are not served, also while the retry backs off`, async () => {
      const clock = new TestClock();
      const a = await testKey();
      const served: Served = { status: 200, keys: [a], headers: { 'cache-control': cc } };
      const { fetch } = agent(clock, served);
      const c = client(clock, fetch);
      expect(thumbprints((await c.resolve(member(ORIGIN))).keys)).toEqual([a.thumbprint]);
      served.status = 410;
      clock.advance(61);
      await expect(c.resolve(member(ORIGIN))).rejects.toMatchObject({ code: 'ERR_DIRECTORY_FETCH' });
      clock.advance(1);
      await expect(c.resolve(member(ORIGIN))).rejects.toMatchObject({ code: 'ERR_DIRECTORY_FETCH' });
    });
  }

  it('without them, an outage does not revoke keys (stale-if-error)', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const served: Served = { status: 200, keys: [a], headers: { 'cache-control': 'max-age=60' } };
    const { fetch } = agent(clock, served);
    const c = client(clock, fetch);
    await c.resolve(member(ORIGIN));
    served.status = 503;
    clock.advance(61);
    const r = await c.resolve(member(ORIGIN));
    expect({ keys: thumbprints(r.keys), stale: r.stale }).toEqual({ keys: [a.thumbprint], stale: true });
  });
});

describe('between two signed copies the newer wins, also through a shared cache', () => {
  it('a process holding the rotated directory does not take the copy from before the rotation that another process stored', async () => {
    const clock = new TestClock();
    const [a, b] = [await testKey(), await testKey()];
    const t0 = clock.seconds;
    const copy = (old: boolean): Served => {
      const keys = old ? [a] : [b];
      return {
        status: 200,
        keys,
        headers: { 'cache-control': 'max-age=60' },
        sign: (body) => signatureHeaders(body, DIR_URL, keys, clock, { created: old ? t0 - 600 : t0 }),
      };
    };
    const shared = new MemoryDirectoryCache();
    const p1 = client(clock, agent(clock, copy(false)).fetch, { cache: shared });
    expect(thumbprints((await p1.resolve(member(ORIGIN))).keys)).toEqual([b.thumbprint]);
    // The shared entry goes (evicted, or a restart) and another process reaches an edge that still serves the old copy.
    shared.clear();
    clock.advance(10);
    const p2 = client(clock, agent(clock, copy(true)).fetch, { cache: shared });
    expect(thumbprints((await p2.resolve(member(ORIGIN))).keys)).toEqual([a.thumbprint]);
    clock.advance(51);
    expect(thumbprints((await p1.resolve(member(ORIGIN))).keys)).toEqual([b.thumbprint]);
  });
});
