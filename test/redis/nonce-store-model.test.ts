/**
 * RedisNonceStore against a reference model of the policy its script implements
 * (docs/replay.md), in plain TypeScript: maps and sorted lists instead of Redis keys. The
 * same policy as the memory store, in the script's units: expiries and shed marks in
 * milliseconds, a nonce kept until `now - skewMs` has passed it, sites and agents counted
 * by their 22-character ids, and Redis's orders (a site's nonces by expiry then member; the
 * site holding most bytes first, the greater id on a tie). After every check of a random
 * run against a real redis-server, the answer and everything the script stored (each
 * site's members and their expiries, the bytes, the marks) must be what the model says.
 *
 * Beside it, the script's own books (the bytes counted in total, per site and per agent,
 * the schedule and the marks) read back after every check of a run with expiries at any
 * millisecond and clocks that step back: they must agree with what is stored, stay within
 * the capacity, and no signature may be taken twice on a clock within the skew.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BotsigError, siteOfAgent } from '../../src/index';
import { NONCE_ENTRY_OVERHEAD_BYTES, NONCE_SCOPE_OVERHEAD_BYTES, NONCE_SITE_OVERHEAD_BYTES } from '../../src/profile/nonce-store';
import { fromNodeRedis, RedisNonceStore } from '../../src/redis';
import { hash } from '../../src/stores/redis/shared';
import { describeWithRedis as describe } from '../helpers/optional';
import { startRedisServer } from '../helpers/redis-server';
import type { RedisServer } from '../helpers/redis-server';
import { closeClients, nodeRedisClient } from './redis-clients';
import type { NodeRedisClient } from './redis-clients';

const ID = 22;
const siteId = (scope: string): string => hash(siteOfAgent(scope)).slice(0, ID);
const agentId = (scope: string): string => hash(scope).slice(0, ID);

let server: RedisServer;
let raw: NodeRedisClient;
beforeAll(async () => {
  server = await startRedisServer();
  raw = await nodeRedisClient(server.port);
});
afterAll(async () => {
  await closeClients();
  await server?.stop();
});

/** Site id → its shed mark (ms, 0: none) and its members (agent id + nonce) with their expiries. */
type Model = Map<string, { mark: number; members: Map<string, number> }>;

function siteBytes(members: ReadonlyMap<string, number>): number {
  let bytes = NONCE_SITE_OVERHEAD_BYTES + ID;
  for (const m of members.keys()) bytes += NONCE_ENTRY_OVERHEAD_BYTES + m.length;
  return bytes + new Set([...members.keys()].map((m) => m.slice(0, ID))).size * (NONCE_SCOPE_OVERHEAD_BYTES + ID);
}
const total = (model: Model): number => [...model.values()].reduce((sum, s) => sum + siteBytes(s.members), 0);
/** A site's first member in Redis order: lowest expiry, then the lesser member. */
function oldest(members: ReadonlyMap<string, number>): [string, number] | undefined {
  let pick: [string, number] | undefined;
  for (const [m, e] of members) if (pick === undefined || e < pick[1] || (e === pick[1] && m < pick[0])) pick = [m, e];
  return pick;
}

type Answer = boolean | 'ERR_NONCE_QUOTA_EXCEEDED';

