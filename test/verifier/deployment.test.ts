/**
 * The process-local nonce warning without a platform probe, then with an injected one
 * (what the Node defaults install): which stores count as living in one process, and
 * that the warning is said once per process. The real node:cluster run is in
 * test/node/cluster.test.ts. (The warned flag is process-wide: one test walks the order.)
 */
import { afterEach, expect, it, vi } from 'vitest';
import { MemoryNonceStore, createVerifier } from '../../src/index';
import { warnIfProcessLocalNonces } from '../../src/verifier/create';
import { setProcessProbe, warnIfNoncesStayInProcess } from '../../src/verifier/deployment';

afterEach(() => {
  vi.restoreAllMocks();
});

it('silent without a probe, outside a cluster worker, and for stores that are not in memory; in a worker, once per process, naming RedisNonceStore', () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  // No probe installed (a browser, Workers, Deno without the Node entries): nothing can be said.
  const plain = createVerifier({ directory: false });
  warnIfProcessLocalNonces(plain, 'test');
  warnIfNoncesStayInProcess(true, 'test');
  expect(warn).not.toHaveBeenCalled();

  let info: { clusterWorker?: number } = {};
  setProcessProbe(() => info);
  createVerifier({ directory: false });
  warnIfProcessLocalNonces(plain, 'test');
  expect(warn).not.toHaveBeenCalled();

  info = { clusterWorker: 3 };
  // A store of the caller's own (Redis, anything but MemoryNonceStore), or no nonces at all: not in memory.
  const custom = createVerifier({ directory: false, nonce: { store: { checkAndRecord: () => true } } });
  const none = createVerifier({ directory: false, nonce: { policy: 'none' } });
  warnIfProcessLocalNonces(custom, 'test');
  warnIfProcessLocalNonces(none, 'test');
  expect(warn).not.toHaveBeenCalled();

  createVerifier({ directory: false, nonce: { store: new MemoryNonceStore() } });
  expect(warn).toHaveBeenCalledTimes(1);
  const message = String(warn.mock.calls[0]![0]);
  expect(message).toContain('botsig (createVerifier): this process is node:cluster worker 3');
  expect(message).toContain('MemoryNonceStore');
  expect(message).toContain('new RedisNonceStore({ client })');

  // Once per process, however many verifiers and middlewares follow.
  createVerifier({ directory: false });
  warnIfProcessLocalNonces(plain, 'test');
  expect(warn).toHaveBeenCalledTimes(1);
});
