/**
 * node-redis and ioredis clients for the Redis tests, configured the way the
 * README recommends for verifiers: no offline queue (fail fast while
 * disconnected) and quick reconnects. Every client made here is closed by
 * {@link closeClients}.
 */
import Redis from 'ioredis';
import { createClient } from 'redis';

export type ClientKind = 'node-redis' | 'ioredis';
export const CLIENT_KINDS: readonly ClientKind[] = ['node-redis', 'ioredis'];

export type NodeRedisClient = ReturnType<typeof createClient>;
export type AnyClient = NodeRedisClient | Redis;

const open = new Set<() => Promise<void>>();

/** A connected node-redis client without an offline queue. */
export async function nodeRedisClient(port: number, extra: { offlineQueue?: boolean } = {}): Promise<NodeRedisClient> {
  const client = createClient({
    socket: { host: '127.0.0.1', port, connectTimeout: 1000, reconnectStrategy: () => 50 },
    disableOfflineQueue: extra.offlineQueue !== true,
  });
  // node-redis emits connection errors as events; unhandled ones would crash the process.
  client.on('error', () => undefined);
  await client.connect();
  open.add(async () => {
    if (client.isOpen) client.destroy();
  });
  return client;
}

/** A connected ioredis client without an offline queue. */
export async function ioredisClient(port: number, extra: { offlineQueue?: boolean; autoPipelining?: boolean } = {}): Promise<Redis> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    enableOfflineQueue: extra.offlineQueue === true,
    enableAutoPipelining: extra.autoPipelining === true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: () => 50,
  });
  client.on('error', () => undefined);
  await client.connect();
  open.add(async () => {
    client.disconnect();
  });
  return client;
}

export function connect(kind: ClientKind, port: number): Promise<AnyClient> {
  return kind === 'node-redis' ? nodeRedisClient(port) : ioredisClient(port);
}

/** Closes every client made by this module. */
export async function closeClients(): Promise<void> {
  const all = [...open];
  open.clear();
  await Promise.all(all.map((close) => close().catch(() => undefined)));
}