function check(model: Model, scope: string, nonce: string, expiry: number, now: number, skew: number, capacity: number, floor: number): Answer {
  const cutoff = now - skew;
  for (const [id, s] of model) {
    for (const [m, e] of s.members) if (e <= cutoff) s.members.delete(m);
    if (s.mark > 0 && s.mark <= cutoff && (s.members.size === 0 || oldest(s.members)![1] <= cutoff)) s.mark = 0;
    if (s.members.size === 0 && s.mark === 0) model.delete(id);
  }
  const site = siteId(scope);
  const member = agentId(scope) + nonce;
  if (model.get(site)?.members.has(member)) return false;
  if (expiry <= now) return true;
  if (expiry <= (model.get(site)?.mark ?? 0)) return 'ERR_NONCE_QUOTA_EXCEEDED';
  const needOf = (): number => {
    const s = model.get(site);
    const agentHeld = s !== undefined && [...s.members.keys()].some((m) => m.startsWith(agentId(scope)));
    return (
      NONCE_ENTRY_OVERHEAD_BYTES + member.length + (s === undefined ? NONCE_SITE_OVERHEAD_BYTES + ID : 0) + (agentHeld ? 0 : NONCE_SCOPE_OVERHEAD_BYTES + ID)
    );
  };
  const shed = (id: string): void => {
    const s = model.get(id)!;
    const [m, e] = oldest(s.members)!;
    s.members.delete(m);
    if (e > s.mark) s.mark = e;
  };
  let need = needOf();
  while (total(model) + need > capacity) {
    let top: string | undefined;
    for (const [id, s] of model) {
      const bytes = siteBytes(s.members);
      if (top === undefined || bytes > siteBytes(model.get(top)!.members) || (bytes === siteBytes(model.get(top)!.members) && id > top)) top = id;
    }
    let done = false;
    if (top !== undefined && top !== site) {
      const t = model.get(top)!;
      const first = oldest(t.members);
      if (first !== undefined) {
        const agentLeft = [...t.members.keys()].filter((m) => m.startsWith(first[0].slice(0, ID))).length;
        const cost = NONCE_ENTRY_OVERHEAD_BYTES + first[0].length + (agentLeft <= 1 ? NONCE_SCOPE_OVERHEAD_BYTES + ID : 0);
        if (siteBytes(t.members) - cost >= floor) {
          shed(top);
          done = true;
        }
      }
    }
    if (!done) {
      const own = model.get(site);
      const first = own === undefined ? undefined : oldest(own.members);
      if (first === undefined || first[1] >= expiry) return 'ERR_NONCE_QUOTA_EXCEEDED';
      shed(site);
      need = needOf();
    }
  }
  const s = model.get(site) ?? { mark: 0, members: new Map<string, number>() };
  model.set(site, s);
  s.members.set(member, expiry);
  return true;
}

/** What the script stored under `base`, in the model's shape, and its byte count. */
async function stored(base: string): Promise<{ model: Model; bytes: number }> {
  const model: Model = new Map();
  const marks = await raw.hGetAll(`${base}:mark`);
  for (const { value: id } of await raw.zRangeWithScores(`${base}:size`, 0, -1)) {
    const members = new Map((await raw.zRangeWithScores(`${base}:s:${id}`, 0, -1)).map(({ value, score }) => [value, score] as const));
    model.set(id, { mark: Number(marks[id] ?? '0'), members });
  }
  return { model, bytes: Number((await raw.get(`${base}:bytes`)) ?? '0') };
}

/** The script's books under `base`, read back, with every disagreement among them. */
async function books(base: string): Promise<{ bytes: number; problems: string[] }> {
  const problems: string[] = [];
  const bytes = Number((await raw.get(`${base}:bytes`)) ?? '0');
  const sizes = await raw.zRangeWithScores(`${base}:size`, 0, -1);
  const next = new Set(await raw.zRange(`${base}:next`, 0, -1));
  const marks = await raw.hGetAll(`${base}:mark`);
  let sum = 0;
  for (const { value: site, score } of sizes) {
    sum += score;
    const members = await raw.zRange(`${base}:s:${site}`, 0, -1);
    const counts = await raw.hGetAll(`${base}:c:${site}`);
    let want = NONCE_SITE_OVERHEAD_BYTES + ID;
    const perAgent = new Map<string, number>();
    for (const m of members) {
      want += NONCE_ENTRY_OVERHEAD_BYTES + m.length;
      perAgent.set(m.slice(0, ID), (perAgent.get(m.slice(0, ID)) ?? 0) + 1);
    }
    want += perAgent.size * (NONCE_SCOPE_OVERHEAD_BYTES + ID);
    if (score !== want) problems.push(`site ${site}: counted ${score}, holds ${want}`);
    for (const [agent, n] of perAgent) if (Number(counts[agent]) !== n) problems.push(`site ${site} agent ${agent}: counted ${counts[agent]}, holds ${n}`);
    for (const agent of Object.keys(counts)) if (!perAgent.has(agent)) problems.push(`site ${site} agent ${agent}: counted ${counts[agent]}, holds none`);
    if (members.length === 0 && Number(marks[site] ?? '0') <= 0) problems.push(`site ${site}: counted with no nonce and no mark`);
    if (!next.has(site)) problems.push(`site ${site}: not scheduled in :next`);
  }
  for (const site of next) if (!sizes.some((s) => s.value === site)) problems.push(`site ${site}: scheduled but not counted`);
  for (const site of Object.keys(marks)) if (!sizes.some((s) => s.value === site)) problems.push(`site ${site}: a mark but not counted`);
  if (sum !== bytes) problems.push(`total: counted ${bytes}, sites add up to ${sum}`);
  return { bytes, problems };
}

const show = (model: Model, now: number): string =>
  [...model]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([id, s]) =>
        `${id} mark ${s.mark > now ? s.mark : 0}: ${[...s.members]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([m, e]) => `${m}@${e}`)
          .join(' ')}`,
    )
    .join('\n');

