/**
 * NonceTable (the nonce set of one scope in MemoryNonceStore, issue 16): whatever is
 * done with it, it answers what a Map<string, number> answers, with the store's hash,
 * with hashes that collide a lot (long runs, runs that wrap around the end of the
 * table, deletions inside runs) and with keys crafted to collide (the table becomes a
 * Map and goes on answering the same).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PROBE, NonceTable, nonceHash, nonceSeed, type NonceHash } from '../../src/profile/nonce-table';

type Op = { op: 'set'; key: string; value: number } | { op: 'has' | 'delete'; key: string } | { op: 'clear' | 'max' | 'size' };

function run(table: NonceTable | Map<string, number>, ops: readonly Op[]): unknown[] {
  const seen: unknown[] = [];
  for (const o of ops) {
    switch (o.op) {
      case 'set':
        seen.push(table.set(o.key, o.value) === table);
        break;
      case 'has':
        seen.push(table.has(o.key));
        break;
      case 'delete':
        seen.push(table.delete(o.key));
        break;
      case 'clear':
        table.clear();
        break;
      case 'max':
        if (table instanceof NonceTable) seen.push(table.maxValue());
        else seen.push(Math.max(Number.NEGATIVE_INFINITY, ...table.values()));
        break;
      case 'size':
        seen.push(table.size);
        break;
    }
    seen.push(table.size);
  }
  return seen;
}

// Keys from a small pool (repeats, deletions of present keys), some long, one non-ASCII.
const key = fc.oneof(
  fc.integer({ min: 0, max: 40 }).map((n) => `n${n}`),
  fc.constantFrom('', 'a', 'é', '\u{1F600}', 'x'.repeat(87), 'y'.repeat(512)),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('set' as const), key, value: fc.integer({ min: -5, max: 1e6 }) }), weight: 6 },
  { arbitrary: fc.record({ op: fc.constantFrom('has' as const, 'delete' as const), key }), weight: 5 },
  { arbitrary: fc.record({ op: fc.constantFrom('max' as const, 'size' as const) }), weight: 1 },
  { arbitrary: fc.constant({ op: 'clear' as const }), weight: 1 },
);

const hashes: Array<[string, NonceHash]> = [
  ['the store hash', nonceHash],
  // Three homes at most: long runs, wrapping around the end of small tables.
  ['a hash with three values', (k) => 5 + (k.length % 3) * 8],
  // Homes near the end of every table size: runs wrap around.
  ['a hash near the end', (k) => -1 - ((k.charCodeAt(1) || 0) % 4)],
];

describe('NonceTable answers what a Map answers', () => {
  for (const [name, hash] of hashes) {
    it(`random operations, ${name}`, () => {
      fc.assert(
        fc.property(fc.array(op, { maxLength: 200 }), fc.integer(), (ops, seed) => {
          expect(run(new NonceTable(seed, hash), ops)).toEqual(run(new Map(), ops));
        }),
        { numRuns: 300 },
      );
    });
  }

  it('thousands of keys, inserted and deleted in another order, keep their values', () => {
    const table = new NonceTable(nonceSeed());
    const map = new Map<string, number>();
    const keys = Array.from({ length: 5000 }, (_, i) => `nonce-${(i * 7919) % 5000}-${i}`);
    keys.forEach((k, i) => {
      table.set(k, i);
      map.set(k, i);
    });
    expect(table.size).toBe(5000);
    expect(table.degraded).toBe(false);
    // Every other key deleted, from the end: deletions inside runs shift entries back.
    for (let i = keys.length - 1; i >= 0; i -= 2) expect(table.delete(keys[i]!)).toBe(map.delete(keys[i]!));
    for (const k of keys) expect(table.has(k), k).toBe(map.has(k));
    expect(table.maxValue()).toBe(Math.max(...map.values()));
    // Down to a few keys (the table shrinks), then empty.
    for (const k of keys) table.delete(k);
    expect(table.size).toBe(0);
    expect(table.maxValue()).toBe(Number.NEGATIVE_INFINITY);
    table.set('again', 3);
    expect(table.has('again')).toBe(true);
  });

  it('the hash of one key is computed once for has then set', () => {
    let calls = 0;
    const table = new NonceTable(1, (k, s) => {
      calls++;
      return nonceHash(k, s);
    });
    expect(table.has('n1')).toBe(false);
    table.set('n1', 1);
    expect(calls).toBe(1);
    // Another string with the same characters is the same key.
    expect(table.has(['n', '1'].join(''))).toBe(true);
    table.set('n2', 2);
    expect(calls).toBe(2);
  });
});

describe('keys crafted to collide', () => {
  // 2^8 keys that collide whatever the seed: in each of 8 disjoint couples of adjacent
  // code-unit pairs, the top bit of both pairs' second code unit flipped or not (an XOR of
  // 2^31 before a multiplication by an odd number is the same XOR after it).
  const colliding = Array.from({ length: 256 }, (_, bits) => {
    let key = '';
    for (let couple = 0; couple < 8; couple++) {
      const flip = (bits >> couple) & 1 ? 0x8000 : 0;
      key += 'a' + String.fromCharCode(0x62 ^ flip) + 'c' + String.fromCharCode(0x64 ^ flip);
    }
    return key;
  });

  it('with the store hash, keys that collide whatever the seed make the table a Map, which answers the same', async () => {
    const seed = nonceSeed();
    expect(new Set(colliding.map((k) => nonceHash(k, seed))).size).toBe(1);
    const table = new NonceTable(seed);
    colliding.forEach((k, i) => table.set(k, i));
    expect(table.degraded).toBe(true);
    expect(table.size).toBe(256);
    for (const k of colliding) expect(table.has(k)).toBe(true);
    // And through the store: every one recorded once, each a replay the second time.
    const { MemoryNonceStore } = await import('../../src/profile/memory-nonce-store');
    const store = new MemoryNonceStore();
    for (const k of colliding) expect(store.checkAndRecord('agent', k, 2000, 1000)).toBe(true);
    for (const k of colliding) expect(store.checkAndRecord('agent', k, 2000, 1000)).toBe(false);
    expect(store.heldBy('agent')).toBe(256);
    // They expire like any other.
    expect(store.checkAndRecord('agent', colliding[0]!, 3000, 2000)).toBe(true);
    expect(store.heldBy('agent')).toBe(1);
  });

  it('turn the table into a Map holding the same entries, which goes on answering the same', () => {
    const same = () => 7;
    const table = new NonceTable(0, same);
    const map = new Map<string, number>();
    const keys = Array.from({ length: MAX_PROBE + 40 }, (_, i) => `k${i}`);
    keys.forEach((k, i) => {
      table.set(k, i);
      map.set(k, i);
      // A key may land MAX_PROBE slots past its home: one more makes it a Map.
      expect(table.degraded, k).toBe(i > MAX_PROBE);
    });
    expect(table.size).toBe(map.size);
    for (const k of keys) expect(table.has(k)).toBe(true);
    expect(table.has('absent')).toBe(false);
    expect(table.maxValue()).toBe(keys.length - 1);
    // The largest value is not the last one set.
    table.set('early', keys.length + 5);
    table.set('late', 1);
    expect(table.maxValue()).toBe(keys.length + 5);
    expect(table.delete('early')).toBe(true);
    expect(table.delete('late')).toBe(true);
    expect(table.set('k3', 99)).toBe(table);
    expect(table.delete('k3')).toBe(true);
    expect(table.delete('k3')).toBe(false);
    expect(table.size).toBe(keys.length - 1);
    // Cleared, it is a table again.
    table.clear();
    expect(table.degraded).toBe(false);
    expect(table.size).toBe(0);
    table.set('k0', 1);
    expect(table.has('k0')).toBe(true);
  });

  it('the store hash depends on the seed, on every character and on the length', () => {
    const a = 'x'.repeat(86);
    expect(new Set([1, 2, 3, 4].map((s) => nonceHash(a, s))).size).toBe(4);
    const edits = new Set(Array.from({ length: 86 }, (_, i) => nonceHash(a.slice(0, i) + 'y' + a.slice(i + 1), 9)).concat(nonceHash(a, 9)));
    expect(edits.size).toBe(87);
    // 0 marks an empty slot: a key that would hash to 0 gets 1 (the empty key under seed 0 does).
    expect(nonceHash('', 0)).toBe(1);
    // Seeds: 32-bit integers, a new one for each store.
    const seeds = Array.from({ length: 8 }, () => nonceSeed());
    for (const s of seeds) expect(s | 0).toBe(s);
    expect(new Set(seeds).size).toBeGreaterThan(1);
    expect(nonceHash('ab', 9)).not.toBe(nonceHash('ab\u0000', 9));
    expect(nonceHash('a', 9)).not.toBe(nonceHash('a\u0000', 9));
    // Never 0 (an empty slot), here over many keys.
    for (let i = 0; i < 20000; i++) expect(nonceHash(`k${i}`, i)).not.toBe(0);
  });
});
