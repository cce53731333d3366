/**
 * One conformance suite for every botsig nonce store (memory, Redis, Durable Objects):
 * atomicity, expiry, capacity in bytes, fairness by site, failing closed. A store
 * passes it through a harness that builds a fresh store with a given capacity and
 * floor, and (where it can) makes the store unavailable.
 *
 * Clocks: the verifier's `nowMs` is passed to every call; stores whose expiry runs on
 * their own clock (Redis TIME) are given lifetimes relative to it, so the suite keeps
 * `nowMs` close to real time and waits where expiry must be observed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NonceStore } from '../../src/index';
import { valueOrCode } from '../helpers/errors';
import { NONCE_ENTRY_OVERHEAD_BYTES, NONCE_SCOPE_OVERHEAD_BYTES, NONCE_SITE_OVERHEAD_BYTES } from '../../src/profile/nonce-store';

/** What a store counts a held nonce as, in bytes. */
const nonceEntryBytes = (nonce: string): number => NONCE_ENTRY_OVERHEAD_BYTES + nonce.length;

export interface StoreHarness {
  readonly name: string;
  /** A fresh, empty store. */
  make(options: { capacityBytes: number; siteFloorBytes: number }): Promise<NonceStore> | NonceStore;
  /** Bytes the store counts as held, when it can say (memory, Redis). */
  bytes?(store: NonceStore): Promise<number> | number;
  /** A store whose backend cannot answer (stopped server, broken binding); undefined: not applicable. */
  unavailable?(): Promise<NonceStore> | NonceStore;
  /** Capacity is per site (one shard per site) rather than shared by all sites. */
  readonly perSite?: boolean;
  /** Milliseconds of real time to wait for an expiry the store measures on its own clock (0: the verifier's clock is enough). */
  readonly realExpiryWaitMs?: number;
  /** Runs of the pressure property (each makes a fresh store); default 500. */
  readonly propertyRuns?: number;
}

