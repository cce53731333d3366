/**
 * Delegation must not weigh on verifiers that do not use it: the optional
 * `@peculiar/asn1-*` packages are loaded only when `delegation` is configured,
 * and they need no Reflect metadata polyfill (unlike `@peculiar/x509`, which the
 * other delegation tests use to mint certificates). This file imports no
 * certificate helper, so the global Reflect is untouched here.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Jwk } from '../../src/index';
import { DirectoryClient, certificateDelegation } from '../../src/directory';
import { projectVectors } from '../helpers/vectors';
import { closeAllLoopbackServers, startLoopbackServer, type LoopbackServer } from '../helpers/loopback';
import { DIRECTORY_TYPE, member, send, TestClock } from './client-fixtures';

const loads = vi.hoisted(() => ({ x509: 0 }));
vi.mock('@peculiar/asn1-x509', async (importOriginal) => {
  loads.x509++;
  return importOriginal();
});

interface Vectors {
  certificates: { root: { b64: string } };
  vectors: Array<{ id: string; directory?: { keys: Jwk[] } }>;
}
const file = projectVectors<Vectors>('delegation.json');
// The draft's key, without the members that would drop it here: its kid is not the
// thumbprint (see vectors/delegation.json kidNote) and its nbf/exp (2024) lie outside the certificates' 2025–2035.
const { kid: _kid, nbf: _nbf, exp: _exp, ...draftKey } = file.vectors.find((v) => v.id === 'draft-x5c-full-chain')!.directory!.keys[0]!;

const clock = new TestClock();
clock.t = Date.parse('2026-01-01T00:00:00Z');
let srv: LoopbackServer;
beforeAll(async () => {
  srv = await startLoopbackServer((_req, res) =>
    send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=60' }, JSON.stringify({ keys: [draftKey] })),
  );
});
afterAll(() => closeAllLoopbackServers());

const loopback = (input: string, init: RequestInit): Promise<Response> =>
  new URL(input).hostname === '127.0.0.1' ? globalThis.fetch(input, init) : Promise.reject(new Error('test network rule'));

describe('delegation is loaded lazily and needs no Reflect polyfill', () => {
  it('no Reflect metadata polyfill is installed in this test file', () => {
    expect((Reflect as unknown as Record<string, unknown>)['getMetadata']).toBeUndefined();
  });

  it('without delegation, a directory whose key carries x5c resolves and the X.509 packages are never loaded', async () => {
    const c = new DirectoryClient({ now: clock.now, fetch: loopback, allow: { http: true, loopback: true } });
    const r = await c.resolve(member(srv.origin));
    expect(r.keys.map((k) => k.proof)).toEqual(['unsigned']);
    expect(loads.x509).toBe(0);
  });

  it("with delegation, the draft's x5c chain (vectors/delegation.json) is checked with the packages loaded on demand", async () => {
    const c = new DirectoryClient({
      now: clock.now,
      fetch: loopback,
      allow: { http: true, loopback: true },
      delegation: certificateDelegation({ trustAnchors: [file.certificates.root.b64] }),
    });
    const r = await c.resolve(member(srv.origin));
    expect(r.keys.map((k) => [k.proof, k.chain])).toEqual([['delegated', ['CN=sub.example.com', 'CN=example.com']]]);
    expect(loads.x509).toBe(1);
    expect((Reflect as unknown as Record<string, unknown>)['getMetadata']).toBeUndefined();
  });
});
