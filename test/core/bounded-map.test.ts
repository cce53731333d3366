import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/core/bounded-map';

describe('BoundedMap', () => {
  it('keeps at most max entries, forgetting the oldest insertion first', () => {
    const m = new BoundedMap<string, number>(3);
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) m.set(k, i);
    expect([...m.keys()]).toEqual(['b', 'c', 'd']);
    expect(m.size).toBe(3);
    m.set('c', 9); // re-setting moves to the young end
    m.set('e', 4);
    expect([...m.keys()]).toEqual(['d', 'c', 'e']);
  });

  it('getRecent and touch make a key the most recent (LRU); get does not', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2);
    m.get('a');
    m.set('c', 3);
    expect(m.has('a')).toBe(false);
    m.getRecent('b');
    m.set('d', 4);
    expect([...m.keys()]).toEqual(['b', 'd']);
    expect(m.touch('b')).toBe(true);
    expect(m.touch('zz')).toBe(false);
    expect([...m.keys()]).toEqual(['d', 'b']);
  });

  it('canEvict protects entries (e.g. in flight); the map grows until one can go', () => {
    const busy = new Set(['a']);
    const m = new BoundedMap<string, string>(1, (v) => !busy.has(v));
    m.set('a', 'a');
    m.set('b', 'b');
    expect([...m.keys()]).toEqual(['a', 'b']);
    busy.clear();
    m.set('c', 'c');
    expect([...m.keys()]).toEqual(['c']);
  });

  it('refuses a size that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new BoundedMap(bad)).toThrow(RangeError);
  });

  it('stays bounded under many distinct keys (an attacker minting keys)', () => {
    const m = new BoundedMap<number, number>(100);
    for (let i = 0; i < 100_000; i++) m.set(i, i);
    expect(m.size).toBe(100);
    expect(m.get(99_999)).toBe(99_999);
  });
});
