/**
 * One verifier of a fleet, run as a child process by the fleet tests (bundled
 * with esbuild first: plain Node cannot run the TypeScript sources). It connects
 * its own Redis client (node-redis or ioredis, as told), verifies the requests it
 * is sent with a RedisNonceStore (and, when asked, a DirectoryClient over a
 * RedisDirectoryCache), and answers with one outcome per request.
 *
 * Protocol (process IPC): the configuration comes in `BOTSIG_FLEET_CONFIG`
 * (JSON); messages in: `verify`, `ready?`, `stop`; out: `hello`, `results`,
 * `progress`, `ready`.
 */
import Redis from 'ioredis';
import { createClient } from 'redis';
import { verifyRequest } from '../../src/index';
import type { VerifyRequestOptions, Jwk } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { RedisDirectoryCache, RedisNonceStore } from '../../src/redis';
import type { RedisClientInput } from '../../src/redis';
import { installNodeCryptoProvider } from '../../src/node/crypto-provider';

export interface FleetConfig {
  readonly port: number;
  readonly client: 'node-redis' | 'ioredis';
  readonly prefix: string;
  /** Static keys; without them keys come from the directory named by Signature-Agent. */
  readonly keys?: Jwk[];
  readonly timeoutMs?: number;
}

export interface FleetRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
}

export interface FleetOutcome {
  readonly outcome: string;
  readonly code?: string;
}

export type ToWorker =
  | { readonly type: 'verify'; readonly id: number; readonly requests: FleetRequest[]; readonly concurrency?: number; readonly progressEvery?: number }
  | { readonly type: 'ready?'; readonly id: number }
  | { readonly type: 'stop' };

export type FromWorker =
  | { readonly type: 'hello' }
  | { readonly type: 'results'; readonly id: number; readonly results: FleetOutcome[] }
  | { readonly type: 'progress'; readonly id: number; readonly done: number }
  | { readonly type: 'ready'; readonly id: number; readonly ready: boolean };

function send(message: FromWorker): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  installNodeCryptoProvider();
  const config = JSON.parse(process.env.BOTSIG_FLEET_CONFIG ?? '{}') as FleetConfig;
  let client: RedisClientInput;
  let isReady: () => boolean;
  let close: () => Promise<void>;
  // Configured as the README recommends: fail fast while disconnected, reconnect quickly.
  if (config.client === 'node-redis') {
    const c = createClient({ socket: { host: '127.0.0.1', port: config.port, connectTimeout: 1000, reconnectStrategy: () => 50 }, disableOfflineQueue: true });
    c.on('error', () => undefined);
    await c.connect();
    client = c;
    isReady = () => c.isReady;
    close = async () => c.destroy();
  } else {
    const c = new Redis({
      host: '127.0.0.1',
      port: config.port,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      retryStrategy: () => 50,
    });
    c.on('error', () => undefined);
    await c.connect();
    client = c;
    isReady = () => c.status === 'ready';
    close = async () => c.disconnect();
  }

  const store = new RedisNonceStore({ client, prefix: config.prefix + 'nonce:', timeoutMs: config.timeoutMs ?? 1000 });
  const options: VerifyRequestOptions =
    config.keys !== undefined
      ? { keys: config.keys, nonce: { policy: 'required', store } }
      : {
          directory: new DirectoryClient({
            cache: new RedisDirectoryCache({ client, prefix: config.prefix + 'dir:' }),
            allow: { http: true, loopback: true },
          }),
          allowHttpSignatureAgent: true,
          nonce: { policy: 'required', store },
        };

  const verifyOne = async (request: FleetRequest): Promise<FleetOutcome> => {
    const result = await verifyRequest(request, options);
    const code = result.signatures[0]?.error?.code ?? result.error?.code;
    return code === undefined ? { outcome: result.outcome } : { outcome: result.outcome, code };
  };

  process.on('message', (message: ToWorker) => {
    if (message.type === 'stop') {
      void close().finally(() => process.exit(0));
      return;
    }
    if (message.type === 'ready?') {
      send({ type: 'ready', id: message.id, ready: isReady() });
      return;
    }
    const { id, requests } = message;
    const concurrency = message.concurrency ?? requests.length;
    const results: FleetOutcome[] = new Array<FleetOutcome>(requests.length);
    let next = 0;
    let done = 0;
    const lane = async (): Promise<void> => {
      while (next < requests.length) {
        const i = next++;
        results[i] = await verifyOne(requests[i]!);
        done++;
        if (message.progressEvery !== undefined && done % message.progressEvery === 0) send({ type: 'progress', id, done });
      }
    };
    void Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, requests.length)) }, lane)).then(() => send({ type: 'results', id, results }));
  });
  send({ type: 'hello' });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
