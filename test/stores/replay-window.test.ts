/**
 * The verifier's replay window (`nonce.windowSeconds`): a nonce-carrying signature
 * older than the window is stale, and the store is asked to hold a nonce only until
 * min(expires, created + window) + skew. Real signatures on a simulated clock.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_NONCE_WINDOW_SECONDS, type NonceStore, applySignatureHeaders, signRequest, verifyRequest, createVerifier } from '../../src/index';
import { at, keyPair, T0 } from '../profile/helpers';

const NOW = T0 + 1000;

async function signed(options: { created: number; validitySeconds: number; nonce?: string | false }) {
  const pair = await keyPair();
  const req = { method: 'GET', url: 'https://origin.example/', headers: {} as Record<string, string> };
  applySignatureHeaders(
    req.headers,
    await signRequest(req, {
      key: pair.privateJwk,
      signatureAgent: 'https://agent.example',
      now: at(options.created),
      validitySeconds: options.validitySeconds,
      ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
    }),
  );
  return { req, pair };
}

/** A store that records what it is asked. */
function recording(): NonceStore & { calls: Array<[string, string, number, number]> } {
  const calls: Array<[string, string, number, number]> = [];
  return { calls, checkAndRecord: (scope, nonce, expiresAtMs, nowMs) => (calls.push([scope, nonce, expiresAtMs, nowMs]), true) };
}

describe('the replay window', () => {
  it('default 300 s: a nonce of a 1-hour signature is held until created + 300 + skew (60) + 1 s, not until expires', async () => {
    expect(DEFAULT_NONCE_WINDOW_SECONDS).toBe(300);
    const { req, pair } = await signed({ created: NOW, validitySeconds: 3600 });
    const store = recording();
    const r = await verifyRequest(req, { keys: [pair.publicJwk], now: at(NOW + 10), nonce: { store } });
    expect(r.outcome).toBe('verified');
    expect(store.calls).toHaveLength(1);
    expect(store.calls[0]![2]).toBe((NOW + 300 + 60 + 1) * 1000);
  });

  it('a short signature is held until its expiry, as before', async () => {
    const { req, pair } = await signed({ created: NOW, validitySeconds: 30 });
    const store = recording();
    await verifyRequest(req, { keys: [pair.publicJwk], now: at(NOW), nonce: { store } });
    expect(store.calls[0]![2]).toBe((NOW + 30 + 60 + 1) * 1000);
  });

  it('stale: created more than window + skew ago (whole seconds) is refused with ERR_NONCE_STALE before the store is asked; the last second still passes', async () => {
    const { req, pair } = await signed({ created: NOW, validitySeconds: 3600 });
    const store = recording();
    const options = { keys: [pair.publicJwk], nonce: { store } };
    const last = await verifyRequest(req, { ...options, now: () => (NOW + 360) * 1000 + 999 });
    expect(last.outcome).toBe('verified');
    const stale = await verifyRequest(req, { ...options, now: at(NOW + 361) });
    expect(stale.outcome).toBe('invalid');
    expect(stale.signatures[0]!.error?.code).toBe('ERR_NONCE_STALE');
    expect(stale.signatures[0]!.error?.message).toBe('signature "sig1" carries a nonce and was created more than 300 s ago');
    expect(store.calls).toHaveLength(1);
  });

  it('windowSeconds is configurable (createVerifier too) and checked; signatures without a nonce are not bound by it', async () => {
    const { req, pair } = await signed({ created: NOW, validitySeconds: 3600 });
    const store = recording();
    const v = createVerifier({ keys: [pair.publicJwk], now: at(NOW + 200), clockSkewSeconds: 0, nonce: { store, windowSeconds: 120 } });
    expect((await v.verify(req)).signatures[0]!.error?.code).toBe('ERR_NONCE_STALE');
    const w = createVerifier({ keys: [pair.publicJwk], now: at(NOW + 200), clockSkewSeconds: 0, nonce: { store, windowSeconds: 600 } });
    expect((await w.verify(req)).outcome).toBe('verified');
    expect(store.calls[0]![2]).toBe((NOW + 600 + 1) * 1000);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '60']) {
      expect(() => createVerifier({ keys: [pair.publicJwk], nonce: { windowSeconds: bad as never } })).toThrow(/windowSeconds/);
    }
    const bare = await signed({ created: NOW, validitySeconds: 3600, nonce: false });
    const r = await verifyRequest(bare.req, { keys: [bare.pair.publicJwk], now: at(NOW + 3000), nonce: { store } });
    expect(r.outcome).toBe('verified');
  });

  it('policy none: no window', async () => {
    const { req, pair } = await signed({ created: NOW, validitySeconds: 3600 });
    const r = await verifyRequest(req, { keys: [pair.publicJwk], now: at(NOW + 3000), nonce: { policy: 'none' } });
    expect(r.outcome).toBe('verified');
  });
});
