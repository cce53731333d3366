/**
 * MemoryDirectoryCache, the default DirectoryCache: least recently used out first, bounded
 * by entries and by the characters of bodies, URLs and header fields, entries frozen on the
 * way in. Checked against a plain list as its model, and on its edges.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryDirectoryCache } from '../../src/directory';
import type { DirectoryCacheEntry } from '../../src/directory';

function entry(body: string, headers: Record<string, string> = {}, url = 'https://a.example/d'): DirectoryCacheEntry {
  return { v: 1, url, body, headers, requestedAtMs: 1, fetchedAtMs: 2, freshUntilMs: 3 };
}

/** The characters an entry counts: body, URL, header names and values. */
const charsOf = (e: DirectoryCacheEntry): number => e.body.length + e.url.length + Object.entries(e.headers).reduce((n, [k, v]) => n + k.length + v.length, 0);

describe('MemoryDirectoryCache', () => {
  it('property: behaves like a list kept in order of use, bounded by entries and characters', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('set' as const),
        key: fc.integer({ min: 0, max: 4 }),
        body: fc.string({ maxLength: 12 }),
        etag: fc.option(fc.string({ maxLength: 6 })),
      }),
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 4 }) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 4 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 10, max: 100 }),
        fc.array(op, { maxLength: 60 }),
        async (maxEntries, maxChars, ops) => {
          const cache = new MemoryDirectoryCache({ maxEntries, maxChars });
          // Least recently used first.
          let model: { key: string; entry: DirectoryCacheEntry }[] = [];
          for (const o of ops) {
            const key = `k${o.key}`;
            if (o.kind === 'set') {
              const e = entry(o.body, o.etag === null ? {} : { etag: o.etag }, `https://${key}`);
              await cache.set(key, e);
              model = model.filter((m) => m.key !== key);
              if (charsOf(e) <= maxChars) {
                model.push({ key, entry: e });
                while (model.length > maxEntries || model.reduce((n, m) => n + charsOf(m.entry), 0) > maxChars) model.shift();
              }
            } else if (o.kind === 'get') {
              const i = model.findIndex((m) => m.key === key);
              const got = await cache.get(key);
              if (i < 0) expect(got).toBeUndefined();
              else {
                expect(got).toEqual(model[i]!.entry);
                model.push(...model.splice(i, 1));
              }
            } else {
              await cache.delete(key);
              model = model.filter((m) => m.key !== key);
            }
            expect(cache.size).toBe(model.length);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a read makes an entry the most recently used: the one not read since goes first', async () => {
    const cache = new MemoryDirectoryCache({ maxEntries: 2 });
    await cache.set('a', entry('a'));
    await cache.set('b', entry('b'));
    expect((await cache.get('a'))?.body).toBe('a');
    await cache.set('c', entry('c'));
    expect(await cache.get('b')).toBeUndefined();
    expect((await cache.get('a'))?.body).toBe('a');
    expect((await cache.get('c'))?.body).toBe('c');
  });

  it('stores a frozen copy: the caller changing its object later changes nothing stored', async () => {
    const cache = new MemoryDirectoryCache();
    const headers: Record<string, string> = { etag: '"1"' };
    const e = { ...entry('{"keys":[]}', headers) };
    await cache.set('k', e);
    headers.etag = '"2"';
    (e as { body: string }).body = 'changed';
    const got = (await cache.get('k'))!;
    expect(got.body).toBe('{"keys":[]}');
    expect(got.headers.etag).toBe('"1"');
    expect(Object.isFrozen(got)).toBe(true);
    expect(Object.isFrozen(got.headers)).toBe(true);
  });

  it('an entry larger than maxChars is not kept, and replaces nothing but its own key', async () => {
    const cache = new MemoryDirectoryCache({ maxChars: 40 });
    await cache.set('small', entry('x'));
    await cache.set('big', entry('y'));
    await cache.set('big', entry('z'.repeat(40)));
    expect(await cache.get('big')).toBeUndefined();
    expect((await cache.get('small'))?.body).toBe('x');
    // Exactly maxChars fits.
    const exact = entry('w'.repeat(40 - 'https://a.example/d'.length));
    expect(charsOf(exact)).toBe(40);
    await cache.set('exact', exact);
    expect((await cache.get('exact'))?.body).toBe(exact.body);
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('refuses what is not an entry, and bounds that are not positive integers', async () => {
    const cache = new MemoryDirectoryCache();
    expect(() => cache.set(1 as never, entry('x'))).toThrow(TypeError);
    expect(() => cache.set('k', { ...entry('x'), v: 2 } as never)).toThrow('not a DirectoryCacheEntry');
    expect(() => cache.set('k', { ...entry('x'), headers: null } as never)).toThrow('not a DirectoryCacheEntry');
    expect(() => cache.set('k', null as never)).toThrow('not a DirectoryCacheEntry');
    expect(() => new MemoryDirectoryCache({ maxEntries: 0 })).toThrow('maxEntries must be a positive integer');
    expect(() => new MemoryDirectoryCache({ maxChars: 1.5 })).toThrow('maxChars must be a positive integer');
    expect(() => new MemoryDirectoryCache(null as never)).toThrow(TypeError);
    expect(cache.size).toBe(0);
  });
});
