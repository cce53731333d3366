/**
 * MemoryNonceStore against a reference model of its policy (docs/replay.md), written the
 * plain way: lists scanned from end to end, no heaps, no buckets. Checks come with
 * expiries in whole seconds, as the verifier sends them. After every check the model and
 * the store must agree on the answer and on everything the getters show: what each agent
 * holds, what each site counts, the shed marks, the totals.
 *
 * The policy, as the model states it:
 * - a nonce held (unexpired) is a replay; one whose own expiry has passed is accepted and
 *   not remembered; a nonce of a site expiring no later than the site's shed mark is
 *   refused (`ERR_NONCE_QUOTA_EXCEEDED`);
 * - a new nonce that does not fit makes room: the site holding most bytes gives up its
 *   oldest nonce (the earliest second; within it, the one recorded last) unless that takes
 *   it below the floor or it is the newcomer's own site; otherwise the newcomer's site rolls
 *   its own oldest over if it is older than the newcomer; otherwise the check is refused.
 *   Shedding raises the site's mark to the end of the shed nonce's second;
 * - when making room takes the last nonce of the newcomer's own agent, the check starts again.
 *
 * Sites tied for most bytes: the store may take either. The model follows every choice
 * and keeps the ones that end where the store ended.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryNonceStore } from '../../src/index';
import { NONCE_ENTRY_OVERHEAD_BYTES, NONCE_SCOPE_OVERHEAD_BYTES, NONCE_SITE_OVERHEAD_BYTES } from '../../src/profile/nonce-store';

const SITES = ['a.example', 'bb.example', 'ccc.example', 'dddd.example', 'e.example'];
const SCOPES = SITES.flatMap((site) => [`https://${site}/k`, `https://x.${site}/key`]);
const siteOf = (scope: string): string => SITES.find((site) => scope.endsWith(`/${site}/k`) || scope.endsWith(`.${site}/key`))!;
const NONCES = ['n0', 'n1', 'nn2', 'nnn3', 'n4', 'nnnnn5', 'n6', 'n7'];

interface Held {
  readonly scope: string;
  readonly nonce: string;
  readonly sec: number;
  readonly seq: number;
}

interface Model {
  /** Site → its shed mark (ms, 0: none) and the nonces it holds. */
  readonly sites: Map<string, { mark: number; held: Held[] }>;
  seq: number;
}

const clone = (m: Model): Model => ({ seq: m.seq, sites: new Map([...m.sites].map(([name, s]) => [name, { mark: s.mark, held: [...s.held] }])) });

function siteBytes(name: string, held: readonly Held[]): number {
  let bytes = NONCE_SITE_OVERHEAD_BYTES + name.length;
  for (const scope of new Set(held.map((h) => h.scope))) bytes += NONCE_SCOPE_OVERHEAD_BYTES + scope.length;
  for (const h of held) bytes += NONCE_ENTRY_OVERHEAD_BYTES + h.nonce.length;
  return bytes;
}

const total = (m: Model): number => [...m.sites].reduce((sum, [name, s]) => sum + siteBytes(name, s.held), 0);

/** The nonce a site gives up next: its earliest second, the last recorded in it. */
function oldest(held: readonly Held[]): Held {
  let pick = held[0]!;
  for (const h of held) if (h.sec < pick.sec || (h.sec === pick.sec && h.seq > pick.seq)) pick = h;
  return pick;
}

function shed(m: Model, name: string): void {
  const s = m.sites.get(name)!;
  const h = oldest(s.held);
  s.held.splice(s.held.indexOf(h), 1);
  s.mark = Math.max(s.mark, h.sec * 1000);
}

type Answer = boolean | 'ERR_NONCE_QUOTA_EXCEEDED';

/** Every way the check can end: the answer and the model after it (one per choice among tied sites). */
function check(m0: Model, scope: string, nonce: string, expiresAtMs: number, now: number, capacity: number, floor: number): [Answer, Model][] {
  const m = clone(m0);
  const nowSec = Math.floor(now / 1000);
  for (const [name, s] of m.sites) {
    s.held = s.held.filter((h) => h.sec > nowSec);
    if (s.mark <= now) s.mark = 0;
    if (s.held.length === 0 && s.mark === 0) m.sites.delete(name);
  }
  return attempt(m, scope, nonce, expiresAtMs, now, capacity, floor);
}

