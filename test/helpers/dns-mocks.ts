/**
 * Replacements for `node:dns` and `node:dns/promises` in test files that must not ask
 * real DNS (`vi.mock(…, (importOriginal) => …)`): `dns.lookup` that records each name
 * and answers one address or refuses, and a `Resolver` (the guarded fetch's queries)
 * that records each name and answers an A record or refuses.
 */
type LookupCallback = (error: Error | null, addresses?: Array<{ address: string; family: number }>) => void;

/** `node:dns` whose `lookup` records the name in `names` and answers `address` (IPv4), or refuses when it is `undefined`. */
export async function lookupModule(importOriginal: () => Promise<typeof import('node:dns')>, names: string[], address?: string) {
  const real = await importOriginal();
  const lookup = (host: string, ...rest: unknown[]): void => {
    names.push(host);
    const callback = rest[rest.length - 1] as LookupCallback;
    if (address === undefined) callback(new Error('real DNS is switched off in this test file'));
    else callback(null, [{ address, family: 4 }]);
  };
  return { ...real, default: { ...real, lookup }, lookup };
}

/**
 * `node:dns/promises` whose `Resolver` records each name queried in `names` (once, at its
 * A query) and answers
 * `address` as its only A record (no AAAA: `ENODATA`), or refuses every query when it is
 * `undefined`.
 */
export async function resolverModule(importOriginal: () => Promise<typeof import('node:dns/promises')>, names: string[], address?: string) {
  const real = await importOriginal();
  const refused = (): Promise<never> => Promise.reject(new Error('real DNS is switched off in this test file'));
  class Resolver {
    setServers(): void {}
    cancel(): void {}
    resolve4(host: string): Promise<string[]> {
      names.push(host);
      return address === undefined ? refused() : Promise.resolve([address]);
    }
    resolve6(): Promise<string[]> {
      return address === undefined ? refused() : Promise.reject(Object.assign(new Error('no AAAA record'), { code: 'ENODATA' }));
    }
  }
  return { ...real, default: { ...real, Resolver }, Resolver };
}
