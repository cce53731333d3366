/**
 * The Durable Objects nonce store (botsig/cloudflare) in workerd, through Miniflare's
 * real Durable Objects implementation: NonceShard runs in workerd; the store talks to
 * it through the namespace binding. It passes the nonce-store conformance suite
 * (capacity per site: one object per site), keeps its nonces across a restart of
 * the runtime (persisted storage), and fails closed when the binding cannot answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableObjectNonceStore, type DurableObjectNamespaceLike } from '../../src/cloudflare';
import { conformance, outcome } from '../stores/conformance';
import { ROOT } from './bundle';

let code: string;
const runtimes: Miniflare[] = [];
const dirs: string[] = [];

async function runtime(options: { capacityBytes?: number; persist?: string } = {}): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    script: code,
    compatibilityDate: '2025-01-01',
    durableObjects: { NONCES: 'NonceShard' },
    bindings: options.capacityBytes === undefined ? {} : { BOTSIG_NONCE_SHARD_CAPACITY_BYTES: String(options.capacityBytes) },
    ...(options.persist === undefined ? {} : { durableObjectsPersist: options.persist }),
  });
  runtimes.push(mf);
  return mf;
}

async function namespace(mf: Miniflare): Promise<DurableObjectNamespaceLike> {
  return (await mf.getDurableObjectNamespace('NONCES')) as unknown as DurableObjectNamespaceLike;
}

beforeAll(async () => {
  const built = await esbuild.build({
    stdin: {
      contents: `export { NonceShard } from './src/cloudflare.ts';\nexport default { fetch() { return new Response('nonce shards'); } };`,
      resolveDir: ROOT,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
  });
  code = built.outputFiles[0]!.text;
}, 60_000);

afterAll(async () => {
  for (const mf of runtimes) await mf.dispose().catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

conformance({
  name: 'DurableObjectNonceStore (workerd, Miniflare)',
  perSite: true,
  // Each run starts a runtime.
  propertyRuns: 4,
  make: async (o) => new DurableObjectNonceStore({ namespace: await namespace(await runtime({ capacityBytes: o.capacityBytes })) }),
  unavailable: async () => {
    const mf = await runtime();
    const store = new DurableObjectNonceStore({ namespace: await namespace(mf), timeoutMs: 1000 });
    // The runtime goes away under the store.
    await mf.dispose();
    return store;
  },
});

describe('DurableObjectNonceStore: restarts and routing', () => {
  it('nonces survive a restart of the runtime (persisted storage): a replay after the restart is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'botsig-do-'));
    dirs.push(dir);
    const now = Date.now();
    const first = await runtime({ persist: dir });
    const store = new DurableObjectNonceStore({ namespace: await namespace(first) });
    const agent = 'https://chatgpt.com/.well-known/http-message-signatures-directory';
    expect(await outcome(store, agent, 'kept-across-restart', now + 300_000, now)).toBe(true);
    await first.dispose();
    const second = await runtime({ persist: dir });
    const again = new DurableObjectNonceStore({ namespace: await namespace(second) });
    expect(await outcome(again, agent, 'kept-across-restart', now + 300_000, now + 1000)).toBe(false);
    expect(await outcome(again, agent, 'new-after-restart', now + 300_000, now + 1000)).toBe(true);
    // Without persistence a new runtime starts empty: the replay is accepted (what a restart without storage costs).
    const bare = new DurableObjectNonceStore({ namespace: await namespace(await runtime()) });
    expect(await outcome(bare, agent, 'kept-across-restart', now + 300_000, now + 1000)).toBe(true);
  });

  it('one object per site: hosts and URLs of one registrable domain share a shard; nonces are scoped by agent', async () => {
    const store = new DurableObjectNonceStore({ namespace: await namespace(await runtime({ capacityBytes: 4096 })) });
    const now = Date.now();
    for (let i = 0; i < 100; i++) await outcome(store, `https://k${i}.flood.example/jwks`, `f${i}`, now + 60_000 + i * 1000, now);
    // The flood rolled over within its own shard: its oldest are refused, never accepted again.
    expect(await outcome(store, 'https://k0.flood.example/jwks', 'f0', now + 60_000, now)).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    // Another site's shard is untouched.
    expect(await outcome(store, 'https://agent.example/jwks', 'f0', now + 60_000, now)).toBe(true);
  });

  it('misuse: a namespace is required; long nonces are refused before any request', async () => {
    expect(() => new DurableObjectNonceStore({} as never)).toThrow(TypeError);
    expect(
      () => new DurableObjectNonceStore({ namespace: { idFromName: () => 1, get: () => ({ fetch: () => Promise.reject(new Error('x')) }) }, timeoutMs: -1 }),
    ).toThrow(TypeError);
    const store = new DurableObjectNonceStore({ namespace: { idFromName: () => 1, get: () => ({ fetch: () => Promise.reject(new Error('down')) }) } });
    expect(await outcome(store, 's', 'n'.repeat(600), 1, 0)).toBe('ERR_NONCE_TOO_LONG');
    expect(await outcome(store, 's', 'n', 1, 0)).toBe('ERR_NONCE_STORE_UNAVAILABLE');
  });
});
