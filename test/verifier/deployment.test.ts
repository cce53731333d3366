/**
 * The process-local nonce warning without a platform probe, then with an injected one
 * (what the Node defaults install): which stores count as living in one process, and
 * that the warning is said once per process. The real node:cluster run is in
 * test/node/cluster.test.ts. (The warned flag is process-wide: one test walks the order.)
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryNonceStore } from '../../src/profile/memory-nonce-store';
import { createVerifier } from '../../src/verifier/create';
import { noncesStayInProcess, setProcessProbe, warnIfNoncesStayInProcess } from '../../src/verifier/deployment';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('noncesStayInProcess', () => {
  it('no store (the verifier makes a memory one) and a MemoryNonceStore stay in the process; policy none, or any other store, do not', () => {
    expect(noncesStayInProcess(undefined)).toBe(true);
    expect(noncesStayInProcess({})).toBe(true);
    expect(noncesStayInProcess({ policy: 'required' })).toBe(true);
    expect(noncesStayInProcess({ store: new MemoryNonceStore() })).toBe(true);
    expect(noncesStayInProcess({ policy: 'none' })).toBe(false);
    expect(noncesStayInProcess({ store: { checkAndRecord: () => true } })).toBe(false);
  });
});

describe('warnIfNoncesStayInProcess', () => {
  it('silent without a probe and outside a cluster worker; in a worker, once per process, naming RedisNonceStore', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // No probe installed (a browser, Workers, Deno without the Node entries): nothing can be said.
    createVerifier({ directory: false });
    warnIfNoncesStayInProcess(true, 'test');
    expect(warn).not.toHaveBeenCalled();

    let info: { clusterWorker?: number } = {};
    setProcessProbe(() => info);
    createVerifier({ directory: false });
    expect(warn).not.toHaveBeenCalled();

    info = { clusterWorker: 3 };
    createVerifier({ directory: false, nonce: { store: { checkAndRecord: () => true } } });
    createVerifier({ directory: false, nonce: { policy: 'none' } });
    expect(warn).not.toHaveBeenCalled();

    createVerifier({ directory: false });
    expect(warn).toHaveBeenCalledTimes(1);
    const message = String(warn.mock.calls[0]![0]);
    expect(message).toContain('botsig (createVerifier): this process is node:cluster worker 3');
    expect(message).toContain('MemoryNonceStore');
    expect(message).toContain('new RedisNonceStore({ client })');

    createVerifier({ directory: false });
    warnIfNoncesStayInProcess(true, 'test');
    expect(warn).toHaveBeenCalledTimes(1);
  });
});