const SITES = ['a.example', 'bb.example', 'ccc.example', 'dddd.example'];
const SCOPES = SITES.flatMap((site) => [`https://${site}/k`, `https://x.${site}/key`]);
let runs = 0;

describe('RedisNonceStore against a reference model of its policy', () => {
  it('property: whatever the sites, agents, nonces, capacity, floor, skew and clock, the script answers and stores what the model does', async () => {
    const step = fc.record({
      scope: fc.constantFrom(...SCOPES),
      // Mostly two characters long, so that sites often hold exactly what a floor allows.
      nonce: fc.oneof(
        { arbitrary: fc.constantFrom('n0', 'n1', 'n4', 'n6', 'n7'), weight: 3 },
        { arbitrary: fc.constantFrom('nn2', 'nnn3', 'nnnnn5'), weight: 1 },
      ),
      // Often whole seconds, so that nonces of one site share an expiry.
      ttlMs: fc.oneof(
        fc.integer({ min: -300, max: 4_000 }),
        fc.integer({ min: 1, max: 3 }).map((s) => s * 1000),
      ),
      stepMs: fc.oneof({ arbitrary: fc.constant(0), weight: 2 }, { arbitrary: fc.integer({ min: 1, max: 1_500 }), weight: 1 }),
      again: fc.option(fc.nat(), { freq: 4 }),
    });
    const smallest = NONCE_SITE_OVERHEAD_BYTES + NONCE_SCOPE_OVERHEAD_BYTES + NONCE_ENTRY_OVERHEAD_BYTES + 3 * ID + 2;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: smallest, max: 4 * smallest }),
        fc.oneof(
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc
            .tuple(fc.integer({ min: 1, max: 4 }), fc.constantFrom(0, 1, 3, 20, 30))
            .map(([k, above]) => -(smallest + (k - 1) * (NONCE_ENTRY_OVERHEAD_BYTES + ID + 2) + above)),
        ),
        fc.constantFrom(0, 700, 5_000),
        fc.array(step, { minLength: 1, maxLength: 60 }),
        async (capacityBytes, floorChoice, skewMs, steps) => {
          const siteFloorBytes = floorChoice < 0 ? Math.min(capacityBytes, -floorChoice) : Math.max(1, Math.floor(capacityBytes * floorChoice));
          const prefix = `model${++runs}:`;
          const store = new RedisNonceStore({ client: fromNodeRedis(raw), prefix, capacityBytes, siteFloorBytes, skewMs });
          const model: Model = new Map();
          const sent: { scope: string; nonce: string; expiry: number }[] = [];
          let now = 1_700_000_000_500;
          for (const s of steps) {
            now += s.stepMs;
            const earlier = s.again === null || sent.length === 0 ? undefined : sent[s.again % sent.length]!;
            const { scope, nonce, expiry } = earlier ?? { scope: s.scope, nonce: s.nonce, expiry: now + s.ttlMs };
            sent.push({ scope, nonce, expiry });
            let answer: Answer;
            try {
              answer = await store.checkAndRecord(scope, nonce, expiry, now);
            } catch (error) {
              if (!(error instanceof BotsigError) || error.code !== 'ERR_NONCE_QUOTA_EXCEEDED') throw error;
              answer = error.code;
            }
            const expected = check(model, scope, nonce, expiry, now, skewMs, capacityBytes, siteFloorBytes);
            const got = await stored(`${prefix}{n}`);
            const where = `${scope} ${nonce} expiring ${expiry} at ${now}`;
            expect(answer, where).toBe(expected);
            expect(show(got.model, now), where).toBe(show(model, now));
            expect(got.bytes, where).toBe(total(model));
          }
        },
      ),
      { numRuns: 400 },
    );
  }, 180_000);

  it('at the edges: a site gives up a nonce when that leaves exactly its floor, and a newcomer never rolls over a nonce expiring when it does', async () => {
    const one = NONCE_SITE_OVERHEAD_BYTES + NONCE_SCOPE_OVERHEAD_BYTES + NONCE_ENTRY_OVERHEAD_BYTES + 3 * ID + 2;
    const entry = NONCE_ENTRY_OVERHEAD_BYTES + ID + 2;
    const now = 1_700_000_000_000;
    const store = (capacityBytes: number, siteFloorBytes: number): RedisNonceStore =>
      new RedisNonceStore({ client: fromNodeRedis(raw), prefix: `edge${++runs}:`, capacityBytes, siteFloorBytes, skewMs: 0 });
    // a.example holds two nonces; shedding one leaves exactly the floor, which is allowed.
    const floorEdge = store(one + entry + one - 1, one);
    expect(await floorEdge.checkAndRecord('https://a.example/k', 'n0', now + 5_000, now)).toBe(true);
    expect(await floorEdge.checkAndRecord('https://a.example/k', 'n1', now + 6_000, now)).toBe(true);
    expect(await floorEdge.checkAndRecord('https://b.example/k', 'n2', now + 7_000, now)).toBe(true);
    // a.example's oldest was shed for it: refused from now on, while the other is still a replay.
    await expect(floorEdge.checkAndRecord('https://a.example/k', 'n0', now + 5_000, now)).rejects.toMatchObject({ code: 'ERR_NONCE_QUOTA_EXCEEDED' });
    expect(await floorEdge.checkAndRecord('https://a.example/k', 'n1', now + 6_000, now)).toBe(false);
    // The same site's other agent, full store, its only nonce expiring at the very same millisecond: refused.
    const tie = store(one, one);
    expect(await tie.checkAndRecord('https://a.example/k', 'n0', now + 5_000, now)).toBe(true);
    await expect(tie.checkAndRecord('https://x.a.example/key', 'n1', now + 5_000, now)).rejects.toMatchObject({ code: 'ERR_NONCE_QUOTA_EXCEEDED' });
    expect(await tie.checkAndRecord('https://x.a.example/key', 'n1', now + 5_001, now)).toBe(true);
  });
});