function attempt(m: Model, scope: string, nonce: string, expiresAtMs: number, now: number, capacity: number, floor: number): [Answer, Model][] {
  const name = siteOf(scope);
  const site = m.sites.get(name);
  if (site?.held.some((h) => h.scope === scope && h.nonce === nonce)) return [[false, m]];
  if (expiresAtMs <= now) return [[true, m]];
  const sec = expiresAtMs / 1000;
  if (site !== undefined && expiresAtMs <= site.mark) return [['ERR_NONCE_QUOTA_EXCEEDED', m]];
  const agentHeld = site?.held.some((h) => h.scope === scope) ?? false;
  const need =
    NONCE_ENTRY_OVERHEAD_BYTES +
    nonce.length +
    (agentHeld ? 0 : NONCE_SCOPE_OVERHEAD_BYTES + scope.length) +
    (site === undefined ? NONCE_SITE_OVERHEAD_BYTES + name.length : 0);
  const out: [Answer, Model][] = [];
  const makeRoom = (mm: Model): void => {
    if (total(mm) + need <= capacity) {
      const own = mm.sites.get(name);
      if (agentHeld && !own!.held.some((h) => h.scope === scope)) {
        out.push(...attempt(mm, scope, nonce, expiresAtMs, now, capacity, floor));
        return;
      }
      const s = own ?? { mark: 0, held: [] };
      mm.sites.set(name, s);
      s.held.push({ scope, nonce, sec, seq: mm.seq++ });
      out.push([true, mm]);
      return;
    }
    const sizes = [...mm.sites].map(([n, s]) => [n, siteBytes(n, s.held)] as const);
    const most = Math.max(...sizes.map(([, b]) => b));
    const tied = sizes.filter(([, b]) => b === most).map(([n]) => n);
    for (const largest of tied.length > 0 ? tied : [undefined]) {
      const branch = clone(mm);
      const l = largest === undefined ? undefined : branch.sites.get(largest)!;
      if (largest !== undefined && l !== undefined && (largest !== name || site === undefined)) {
        if (l.held.length > 0) {
          const h = oldest(l.held);
          const cost =
            NONCE_ENTRY_OVERHEAD_BYTES +
            h.nonce.length +
            (l.held.filter((x) => x.scope === h.scope).length === 1 ? NONCE_SCOPE_OVERHEAD_BYTES + h.scope.length : 0);
          if (siteBytes(largest, l.held) - cost >= floor) {
            shed(branch, largest);
            makeRoom(branch);
            continue;
          }
        }
      }
      const own = branch.sites.get(name);
      if (own !== undefined && own.held.length > 0 && oldest(own.held).sec < sec) {
        shed(branch, name);
        makeRoom(branch);
        continue;
      }
      out.push(['ERR_NONCE_QUOTA_EXCEEDED', mm]);
    }
  };
  makeRoom(m);
  return out;
}

/** What the store shows, as a string to compare: the totals, each agent's count, each site's bytes and live mark. */
function shown(store: MemoryNonceStore, now: number): string {
  const scopes = SCOPES.map((s) => store.heldBy(s)).join(',');
  const sites = SITES.map((s) => `${store.bytesOf(s)}/${(store.shedUntil(s) ?? 0) > now ? store.shedUntil(s) : 0}`).join(',');
  return `${store.size} ${store.bytes} ${store.siteCount} ${store.scopeCount} | ${scopes} | ${sites}`;
}

function modelShown(m: Model, now: number): string {
  const held = [...m.sites.values()].flatMap((s) => s.held);
  const scopes = SCOPES.map((s) => held.filter((h) => h.scope === s).length).join(',');
  const sites = SITES.map((s) => {
    const site = m.sites.get(s);
    return site === undefined ? '0/0' : `${siteBytes(s, site.held)}/${site.mark > now ? site.mark : 0}`;
  }).join(',');
  return `${held.length} ${total(m)} ${m.sites.size} ${new Set(held.map((h) => h.scope)).size} | ${scopes} | ${sites}`;
}

describe('MemoryNonceStore against a reference model of its policy', () => {
  it('property: whatever the sites, agents, nonces, capacity, floor and time, the store answers and holds what the model does', () => {
    const step = fc.record({
      scope: fc.constantFrom(...SCOPES),
      nonce: fc.constantFrom(...NONCES),
      // Whole seconds from now's second: -1 (already expired) to 6.
      seconds: fc.integer({ min: -1, max: 6 }),
      advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2_500 })),
    });
    const smallest = NONCE_SITE_OVERHEAD_BYTES + SITES[0]!.length + NONCE_SCOPE_OVERHEAD_BYTES + SCOPES[0]!.length + NONCE_ENTRY_OVERHEAD_BYTES + 2;
    fc.assert(
      fc.property(
        fc.integer({ min: smallest, max: 4 * smallest }),
        // The floor: a share of the capacity, or what one agent of the first site holding k nonces
        // counts, exactly or a few bytes above it (where what shedding frees decides).
        fc.oneof(
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc
            .tuple(fc.integer({ min: 1, max: 4 }), fc.constantFrom(0, 1, 2, 3, 8, 20, 38))
            .map(([k, above]) => -(smallest + (k - 1) * (NONCE_ENTRY_OVERHEAD_BYTES + 2) + above)),
        ),
        fc.array(step, { minLength: 1, maxLength: 100 }),
        (capacity, floorChoice, steps) => {
          const floor = floorChoice < 0 ? Math.min(capacity, -floorChoice) : Math.max(1, Math.floor(capacity * floorChoice));
          const store = new MemoryNonceStore({ capacityBytes: capacity, siteFloorBytes: floor });
          let models: Model[] = [{ sites: new Map(), seq: 0 }];
          let now = 1_000_000_500;
          for (const s of steps) {
            now += s.advanceMs;
            const expiresAtMs = (Math.floor(now / 1000) + s.seconds) * 1000;
            let answer: Answer;
            try {
              answer = store.checkAndRecord(s.scope, s.nonce, expiresAtMs, now);
            } catch (error) {
              answer = (error as { code: 'ERR_NONCE_QUOTA_EXCEEDED' }).code;
            }
            const seen = shown(store, now);
            const ends = models.flatMap((m) => check(m, s.scope, s.nonce, expiresAtMs, now, capacity, floor));
            const agree = ends.filter(([a, m]) => a === answer && modelShown(m, now) === seen).map(([, m]) => m);
            if (agree.length === 0) {
              expect({ answer, seen }).toEqual({ answer: ends[0]![0], seen: modelShown(ends[0]![1], now) });
            }
            models = agree.slice(0, 4);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
