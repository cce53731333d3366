/**
 * The fleet lock: single flight of a directory refresh across processes, a short
 * Redis lock (`SET … NX PX`) that one process wins while the others poll for its
 * result. Fails open: whatever goes wrong, the caller fetches for itself.
 */
import { base64UrlEncode } from '../../core/base64';
import type { DirectoryCacheEntry, DirectoryRefreshOptions, DirectoryRefreshTicket } from '../../directory/cache';
import type { RedisLike } from './client';
import { attempt, bounded } from './shared';

/** Longest lock lifetime and longest wait for one, in ms. */
export const MAX_LOCK_TTL_MS = 600_000;
const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 100;

/** No lock held: fetch without coordination. */
export const NO_LOCK: DirectoryRefreshTicket = /* @__PURE__ */ Object.freeze({ release: () => Promise.resolve() });

/** What the lock needs of the cache it coordinates. */
export interface FleetLockHost {
  readonly client: RedisLike;
  /** Longest wait for one Redis command; 0 = no limit. */
  readonly timeoutMs: number;
  /** The entry as Redis holds it (rejects when Redis fails). */
  read(key: string): Promise<DirectoryCacheEntry | undefined>;
  /** Keeps an entry Redis gave in the local fallback too (never rejects). */
  keepLocally(key: string, entry: DirectoryCacheEntry): Promise<unknown>;
  /** Records an absorbed Redis failure. */
  failed(error: unknown): void;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function randomToken(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return base64UrlEncode(bytes);
}

/**
 * Waits for, or takes, the refresh lock `lockKey` of the entry `key` (see
 * `RedisDirectoryCache.acquireRefresh`, which checks the options first).
 */
export async function acquireFleetLock(
  host: FleetLockHost,
  key: string,
  lockKey: string,
  lockTtlMs: number,
  maxWaitMs: number,
  isUsable: DirectoryRefreshOptions['usable'],
): Promise<DirectoryRefreshTicket> {
  const usable = (entry: DirectoryCacheEntry | undefined): entry is DirectoryCacheEntry => {
    if (entry === undefined) return false;
    try {
      return isUsable(entry) === true;
    } catch {
      return false;
    }
  };
  const token = randomToken();
  const client = host.client;
  const timeoutMs = host.timeoutMs;
  let waitedMs = 0;
  let delayMs = FIRST_POLL_MS;
  try {
    for (;;) {
      const won = await bounded(
        attempt(() => client.setIfAbsent(lockKey, token, lockTtlMs)),
        timeoutMs,
      );
      if (won) {
        let released = false;
        const release = async (): Promise<void> => {
          if (released) return;
          released = true;
          try {
            await bounded(
              attempt(() => client.delIfEquals(lockKey, token)),
              timeoutMs,
            );
          } catch (error) {
            // The lock expires by itself after lockTtlMs.
            host.failed(error);
          }
        };
        let current: DirectoryCacheEntry | undefined;
        try {
          current = await host.read(key);
        } catch (error) {
          await release();
          throw error;
        }
        if (usable(current)) {
          await release();
          await host.keepLocally(key, current);
          return { entry: current };
        }
        return { release };
      }
      for (;;) {
        if (waitedMs >= maxWaitMs) return NO_LOCK;
        const step = Math.min(delayMs, maxWaitMs - waitedMs);
        await sleep(step);
        waitedMs += step;
        delayMs = Math.min(delayMs * 2, MAX_POLL_MS);
        const [current, holder] = await Promise.all([
          host.read(key),
          bounded(
            attempt(() => client.get(lockKey)),
            timeoutMs,
          ),
        ]);
        if (usable(current)) {
          await host.keepLocally(key, current);
          return { entry: current };
        }
        // The holder finished without a usable entry, or crashed and its lock expired: compete again.
        if (holder === null) break;
      }
    }
  } catch (error) {
    host.failed(error);
    return NO_LOCK;
  }
}