describe('RedisNonceStore: its books against what it stores', () => {
  const BOOK_SCOPES = ['a.example', 'b.example', 'c.example'].flatMap((site) => [`https://${site}/k`, `https://x.${site}/key`]);
  it('property: whatever the checks, the clocks and the pressure, the counts add up, stay within capacity, and no signature is taken twice', async () => {
    const check = fc.record({
      scope: fc.constantFrom(...BOOK_SCOPES),
      nonce: fc.constantFrom('n0', 'n1', 'nn2', 'nnn3', 'n4'),
      ttlMs: fc.integer({ min: -300, max: 4_000 }),
      // Mostly forward; sometimes a verifier whose clock is behind (up to the skew, or more).
      stepMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_500 }), fc.integer({ min: -3_000, max: -1 })),
      again: fc.option(fc.nat(), { freq: 3 }),
    });
    const smallest = NONCE_SITE_OVERHEAD_BYTES + ID + NONCE_SCOPE_OVERHEAD_BYTES + ID + NONCE_ENTRY_OVERHEAD_BYTES + ID + 2;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: smallest, max: 4 * smallest }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(0, 1_000, 5_000),
        fc.array(check, { minLength: 1, maxLength: 60 }),
        async (capacityBytes, floorShare, skewMs, checks) => {
          const prefix = `acct${++runs}:`;
          const store = new RedisNonceStore({
            client: fromNodeRedis(raw),
            prefix,
            capacityBytes,
            siteFloorBytes: Math.max(1, Math.floor(capacityBytes * floorShare)),
            skewMs,
          });
          const base = `${prefix}{n}`;
          const sent: { scope: string; nonce: string; expiresAtMs: number }[] = [];
          const accepted = new Set<string>();
          let now = 1_700_000_000_500;
          let latest = now;
          for (const c of checks) {
            now += c.stepMs;
            latest = Math.max(latest, now);
            const earlier = c.again === null || sent.length === 0 ? undefined : sent[c.again % sent.length]!;
            const { scope, nonce, expiresAtMs } = earlier ?? { scope: c.scope, nonce: c.nonce, expiresAtMs: now + c.ttlMs };
            sent.push({ scope, nonce, expiresAtMs });
            const key = `${scope}|${nonce}|${expiresAtMs}`;
            let answer: boolean | string;
            try {
              answer = await store.checkAndRecord(scope, nonce, expiresAtMs, now);
            } catch (error) {
              if (!(error instanceof BotsigError)) throw error;
              answer = error.code;
            }
            expect(answer === true || answer === false || answer === 'ERR_NONCE_QUOTA_EXCEEDED', String(answer)).toBe(true);
            // A signature accepted is not accepted again while it is unexpired, on the clock of a
            // verifier at most skewMs behind the latest one (the store's promise).
            if (accepted.has(key) && expiresAtMs > now && now >= latest - skewMs) expect(answer, key).not.toBe(true);
            if (answer === true && expiresAtMs > now) accepted.add(key);
            const { bytes, problems } = await books(base);
            expect(problems, `after ${key} at ${now}`).toEqual([]);
            expect(bytes).toBeLessThanOrEqual(capacityBytes);
          }
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});
