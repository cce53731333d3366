/**
 * The in-memory nonce store: the shared conformance suite, and the replay-window
 * targets on a simulated clock (docs/replay.md).
 */
import { describe, expect, it } from 'vitest';
import { MemoryNonceStore, DEFAULT_NONCE_STORE_CAPACITY_BYTES, DEFAULT_NONCE_WINDOW_SECONDS } from '../../src/index';
import { NONCE_ENTRY_OVERHEAD_BYTES } from '../../src/profile/nonce-store';
import { conformance } from './conformance';

conformance({
  name: 'MemoryNonceStore',
  make: (o) => new MemoryNonceStore(o),
  bytes: (s) => (s as MemoryNonceStore).bytes,
});

/** What the verifier asks the store for: held until min(expires, created + window) + skew + 1 s. */
function holdUntilMs(created: number, expires: number, window = DEFAULT_NONCE_WINDOW_SECONDS, skew = 60): number {
  return (Math.min(expires, created + window) + skew + 1) * 1000;
}

const CHATGPT = 'https://chatgpt.com/.well-known/http-message-signatures-directory';
const T0 = 1_767_000_000; // seconds

/** A 64-byte random-looking nonce, base64url (86 characters), like botsig's. */
function nonceOf(i: number, tag = 'n'): string {
  return (tag + i.toString(36) + '.').padEnd(86, 'x');
}

describe('MemoryNonceStore: the replay window at real volume (simulated clock)', () => {
  it('(a) one agent at 20 req/s with 1-hour signatures for an hour: no refusal, memory follows the window', () => {
    const store = new MemoryNonceStore();
    let refused = 0;
    let most = 0;
    for (let i = 0; i < 20 * 3600; i++) {
      const nowMs = T0 * 1000 + i * 50;
      const created = Math.floor(nowMs / 1000);
      if (store.checkAndRecord(CHATGPT, nonceOf(i), holdUntilMs(created, created + 3600), nowMs) !== true) refused++;
      if (store.size > most) most = store.size;
    }
    expect(refused).toBe(0);
    // Held: about 20 × (300 + 61) s, not 20 × 3,600.
    expect(most).toBeLessThanOrEqual(20 * (DEFAULT_NONCE_WINDOW_SECONDS + 62));
    expect(most).toBeGreaterThan(20 * DEFAULT_NONCE_WINDOW_SECONDS);
  });

  it('(a) a default store takes 10,100 requests of one agent within an hour (the old per-agent quota refused 100)', () => {
    const store = new MemoryNonceStore();
    for (let i = 0; i < 10_100; i++) {
      const nowMs = T0 * 1000 + i * 10;
      const created = Math.floor(nowMs / 1000);
      expect(store.checkAndRecord(CHATGPT, nonceOf(i), holdUntilMs(created, created + 3600), nowMs)).toBe(true);
    }
    expect(store.size).toBe(10_100);
  });

  it('(b) 2,000 JWK Set URLs on one attacker host, 50 nonces each, 24-hour signatures: a 20 req/s agent verifies during and after', () => {
    // A small store so that the attack fills it many times over.
    const store = new MemoryNonceStore({ capacityBytes: 4 * 1024 * 1024 });
    const urls = Array.from({ length: 2000 }, (_, i) => `https://keys.attacker.example/${i}/jwks.json`);
    let tried = 0;
    let verified = 0;
    let a = 0;
    // 30 simulated minutes: the attacker sends 2,000 × 50 nonces over the first 10 minutes, the agent 20 req/s throughout.
    for (let tick = 0; tick < 30 * 60 * 20; tick++) {
      const nowMs = T0 * 1000 + tick * 50;
      const now = Math.floor(nowMs / 1000);
      if (tick < 10 * 60 * 20) {
        for (let k = 0; k < 9; k++, a++) {
          if (a >= 100_000) break;
          try {
            store.checkAndRecord(urls[a % 2000]!, nonceOf(a, 'a'), holdUntilMs(now, now + 86_400), nowMs);
          } catch {
            // Refused: the attacker's site is full.
          }
        }
      }
      tried++;
      try {
        if (store.checkAndRecord(CHATGPT, nonceOf(tick), holdUntilMs(now, now + 3600), nowMs)) verified++;
      } catch {
        // Counted as not verified.
      }
      expect(store.bytes).toBeLessThanOrEqual(store.capacityBytes);
    }
    expect(verified).toBe(tried);
    expect(a).toBe(100_000);
  });

  it('the store holds nothing past the window: an hour later it is empty', () => {
    const store = new MemoryNonceStore();
    for (let i = 0; i < 1000; i++) store.checkAndRecord(CHATGPT, nonceOf(i), holdUntilMs(T0, T0 + 3600), T0 * 1000);
    expect(store.size).toBe(1000);
    store.checkAndRecord(CHATGPT, 'late', holdUntilMs(T0 + 3600, T0 + 7200), (T0 + 3600) * 1000);
    expect(store.size).toBe(1);
    expect(store.siteCount).toBe(1);
  });

  it('defaults: 32 MiB, a floor of 1/32; options are checked', () => {
    const store = new MemoryNonceStore();
    expect(store.capacityBytes).toBe(DEFAULT_NONCE_STORE_CAPACITY_BYTES);
    expect(store.siteFloorBytes).toBe(DEFAULT_NONCE_STORE_CAPACITY_BYTES / 32);
    expect(new MemoryNonceStore({ maxEntries: 10 }).capacityBytes).toBe(10 * (NONCE_ENTRY_OVERHEAD_BYTES + 86));
    expect(() => new MemoryNonceStore({ capacityBytes: 0 })).toThrow(RangeError);
    expect(() => new MemoryNonceStore({ capacityBytes: 100, siteFloorBytes: 101 })).toThrow(RangeError);
    expect(() => new MemoryNonceStore({ siteFloorBytes: 1.5 })).toThrow(RangeError);
    expect(() => new MemoryNonceStore(null as never)).toThrow(TypeError);
  });

  it('sites: the registrable domain groups hosts and URLs; a shed site keeps a mark and refuses only its older signatures', () => {
    const store = new MemoryNonceStore({ capacityBytes: 8 * 1024, siteFloorBytes: 1024 });
    const nowMs = T0 * 1000;
    let i = 0;
    for (; store.bytes + 500 < store.capacityBytes; i++) store.checkAndRecord(`https://h${i}.evil.example/k`, nonceOf(i), nowMs + 60_000 + i * 1000, nowMs);
    expect(store.siteCount).toBe(1);
    expect(store.bytesOf('evil.example')).toBe(store.bytes);
    for (let j = 0; j < 20; j++) expect(store.checkAndRecord(CHATGPT, nonceOf(j, 'c'), nowMs + 300_000 + j * 1000, nowMs)).toBe(true);
    const mark = store.shedUntil('evil.example');
    expect(mark).toBeGreaterThan(nowMs);
    expect(store.shedUntil('chatgpt.com')).toBeUndefined();
    expect(() => store.checkAndRecord('https://other.evil.example/k', 'old', mark!, nowMs)).toThrow(/older than nonces/);
    expect(store.checkAndRecord('https://other.evil.example/k', 'new', mark! + 1000, nowMs)).toBe(true);
  });
});
