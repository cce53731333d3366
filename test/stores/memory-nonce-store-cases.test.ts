/**
 * Pins for the memory nonce store (src/profile/memory-nonce-store.ts) that the mutation
 * run showed unpinned (issue 20): its input checks and their messages, what it reports
 * about a scope, the order in which equal expiries surface, and that the largest scope
 * is always found when the store is full (SPEC 5.3 rule 5 with a bounded store: a scope is
 * shed only for a smaller one, and a store is never reported full of one-nonce agents
 * while a larger one could be shed).
 */
import { describe, expect, it } from 'vitest';
import { MemoryNonceStore } from '../../src/profile/memory-nonce-store';

type Answer = boolean | string;
function answer(fn: () => boolean | Promise<boolean>): Answer {
  try {
    return fn() as boolean;
  } catch (error) {
    return (error as { code?: string }).code ?? `${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe('MemoryNonceStore input checks say what is wrong', () => {
  it('options must be an object', () => {
    for (const bad of [null, 'x', 5]) expect(() => new MemoryNonceStore(bad as never)).toThrow(new TypeError('MemoryNonceStore options must be an object'));
  });

  it('now must be a function', () => {
    expect(() => new MemoryNonceStore({ now: 5 as never })).toThrow(new TypeError('now must be a function'));
  });

  it('sizes are positive safe integers; 1 is the smallest', () => {
    const store = new MemoryNonceStore({ maxEntries: 1, maxEntriesPerScope: 1, maxNonceLength: 1, maxScopeLength: 1 });
    expect(store.checkAndRecord('s', 'n', 10, 0)).toBe(true);
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 53]) expect(() => new MemoryNonceStore({ maxNonceLength: bad })).toThrow(RangeError);
  });

  it('scope and nonce must be strings; expiresAtMs and nowMs numbers (not NaN)', () => {
    const store = new MemoryNonceStore();
    const typeError = (fn: () => unknown, message: string): void => expect(fn).toThrow(new TypeError(message));
    typeError(() => store.checkAndRecord(1 as never, 'n', 10, 0), 'scope and nonce must be strings');
    typeError(() => store.checkAndRecord('s', 1 as never, 10, 0), 'scope and nonce must be strings');
    typeError(() => store.checkAndRecord('s', 'n', '10' as never, 0), 'expiresAtMs and nowMs must be numbers');
    typeError(() => store.checkAndRecord('s', 'n', Number.NaN, 0), 'expiresAtMs and nowMs must be numbers');
    typeError(() => store.checkAndRecord('s', 'n', 10, '0' as never), 'expiresAtMs and nowMs must be numbers');
    typeError(() => store.checkAndRecord('s', 'n', 10, Number.NaN), 'expiresAtMs and nowMs must be numbers');
    expect(store.size).toBe(0);
  });

  it('refusals name the limit', () => {
    const store = new MemoryNonceStore({ maxEntries: 4, maxEntriesPerScope: 2, maxNonceLength: 3, maxScopeLength: 5 });
    expect(() => store.checkAndRecord('s', 'nnnn', 10, 0)).toThrow('the nonce is longer than 3 characters');
    expect(() => store.checkAndRecord('ssssss', 'n', 10, 0)).toThrow('the nonce scope is longer than 5 characters');
    store.checkAndRecord('a', '1', 10, 0);
    store.checkAndRecord('a', '2', 10, 0);
    expect(() => store.checkAndRecord('a', '3', 10, 0)).toThrow('this agent already holds 2 unexpired nonces');
  });

  it('a shed scope is told why', () => {
    const store = new MemoryNonceStore({ maxEntries: 3 });
    for (const n of ['1', '2', '3']) store.checkAndRecord('big', n, 10, 0);
    store.checkAndRecord('new', 'n', 10, 0);
    expect(() => store.checkAndRecord('big', 'x', 10, 1)).toThrow('this agent was shed from the full nonce store and is suspended until its nonces expire');
  });

  it('full stores say which case they are in', () => {
    const even = new MemoryNonceStore({ maxEntries: 4 });
    for (const [s, n] of [
      ['a', '1'],
      ['a', '2'],
      ['b', '1'],
      ['b', '2'],
    ])
      even.checkAndRecord(s!, n!, 10, 0);
    expect(() => even.checkAndRecord('a', '3', 10, 1)).toThrow('the nonce store is full and this agent is among those holding the most nonces');
    const ones = new MemoryNonceStore({ maxEntries: 2 });
    ones.checkAndRecord('a', '1', 10, 0);
    ones.checkAndRecord('b', '1', 10, 0);
    expect(() => ones.checkAndRecord('c', '1', 10, 1)).toThrow('the nonce store is full of agents holding one nonce each');
  });
});

describe('what the store reports about a scope', () => {
  it('heldBy is 0 for an unknown scope; suspendedUntil is undefined for a live or unknown one', () => {
    const store = new MemoryNonceStore();
    store.checkAndRecord('live', 'n', 10, 0);
    expect(store.heldBy('unknown')).toBe(0);
    expect(store.heldBy('live')).toBe(1);
    expect(store.suspendedUntil('live')).toBeUndefined();
    expect(store.suspendedUntil('unknown')).toBeUndefined();
  });

  it('a shed scope is suspended until the latest expiry of its nonces, wherever it came in the sequence', () => {
    const store = new MemoryNonceStore({ maxEntries: 3 });
    store.checkAndRecord('big', '1', 100, 0);
    store.checkAndRecord('big', '2', 300, 0);
    store.checkAndRecord('big', '3', 200, 0);
    store.checkAndRecord('new', 'n', 1000, 1);
    expect(store.suspendedUntil('big')).toBe(300);
    expect(answer(() => store.checkAndRecord('big', 'x', 1000, 299))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    expect(store.checkAndRecord('big', 'x', 1000, 300)).toBe(true);
  });
});

describe('equal expiries: a shed scope whose nonces and marker expire together', () => {
  it('any number of them, any heap arrangement: a nonce slot surfacing after the marker (its scope gone) is dropped quietly', () => {
    // Ties pop in heap order, so some of the shed nonces surface after the marker has ended the suspension
    // and removed the scope; each must be recognised as stale, whatever the sizes.
    for (let n = 2; n <= 12; n++) {
      for (let f = 1; f <= 4; f++) {
        const store = new MemoryNonceStore({ maxEntries: n + f });
        for (let i = 0; i < n; i++) store.checkAndRecord('big', `n${i}`, 1000, 0);
        for (let i = 0; i < f; i++) store.checkAndRecord(`f${i}`, 'n', 5000, 0);
        expect(store.checkAndRecord('y', 'n', 5000, 1)).toBe(true); // sheds big: marker until 1000
        expect(store.suspendedUntil('big')).toBe(1000);
        expect(store.checkAndRecord('z', 'n', 5000, 1000)).toBe(true);
        expect(store.suspendedUntil('big')).toBeUndefined();
        expect(store.size).toBe(f + 2);
      }
    }
  });

  it('all of them surface at that time, in whatever order, and the scope can record again', () => {
    const store = new MemoryNonceStore({ maxEntries: 4 });
    for (const n of ['1', '2', '3']) store.checkAndRecord('big', n, 1000, 0);
    store.checkAndRecord('x', 'n', 5000, 0);
    expect(store.checkAndRecord('y', 'n', 5000, 1)).toBe(true); // sheds big: marker until 1000
    expect(store.suspendedUntil('big')).toBe(1000);
    expect(store.checkAndRecord('z', 'n', 5000, 1000)).toBe(true);
    expect(store.suspendedUntil('big')).toBeUndefined();
    expect(store.scopeCount).toBe(3);
    expect(store.size).toBe(3);
    expect(store.checkAndRecord('big', '1', 5000, 1000)).toBe(true);
    expect(store.heldBy('big')).toBe(1);
  });
});

describe('a full store always finds its largest scope (the per-count lists stay whole)', () => {
  it('a scope that grows out of a shared count leaves the others in that count findable (the first linked one grows)', () => {
    const store = new MemoryNonceStore({ maxEntries: 5 });
    for (const [s, n] of [
      ['A', '1'],
      ['A', '2'],
      ['B', '1'],
      ['B', '2'],
      ['A', '3'],
    ])
      expect(store.checkAndRecord(s!, n!, 10_000, 0)).toBe(true);
    expect(store.checkAndRecord('C', 'n', 10_000, 1)).toBe(true); // sheds A (3)
    expect(store.suspendedUntil('A')).toBe(10_000);
    expect(store.checkAndRecord('D', 'n', 10_000, 1)).toBe(true);
    // Full again: B (2) is larger than a newcomer would be (0 + 1): B is shed, not "full of one-nonce agents".
    expect(store.checkAndRecord('E', 'n', 10_000, 1)).toBe(true);
    expect(store.suspendedUntil('B')).toBe(10_000);
  });

  it('a scope in the middle of a count list grows out of it: the head of that list is still found', () => {
    const store = new MemoryNonceStore({ maxEntries: 7 });
    for (const s of ['A', 'B', 'C']) for (const n of ['1', '2']) expect(store.checkAndRecord(s, n, 10_000, 0)).toBe(true);
    expect(store.checkAndRecord('B', '3', 10_000, 0)).toBe(true);
    const shed: string[] = [];
    const shedNow = (): void => {
      for (const s of ['A', 'B', 'C']) if (store.suspendedUntil(s) !== undefined && !shed.includes(s)) shed.push(s);
    };
    expect(store.checkAndRecord('D', 'n', 10_000, 1)).toBe(true); // sheds B (3): 5 entries, then 6
    shedNow();
    expect(store.checkAndRecord('E', 'n', 10_000, 1)).toBe(true); // 7: full
    expect(store.checkAndRecord('F', 'n', 10_000, 1)).toBe(true); // sheds A or C (2 > 0 + 1)
    shedNow();
    expect(store.checkAndRecord('G', 'n', 10_000, 1)).toBe(true); // sheds the other one
    shedNow();
    expect(shed.sort()).toEqual(['A', 'B', 'C']);
    // Now only one-nonce scopes and markers: nothing sheddable.
    expect(answer(() => store.checkAndRecord('H', 'n', 10_000, 1))).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    expect(store.size).toBe(7);
  });

  it('the head of a count list grows out of it, then the next one: neither is found twice', () => {
    const store = new MemoryNonceStore({ maxEntries: 8 });
    for (const s of ['A', 'B', 'C']) for (const n of ['1', '2']) store.checkAndRecord(s, n, 10_000, 0);
    store.checkAndRecord('C', '3', 10_000, 0);
    store.checkAndRecord('B', '3', 10_000, 0);
    const answers: Answer[] = [];
    for (const s of ['D', 'E', 'F', 'G', 'H', 'I', 'J', 'K']) answers.push(answer(() => store.checkAndRecord(s, 'n', 10_000, 1)));
    // B and C (3 each) and A (2) are shed once each, newcomers fill the room, then nothing is sheddable.
    expect(['A', 'B', 'C'].map((s) => store.suspendedUntil(s))).toEqual([10_000, 10_000, 10_000]);
    expect(answers.filter((a) => a === true)).toHaveLength(answers.indexOf('ERR_NONCE_STORE_UNAVAILABLE'));
    expect(answers.at(-1)).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    expect(store.size).toBe(8);
  });
});
