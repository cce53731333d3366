/**
 * The Redis nonce store's script keeps its own books: the bytes counted in total, per site
 * (`:size`) and per agent (`:c:<site>`), the nonces of each site (`:s:<site>`), when each
 * site next has work (`:next`) and the shed marks (`:mark`). After every check of a random
 * run (agents of three sites, nonces checked again, expiries at any millisecond, clocks
 * that step, a small capacity and any floor) the books are read back from a real
 * redis-server and must agree with what is stored, stay within the capacity, and the
 * store must never accept a signature it accepted before (while it is unexpired).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BotsigError } from '../../src/index';
import { NONCE_ENTRY_OVERHEAD_BYTES, NONCE_SCOPE_OVERHEAD_BYTES, NONCE_SITE_OVERHEAD_BYTES } from '../../src/profile/nonce-store';
import { fromNodeRedis, RedisNonceStore } from '../../src/redis';
import { describeWithRedis as describe } from '../helpers/optional';
import { startRedisServer } from '../helpers/redis-server';
import type { RedisServer } from '../helpers/redis-server';
import { closeClients, nodeRedisClient } from './redis-clients';
import type { NodeRedisClient } from './redis-clients';

/** Characters of the site and agent ids the script stores (a truncated SHA-256 in base64url). */
const ID = 22;

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

/** The script's books under `base`, read back, with every disagreement among them. */
async function books(base: string): Promise<{ bytes: number; sites: number; problems: string[] }> {
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
  return { bytes, sites: sizes.length, problems };
}

const SITES = ['a.example', 'b.example', 'c.example'];
const SCOPES = SITES.flatMap((site) => [`https://${site}/k`, `https://x.${site}/key`]);

let runs = 0;

describe('RedisNonceStore: its books against what it stores', () => {
  it('property: whatever the checks, the clocks and the pressure, the counts add up, stay within capacity, and no signature is taken twice', async () => {
    const check = fc.record({
      scope: fc.constantFrom(...SCOPES),
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
