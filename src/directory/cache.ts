/**
 * Where a `DirectoryClient` keeps the directory responses it fetched (SPEC 2.2
 * rule 5, SPEC 5.3 rule 9). Entries are plain JSON data, so a shared store
 * (Redis) can hold them: the response body and the few header fields that
 * freshness, revalidation and response signatures need. Imported keys never go
 * in here; each client keeps those in process.
 */

/** Header fields a cache entry keeps (lowercase names). */
export const CACHED_HEADER_NAMES = [
  'content-type',
  'cache-control',
  'expires',
  'date',
  'age',
  'etag',
  'last-modified',
  'content-digest',
  'signature',
  'signature-input',
] as const;

/** One stored response. Every member is JSON-serialisable. */
export interface DirectoryCacheEntry {
  /** Entry format version. */
  readonly v: 1;
  /** The URL the body came from (after any permitted redirect). */
  readonly url: string;
  /** The response body exactly as received, decoded as UTF-8 (a byte order mark is kept). */
  readonly body: string;
  /** The header fields a cache entry keeps (`content-type`, `cache-control`, `etag`, `content-digest`, `signature`, …) that the response had; repeated lines joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** When the request was sent (ms since the epoch). */
  readonly requestedAtMs: number;
  /** When the response arrived, or was last revalidated (ms since the epoch). */
  readonly fetchedAtMs: number;
  /** Until when the entry may be used without revalidation (ms since the epoch). */
  readonly freshUntilMs: number;
}

/**
 * A store of directory responses, keyed by an opaque string the client builds
 * from the resource kind and URL. Implementations may drop entries at any time
 * (size bounds, TTLs), but should keep them past `freshUntilMs` when they can: a
 * stale entry still answers when the directory is unreachable (stale-if-error)
 * and carries the validators for a cheap revalidation.
 */
export interface DirectoryCache {
  get(key: string): Promise<DirectoryCacheEntry | undefined>;
  set(key: string, entry: DirectoryCacheEntry): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Options of {@link MemoryDirectoryCache}. */
export interface MemoryDirectoryCacheOptions {
  /** Most entries kept (least recently used dropped first). Default 1,000. */
  readonly maxEntries?: number;
  /** Most body and header characters kept in total. Default 16 MiB. */
  readonly maxChars?: number;
}

/** Default bound on the entries of a {@link MemoryDirectoryCache}. */
export const DEFAULT_DIRECTORY_CACHE_ENTRIES = 1000;
/** Default bound on the characters held by a {@link MemoryDirectoryCache}. */
export const DEFAULT_DIRECTORY_CACHE_CHARS = 16 * 1024 * 1024;

function sizeOf(entry: DirectoryCacheEntry): number {
  let n = entry.body.length + entry.url.length;
  for (const name of Object.keys(entry.headers)) n += name.length + (entry.headers[name]?.length ?? 0);
  return n;
}

function checkEntry(entry: DirectoryCacheEntry): void {
  if (
    typeof entry !== 'object' ||
    entry === null ||
    entry.v !== 1 ||
    typeof entry.url !== 'string' ||
    typeof entry.body !== 'string' ||
    typeof entry.headers !== 'object' ||
    entry.headers === null ||
    typeof entry.fetchedAtMs !== 'number' ||
    typeof entry.requestedAtMs !== 'number' ||
    typeof entry.freshUntilMs !== 'number'
  ) {
    throw new TypeError('not a DirectoryCacheEntry');
  }
}

/**
 * The default {@link DirectoryCache}: an in-process map bounded by entry count
 * and total size, least recently used first out. Entries are frozen on the way
 * in, so callers cannot change what is stored.
 *
 * @example
 * const client = new DirectoryClient({ cache: new MemoryDirectoryCache({ maxEntries: 10_000 }) });
 */
export class MemoryDirectoryCache implements DirectoryCache {
  private readonly map = new Map<string, { entry: DirectoryCacheEntry; size: number }>();
  private readonly maxEntries: number;
  private readonly maxChars: number;
  private chars = 0;

  /** @throws TypeError when a bound is not a positive integer. */
  constructor(options: MemoryDirectoryCacheOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('MemoryDirectoryCache options must be an object');
    const { maxEntries = DEFAULT_DIRECTORY_CACHE_ENTRIES, maxChars = DEFAULT_DIRECTORY_CACHE_CHARS } = options;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
    if (!Number.isSafeInteger(maxChars) || maxChars < 1) throw new TypeError('maxChars must be a positive integer');
    this.maxEntries = maxEntries;
    this.maxChars = maxChars;
  }

  /** Number of entries held. */
  get size(): number {
    return this.map.size;
  }

  get(key: string): Promise<DirectoryCacheEntry | undefined> {
    const slot = this.map.get(key);
    if (slot === undefined) return Promise.resolve(undefined);
    this.map.delete(key);
    this.map.set(key, slot);
    return Promise.resolve(slot.entry);
  }

  set(key: string, entry: DirectoryCacheEntry): Promise<void> {
    if (typeof key !== 'string') throw new TypeError('key must be a string');
    checkEntry(entry);
    this.remove(key);
    const frozen = Object.freeze({ ...entry, headers: Object.freeze({ ...entry.headers }) });
    const size = sizeOf(frozen);
    if (size > this.maxChars) return Promise.resolve();
    this.map.set(key, { entry: frozen, size });
    this.chars += size;
    while (this.map.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.map.keys().next();
      if (oldest.done === true) break;
      this.remove(oldest.value);
    }
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.remove(key);
    return Promise.resolve();
  }

  /** Drops every entry. */
  clear(): void {
    this.map.clear();
    this.chars = 0;
  }

  private remove(key: string): void {
    const slot = this.map.get(key);
    if (slot === undefined) return;
    this.map.delete(key);
    this.chars -= slot.size;
  }
}

// Fleet-wide refresh coordination: an optional extension a shared cache (RedisDirectoryCache) implements.

/** Options of {@link CoordinatedDirectoryCache.acquireRefresh}. */
export interface DirectoryRefreshOptions {
  /** How long the lock lives if its holder never releases it (crash): about the fetch timeout. */
  readonly lockTtlMs: number;
  /** Longest total wait for another process's result before fetching anyway. */
  readonly maxWaitMs: number;
  /** Whether an entry found in the shared cache saves the fetch (typically: still fresh). */
  readonly usable: (entry: DirectoryCacheEntry) => boolean;
}

/**
 * The answer of {@link CoordinatedDirectoryCache.acquireRefresh}: either a usable
 * entry another process stored (do not fetch), or the go-ahead to fetch: store
 * the result with `set` (or `delete` it), then call `release`, also on failure.
 */
export type DirectoryRefreshTicket =
  { readonly entry: DirectoryCacheEntry; readonly release?: undefined } | { readonly entry?: undefined; readonly release: () => Promise<void> };

/**
 * A {@link DirectoryCache} that can coordinate refreshes across processes, so a
 * cold or expired directory is fetched once for the whole fleet. A client that
 * finds `acquireRefresh` on its cache calls it before fetching.
 */
export interface CoordinatedDirectoryCache extends DirectoryCache {
  /**
   * Takes the short fleet-wide lock for `key`, or waits (polling the cache, at
   * most `maxWaitMs`) for the process holding it to store a usable entry. Never
   * rejects: when the shared store is unavailable, or the wait runs out, the
   * ticket says "fetch" (without a fleet-wide lock).
   */
  acquireRefresh(key: string, options: DirectoryRefreshOptions): Promise<DirectoryRefreshTicket>;
}