/** What a call ended in: true / false, or the code of the BotsigError it threw (anything else is rethrown). */
export async function outcome(store: NonceStore, scope: string, nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean | string> {
  return valueOrCode(() => store.checkAndRecord(scope, nonce, expiresAtMs, nowMs));
}

const agentOf = (host: string, i = 0): string => `https://${host}/agents/${i}/.well-known/http-message-signatures-directory`;

/**
 * A store too small for the sites `s0.example` … (a site, one agent and its 3-character
 * nonces): room for two such sites and a dozen nonces, each site's floor an agent and three.
 */
function smallStore(): { capacityBytes: number; siteFloorBytes: number } {
  const site = NONCE_SITE_OVERHEAD_BYTES + 12 + NONCE_SCOPE_OVERHEAD_BYTES + agentOf('s0.example').length;
  return { capacityBytes: 2 * site + 12 * nonceEntryBytes('n00'), siteFloorBytes: site + 3 * nonceEntryBytes('n00') };
}

export function conformance(h: StoreHarness): void {
  describe(`${h.name}: nonce store conformance`, () => {
    it('atomicity: concurrent checks of one nonce: exactly one is accepted', async () => {
      const store = await h.make({ capacityBytes: 1 << 20, siteFloorBytes: 1 << 15 });
      const now = Date.now();
      const answers = await Promise.all(Array.from({ length: 32 }, () => outcome(store, agentOf('busy.example'), 'same-nonce', now + 60_000, now)));
      expect(answers.filter((a) => a === true)).toHaveLength(1);
      expect(answers.filter((a) => a === false)).toHaveLength(31);
      // Scopes are separate: the same nonce of another agent is new.
      expect(await outcome(store, agentOf('other.example'), 'same-nonce', now + 60_000, now)).toBe(true);
    });

    it('expiry: a nonce is a replay until its expiry, new again after it', async () => {
      const store = await h.make({ capacityBytes: 1 << 20, siteFloorBytes: 1 << 15 });
      const wait = h.realExpiryWaitMs ?? 0;
      const t0 = Date.now();
      const life = wait > 0 ? wait : 10_000;
      expect(await outcome(store, agentOf('a.example'), 'n1', t0 + life, t0)).toBe(true);
      expect(await outcome(store, agentOf('a.example'), 'n1', t0 + life, t0 + life / 2)).toBe(false);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait + 1100));
      const later = t0 + life + 1000;
      expect(await outcome(store, agentOf('a.example'), 'n1', later + life, later)).toBe(true);
      // An already expired signature is accepted and not remembered.
      expect(await outcome(store, agentOf('a.example'), 'old', later - 1, later)).toBe(true);
      expect(await outcome(store, agentOf('a.example'), 'old', later - 1, later)).toBe(true);
    });

    it('capacity in bytes: never more than the capacity; a full site rolls its oldest nonces over, and never accepts one of them again', async () => {
      const nonce = (i: number): string => `nonce-${String(i).padStart(6, '0')}`;
      const scope = agentOf('roll.example');
      const perNonce = nonceEntryBytes(nonce(0));
      const fixed = NONCE_SITE_OVERHEAD_BYTES + 'roll.example'.length + NONCE_SCOPE_OVERHEAD_BYTES + scope.length;
      const capacity = fixed + 50 * perNonce;
      const store = await h.make({ capacityBytes: capacity, siteFloorBytes: Math.floor(capacity / 4) });
      const now = Date.now();
      // 200 nonces, one per second of expiry, all unexpired: four times what fits.
      for (let i = 0; i < 200; i++) expect(await outcome(store, scope, nonce(i), now + 60_000 + i * 1000, now)).toBe(true);
      if (h.bytes !== undefined) {
        const held = await h.bytes(store);
        expect(held).toBeLessThanOrEqual(capacity);
        expect(held).toBeGreaterThan(capacity - 2 * perNonce);
      }
      // The newest are held (replays), the oldest were dropped and are refused, never accepted as new.
      expect(await outcome(store, scope, nonce(199), now + 60_000 + 199 * 1000, now)).toBe(false);
      expect(await outcome(store, scope, nonce(0), now + 60_000, now)).toBe('ERR_NONCE_QUOTA_EXCEEDED');
      expect(await outcome(store, scope, nonce(100), now + 60_000 + 100 * 1000, now)).toBe('ERR_NONCE_QUOTA_EXCEEDED');
      // A fresh signature still passes.
      expect(await outcome(store, scope, 'fresh', now + 60_000 + 300 * 1000, now)).toBe(true);
    });

    it('fairness by site: 2,000 agent URLs on one attacker host fill the store; a busy agent of another site keeps verifying', async () => {
      const capacity = 256 * 1024;
      const store = await h.make({ capacityBytes: capacity, siteFloorBytes: 16 * 1024 });
      const now = Date.now();
      let attackerAccepted = 0;
      let legitAccepted = 0;
      let legitTried = 0;
      for (let round = 0; round < 20; round++) {
        const attacks = [];
        for (let i = 0; i < 100; i++) {
          const url = agentOf(`h${i % 7}.attacker.example`, round * 100 + i);
          attacks.push(outcome(store, url, `a-${round}-${i}`, now + 86_400_000, now));
        }
        for (const a of await Promise.all(attacks)) if (a === true) attackerAccepted++;
        for (let j = 0; j < 10; j++) {
          legitTried++;
          // Honest: signed per request, so each expires later than the last.
          if ((await outcome(store, agentOf('chatgpt.com'), `l-${round}-${j}`, now + 300_000 + (round * 10 + j) * 1000, now)) === true) legitAccepted++;
        }
      }
      expect(legitAccepted).toBe(legitTried);
      // The attacker got in while there was room, then only rolled over its own.
      expect(attackerAccepted).toBeGreaterThan(0);
      if (h.bytes !== undefined) expect(await h.bytes(store)).toBeLessThanOrEqual(h.perSite === true ? 2 * capacity : capacity);
    });

    it('fairness by site: host names, URLs and keys under one registrable domain are one site', async () => {
      const capacity = 64 * 1024;
      const store = await h.make({ capacityBytes: capacity, siteFloorBytes: 8 * 1024 });
      const now = Date.now();
      // One attacker domain under a multi-label public suffix, many hosts: it fills the store.
      for (let i = 0; i < 2000; i++) await outcome(store, agentOf(`x${i}.evil.co.uk`, i), `e${i}`, now + 600_000, now);
      // A newcomer site still gets room: the attacker's site is the one shed.
      for (let j = 0; j < 50; j++) expect(await outcome(store, agentOf('bbc.co.uk'), `b${j}`, now + 300_000 + j * 1000, now)).toBe(true);
    });

    it('property: whatever mix of sites, agents, nonces and time fills the store, a signature it accepted is never accepted again before its expiry, it reports a replay only for a nonce it holds, and it stays within its capacity', async () => {
      const nonce = (i: number): string => `n${String(i).padStart(2, '0')}`;
      // Most sequences overflow it.
      const size = smallStore();
      // Few keys and few lifetimes, so that checks repeat. A replay is the same agent, nonce and
      // expiry (the verifier derives the expiry from the signed parameters), sent again later
      // (`again`: the check made that many steps back); the same nonce with another expiry is
      // another signature. The clock moves on by `advanceSeconds` (lifetimes are 20 to 22 s).
      const check = fc.record({
        site: fc.nat(2),
        agent: fc.nat(1),
        nonce: fc.nat(7),
        ttlSeconds: fc.integer({ min: 20, max: 22 }),
        advanceSeconds: fc.option(fc.nat(12), { freq: 3 }),
        again: fc.option(fc.nat(30), { freq: 2 }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(check, { minLength: 1, maxLength: 100 }), async (checks) => {
          const store = await h.make(size);
          let now = Date.now();
          /** Signatures accepted (agent, nonce, expiry), by agent and nonce. */
          const accepted = new Map<string, number[]>();
          const sent: { scope: string; nonce: string; expiresAtMs: number }[] = [];
          for (const c of checks) {
            now += (c.advanceSeconds ?? 0) * 1000;
            const s =
              c.again !== null && c.again < sent.length
                ? sent[sent.length - 1 - c.again]!
                : { scope: agentOf(`s${c.site}.example`, c.agent), nonce: nonce(c.nonce), expiresAtMs: now + c.ttlSeconds * 1000 };
            sent.push(s);
            const answer = await outcome(store, s.scope, s.nonce, s.expiresAtMs, now);
            const key = `${s.scope} ${s.nonce}`;
            const live = (accepted.get(key) ?? []).filter((e) => e > now);
            // Accepted once: a replay or a refusal until it expires, never new again (fail closed).
            if (s.expiresAtMs > now && live.includes(s.expiresAtMs)) expect(answer).not.toBe(true);
            // A replay is claimed only for a nonce of this agent accepted and unexpired.
            if (answer === false) expect(live.length).toBeGreaterThan(0);
            if (answer === true) accepted.set(key, [...live, s.expiresAtMs]);
            else if (answer !== false) expect(answer).toBe('ERR_NONCE_QUOTA_EXCEEDED');
          }
          if (h.bytes !== undefined) expect(await h.bytes(store)).toBeLessThanOrEqual(h.perSite === true ? 4 * size.capacityBytes : size.capacityBytes);
        }),
        { numRuns: h.propertyRuns ?? 500 },
      );
    });

    if (h.perSite !== true) {
      it('capacity shared: when every site is at its floor, a site holding nothing is refused (fails closed), and sites holding nonces roll over', async () => {
        const nonce = (i: number): string => `n${String(i).padStart(5, '0')}`;
        const perNonce = nonceEntryBytes(nonce(0));
        const floor = 20 * perNonce + 1024;
        const capacity = 4 * floor;
        const store = await h.make({ capacityBytes: capacity, siteFloorBytes: floor });
        const now = Date.now();
        for (let s = 0; s < 4; s++) {
          for (let i = 0; i < 40; i++) await outcome(store, agentOf(`site${s}.example`), nonce(i), now + 60_000 + i * 1000, now);
        }
        expect(await outcome(store, agentOf('newcomer.example'), 'x', now + 120_000, now)).toBe('ERR_NONCE_QUOTA_EXCEEDED');
        expect(await outcome(store, agentOf('site0.example'), 'fresh', now + 200_000, now)).toBe(true);
      });

      it('the floor counts all that shedding frees: a nonce that is the last of its agent takes the agent with it, and that may not take a site below its floor', async () => {
        const nonce = 'n00';
        const store = await h.make(smallStore());
        const now = Date.now();
        expect(await outcome(store, agentOf('s0.example', 0), nonce, now + 120_000, now)).toBe(true);
        expect(await outcome(store, agentOf('s2.example', 0), nonce, now + 120_000, now)).toBe(true);
        expect(await outcome(store, agentOf('s0.example', 1), nonce, now + 121_000, now)).toBe(true);
        // s0 holds most, but its oldest nonce is agent 0's only one: dropping both would leave s0
        // under its floor, and s2 holds less. The newcomer is refused; nothing of s0 was dropped.
        expect(await outcome(store, agentOf('s1.example', 0), nonce, now + 120_000, now)).toBe('ERR_NONCE_QUOTA_EXCEEDED');
        expect(await outcome(store, agentOf('s0.example', 0), nonce, now + 122_000, now)).toBe(false);
      });
    }

    if (h.unavailable !== undefined) {
      it('unavailable: the check rejects, never answers true', async () => {
        const store = await h.unavailable!();
        const now = Date.now();
        const answer = await outcome(store, agentOf('a.example'), 'n', now + 60_000, now);
        expect(answer).not.toBe(true);
        expect(answer).not.toBe(false);
      });
    }
  });
}
