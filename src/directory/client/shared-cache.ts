/**
 * The shared {@link DirectoryCache} as the client uses it: never fatal (a
 * failing or corrupt cache means "fetch", and the process-local state keeps
 * its keys), and, for a coordinating cache (RedisDirectoryCache), the
 * fleet-wide single flight through `acquireRefresh`.
 */
import type { CoordinatedDirectoryCache, DirectoryCache, DirectoryCacheEntry } from '../cache';
import type { Settings } from './settings';

/** The settings the cache wrappers read. */
type CacheSettings = Pick<Settings, 'cache' | 'now' | 'timeoutMs'>;

const noRelease = (): Promise<void> => Promise.resolve();
/** "Fetch yourself, no fleet-wide lock held". */
const FETCH_UNLOCKED = Object.freeze({ release: noRelease });

export async function cacheGet(s: CacheSettings, key: string): Promise<DirectoryCacheEntry | undefined> {
  try {
    const entry = await s.cache.get(key);
    return isEntry(entry) ? entry : undefined;
  } catch {
    return undefined;
  }
}

export async function cacheSet(s: CacheSettings, key: string, entry: DirectoryCacheEntry): Promise<void> {
  try {
    await s.cache.set(key, entry);
  } catch {
    // The process-local state still has the keys; the next refresh tries again.
  }
}

export async function cacheDelete(s: CacheSettings, key: string): Promise<void> {
  try {
    await s.cache.delete(key);
  } catch {
    // As above.
  }
}

/**
 * Asks a coordinating cache (one with `acquireRefresh`, e.g. RedisDirectoryCache)
 * whether this process should fetch, or can use what another process just
 * stored. Plain caches, and any failure, mean "fetch" (as before).
 */
export async function acquireRefresh(s: CacheSettings, key: string): Promise<{ readonly entry?: DirectoryCacheEntry; readonly release: () => Promise<void> }> {
  const cache = s.cache as DirectoryCache & Partial<Pick<CoordinatedDirectoryCache, 'acquireRefresh'>>;
  if (typeof cache.acquireRefresh !== 'function') return FETCH_UNLOCKED;
  try {
    const ticket = await cache.acquireRefresh(key, {
      // The lock outlives one fetch (the whole exchange is bounded by timeoutMs); waiters give up after one fetch's time.
      lockTtlMs: s.timeoutMs + 1000,
      maxWaitMs: s.timeoutMs,
      usable: (entry) => isEntry(entry) && s.now() < entry.freshUntilMs,
    });
    if (ticket.entry !== undefined) return isEntry(ticket.entry) ? { entry: ticket.entry, release: noRelease } : FETCH_UNLOCKED;
    const release = ticket.release;
    return typeof release === 'function'
      ? {
          release: () =>
            Promise.resolve()
              .then(release)
              .catch(() => undefined),
        }
      : FETCH_UNLOCKED;
  } catch {
    return FETCH_UNLOCKED;
  }
}

/** A well-formed cache entry (version 1): anything else from a shared cache is ignored. */
function isEntry(value: unknown): value is DirectoryCacheEntry {
  if (!isPlainObject(value)) return false;
  const e = value as Partial<DirectoryCacheEntry>;
  return (
    e.v === 1 &&
    typeof e.url === 'string' &&
    typeof e.body === 'string' &&
    isPlainObject(e.headers) &&
    typeof e.fetchedAtMs === 'number' &&
    typeof e.requestedAtMs === 'number' &&
    typeof e.freshUntilMs === 'number'
  );
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
