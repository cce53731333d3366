/**
 * RegistryClient's polling as a property: whatever the registry and its cards answer
 * (new lists, 304, outages, refused cards) and whenever it is refreshed, a card is not
 * fetched again before its freshness or its back-off ends, the listing holds the last
 * good copy of every listed card (stale-if-error) and nothing of a card no longer
 * listed, and an entry reports a failure exactly while its last fetch failed.
 *
 * Nothing leaves the process: the fetch is an in-memory web, the clock a TestClock. The
 * outbound rates are opened wide (their own tests are elsewhere) and each card is on a host
 * of its own; a host still backs off after two failures in a row, so a card that is due is
 * fetched for sure only while its host has failed at most once since its last good answer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DirectoryClient } from '../../src/directory';
import { RegistryClient } from '../../src/registry';
import type { RegistryStatus } from '../../src/registry';
import { TestClock } from '../directory/client-fixtures';

const REGISTRY = 'https://registry.example/bots.txt';
const CARDS = 4;
const cardUrl = (i: number): string => `https://c${i}.example/card`;
const MIN_INTERVAL_MS = 60_000;
const MAX_INTERVAL_MS = 3_600_000;
const CARD_MAX_AGE_S = 120;

type CardMode = 'ok' | 'refused' | 'down';
const step = fc.record({
  advanceSeconds: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 59 }), fc.integer({ min: 60, max: 4000 })),
  // What the registry answers from now on: a list of cards, or an outage.
  registry: fc.option(fc.oneof(fc.subarray([0, 1, 2, 3]), fc.constant('down' as const)), { freq: 2 }),
  // Changes to cards: a new version, or another mode.
  cards: fc.array(
    fc.record({ i: fc.integer({ min: 0, max: CARDS - 1 }), mode: fc.constantFrom<CardMode>('ok', 'ok', 'refused', 'down'), bump: fc.boolean() }),
    {
      maxLength: 3,
    },
  ),
});

interface Fetch {
  readonly at: number;
  readonly ok: boolean;
}

describe('RegistryClient polling, whatever the registry and its cards answer', () => {
  it('property: cards wait out freshness and back-off, the listing keeps the last good copy of listed cards only, and failures are reported exactly while they last', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        const clock = new TestClock();
        let listed: number[] | 'down' = [0, 1];
        const mode: CardMode[] = Array.from({ length: CARDS }, () => 'ok');
        const version = Array.from({ length: CARDS }, () => 1);
        const fetches = new Map<string, Fetch[]>();
        let registryFetches = 0;
        let registryAnswered = false;
        const record = (url: string, ok: boolean): void => {
          const list = fetches.get(url) ?? [];
          list.push({ at: clock.t, ok });
          fetches.set(url, list);
        };
        const registryBody = (cards: number[]): string => cards.map((i) => `${cardUrl(i)}\n`).join('');
        const fetch = async (url: string, init: RequestInit): Promise<Response> => {
          const ifNoneMatch = (init.headers as Record<string, string>)['if-none-match'];
          if (url === REGISTRY) {
            registryFetches++;
            registryAnswered = listed !== 'down';
            if (listed === 'down') return new Response(null, { status: 503 });
            const body = registryBody(listed);
            const etag = `"${body.length}-${listed.join('.')}"`;
            if (ifNoneMatch === etag) return new Response(null, { status: 304, headers: { etag, 'cache-control': 'max-age=300' } });
            return new Response(body, { status: 200, headers: { etag, 'content-type': 'text/plain', 'cache-control': 'max-age=300' } });
          }
          const i = Array.from({ length: CARDS }, (_, k) => k).find((k) => cardUrl(k) === url);
          if (i === undefined) throw new TypeError('in-memory fetch: no route (nothing was sent)');
          const m = mode[i]!;
          record(url, m === 'ok');
          if (m === 'down') return new Response(null, { status: 503 });
          const etag = `"${m}-${version[i]}"`;
          const headers = { etag, 'content-type': 'application/json', 'cache-control': `max-age=${CARD_MAX_AGE_S}` };
          if (ifNoneMatch === etag) return new Response(null, { status: 304, headers });
          // A refused card: its client_id is not the URL it was fetched from.
          const card = { client_id: m === 'ok' ? url : `${url}/other`, client_name: `c${i} v${version[i]}` };
          return new Response(JSON.stringify(card), { status: 200, headers });
        };
        const directory = new DirectoryClient({
          fetch,
          now: clock.now,
          random: () => 1,
          limits: { fetchesPerSecond: 100_000, fetchesPerSitePerSecond: 100_000, newHostsPerSitePerMinute: 1000 },
        });
        const client = new RegistryClient({ url: REGISTRY, directory, now: clock.now });

        // The model: what a listed card was last seen as (its name; undefined before its first good read).
        let registry: number[] | undefined;
        const lastGood = new Map<number, string | undefined>();
        const failedNow = new Set<number>();
        // Per listed card: failures in a row, and when it is due again (its freshness or its back-off).
        const inARow = new Map<number, number>();
        const dueAt = new Map<number, number>();
        // Per card host (one per card): failures in a row, which outlive the entry (the host's back-off is the budget's).
        const hostInARow = new Map<number, number>();
        const forgotten: [string, Fetch[]][] = [];
        try {
          for (const s of steps) {
            clock.advance(s.advanceSeconds);
            if (s.registry !== null) listed = s.registry;
            for (const c of s.cards) {
              mode[c.i] = c.mode;
              if (c.bump) version[c.i]!++;
            }
            const before = new Map([...fetches].map(([u, l]) => [u, l.length]));
            const registryBefore = registryFetches;
            const status: RegistryStatus = await client.refresh();

            // The registry: a good answer replaces the list; an outage (or its host's back-off) keeps it.
            if (registryFetches > registryBefore && registryAnswered && listed !== 'down') {
              for (const i of registry ?? []) {
                if (listed.includes(i)) continue;
                // A card no longer listed is forgotten: listed again, it is a new entry, fetched at once.
                lastGood.delete(i);
                failedNow.delete(i);
                inARow.delete(i);
                dueAt.delete(i);
                const history = fetches.get(cardUrl(i));
                if (history !== undefined) forgotten.push([cardUrl(i), history]);
                fetches.delete(cardUrl(i));
              }
              registry = [...listed];
            }
            for (const i of registry ?? []) {
              const url = cardUrl(i);
              const list = fetches.get(url) ?? [];
              const fetched = list.length > (before.get(url) ?? 0);
              // Due, and its host has failed at most once in a row: the refresh fetched it. Due and not
              // fetched (its host backing off after failures in a row): the attempt was refused, a failure too.
              const due = (dueAt.get(i) ?? 0) <= clock.t;
              if (due && (hostInARow.get(i) ?? 0) <= 1) expect(fetched, `card ${i} is due`).toBe(true);
              if (due && !fetched) failedNow.add(i);
              if (fetched) {
                const f = list.at(-1)!;
                if (f.ok) {
                  lastGood.set(i, `c${i} v${version[i]}`);
                  failedNow.delete(i);
                  inARow.set(i, 0);
                  hostInARow.set(i, 0);
                  dueAt.set(i, clock.t + Math.max(MIN_INTERVAL_MS, CARD_MAX_AGE_S * 1000));
                } else {
                  failedNow.add(i);
                  const n = (inARow.get(i) ?? 0) + 1;
                  inARow.set(i, n);
                  hostInARow.set(i, (hostInARow.get(i) ?? 0) + 1);
                  dueAt.set(i, clock.t + Math.min(MAX_INTERVAL_MS, 30_000 * 2 ** (n - 1)));
                }
              }
              // The listing: the last good copy, stale or not; nothing before the first.
              expect(client.lookupAgent(url)?.card?.client_name, `card ${i}`).toBe(lastGood.get(i));
            }
            for (let i = 0; i < CARDS; i++) if (!(registry ?? []).includes(i)) expect(client.lookupAgent(cardUrl(i)), `card ${i} not listed`).toBeUndefined();
            // A failure is reported exactly while the entry's last fetch failed.
            const failing = status.diagnostics.filter((d) => d.code === 'registry-entry-failed').map((d) => d.at);
            const expected = [...failedNow].map((i) => `line ${registry!.indexOf(i) + 1}`);
            expect(failing.sort()).toEqual(expected.sort());
            for (const e of client.entries()) {
              const i = Number(/c(\d)\.example/.exec(e.entry.text)![1]);
              expect(e.error !== undefined, `card ${i} error`).toBe(failedNow.has(i));
            }
          }
        } finally {
          client.close();
        }
        // Fetch after fetch of one card: after a success it waits out its freshness (max-age,
        // at least minIntervalSeconds); after the n-th failure in a row, 30 s doubling.
        for (const [url, list] of [...forgotten, ...fetches]) {
          let inARow = 0;
          for (let k = 1; k < list.length; k++) {
            const prev = list[k - 1]!;
            inARow = prev.ok ? 0 : inARow + 1;
            const wait = prev.ok ? Math.max(MIN_INTERVAL_MS, CARD_MAX_AGE_S * 1000) : Math.min(MAX_INTERVAL_MS, 30_000 * 2 ** (inARow - 1));
            expect(list[k]!.at - prev.at, `${url}: fetch ${k} after ${prev.ok ? 'a success' : `${inARow} failure(s)`}`).toBeGreaterThanOrEqual(wait);
          }
        }
      }),
      { numRuns: 400 },
    );
  });
});
