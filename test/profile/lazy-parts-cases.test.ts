/**
 * Pins for the lazily loaded parts of verification (src/profile/verify/lazy-parts.ts) and
 * the table of prepared options (src/profile/verify/prepared.ts) (issue 20): the default
 * nonce store is a MemoryNonceStore made with the options it is given, answering through
 * a promise until it has loaded and synchronously after (its documented contract); the
 * lazy key import is `importVerifyingKey`; options are prepared once, so the nonce store
 * an options object owns remembers nonces across requests (SPEC: a nonce is single-use),
 * and a key that cannot be imported fails each request with a TypeError naming the option.
 */
import { describe, expect, it } from 'vitest';
import { isBotsigError, verifyRequest } from '../../src/index';
import type { SigningKey, VerifyRequestOptions } from '../../src/index';
import { importSigningKey, signMessage } from '../../src/httpsig';
import { DefaultNonceStore, importVerifyingKeyLazily } from '../../src/profile/verify/lazy-parts';
import { loadStaticKeys, preparedOf, rememberPrepared } from '../../src/profile/verify/prepared';
import type { Prepared } from '../../src/profile/verify/state';
import { keyPair, T0 } from '../profile/helpers';

const NOW = T0 + 1000;
const now = (): number => NOW * 1000;

let key: Promise<SigningKey> | undefined;
const signing = (): Promise<SigningKey> => (key ??= keyPair().then((p) => importSigningKey(p.privateJwk)));

async function signed(nonce: string): Promise<{ method: string; url: string; headers: Record<string, string> }> {
  const k = await signing();
  const req = { method: 'GET', url: 'https://example.com/', headers: {} as Record<string, string> };
  const params = { created: NOW - 10, expires: NOW + 290, keyid: k.thumbprint, tag: 'web-bot-auth', nonce };
  const out = await signMessage(req, { key: k, label: 'sig1', components: ['@authority'], params });
  return { ...req, headers: out.headers };
}

describe('DefaultNonceStore: a MemoryNonceStore made on the first check', () => {
  it('answers through a promise until loaded, then synchronously, remembering nonces across both', async () => {
    const store = new DefaultNonceStore({});
    const first = store.checkAndRecord('scope', 'n1', 10_000, 1_000);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(true);
    // Loaded: the memory store answers synchronously (a replay is false).
    expect(store.checkAndRecord('scope', 'n1', 10_000, 2_000)).toBe(false);
    expect(store.checkAndRecord('scope', 'n2', 10_000, 2_000)).toBe(true);
    // The nonce expired: it may be seen again.
    expect(store.checkAndRecord('scope', 'n1', 20_000, 11_000)).toBe(true);
  });

  it('checks made while it loads share the one store', async () => {
    const store = new DefaultNonceStore({});
    const a = store.checkAndRecord('scope', 'same', 10_000, 1_000);
    const b = store.checkAndRecord('scope', 'same', 10_000, 1_000);
    expect([await a, await b]).toEqual([true, false]);
  });

  it('is made with the options it is given (here a capacity of one nonce)', async () => {
    const store = new DefaultNonceStore({ capacityBytes: 800 });
    expect(await store.checkAndRecord('scope', 'n1', 10_000, 1_000)).toBe(true);
    let code: string | undefined;
    try {
      await store.checkAndRecord('scope', 'n2', 10_000, 1_000);
    } catch (err) {
      code = isBotsigError(err) ? err.code : String(err);
    }
    expect(code).toBe('ERR_NONCE_QUOTA_EXCEEDED');
  });
});

describe('importVerifyingKeyLazily is importVerifyingKey, its module loaded on first use', () => {
  it('imports a public JWK and refuses a shared-secret one', async () => {
    const pair = await keyPair();
    const k = await importVerifyingKeyLazily(pair.publicJwk);
    expect(k.alg).toBe('ed25519');
    expect(k.thumbprint).toBe((await signing()).thumbprint);
    await expect(importVerifyingKeyLazily({ kty: 'oct', k: 'c2VjcmV0' })).rejects.toMatchObject({ code: 'ERR_ALG_NOT_ALLOWED' });
  });
});

describe('prepared options: one Prepared per options object', () => {
  it('an options object is prepared on its first use and keeps its default nonce store: a replay is refused', async () => {
    const options: VerifyRequestOptions = { keys: [(await keyPair()).publicJwk], now, nonce: { policy: 'required' } };
    expect(preparedOf(options)).toBeUndefined();
    const req = await signed('replayed-nonce');
    const first = await verifyRequest(req, options);
    expect(first.outcome).toBe('verified');
    expect(preparedOf(options)).toBeDefined();
    const again = await verifyRequest(req, options);
    expect(again.outcome).toBe('invalid');
    expect(again.signatures[0]!.error?.code).toBe('ERR_NONCE_REPLAYED');
    // Another options object owns another store.
    const fresh: VerifyRequestOptions = { ...options };
    expect((await verifyRequest(req, fresh)).outcome).toBe('verified');
  });

  it('rememberPrepared / preparedOf keep one entry per options object', () => {
    const a: VerifyRequestOptions = {};
    const b: VerifyRequestOptions = {};
    const prepared = { staticKeys: new Map() } as unknown as Prepared;
    rememberPrepared(a, prepared);
    expect(preparedOf(a)).toBe(prepared);
    expect(preparedOf(b)).toBeUndefined();
  });

  it('loadStaticKeys sets the keys its pending import gives', async () => {
    const pair = await keyPair();
    const k = await importVerifyingKeyLazily(pair.publicJwk);
    const keys = new Map([[k.thumbprint, { key: k }]]);
    const prepared = { staticKeys: undefined, pendingKeys: Promise.resolve(keys) } as unknown as Prepared;
    await loadStaticKeys(prepared);
    expect(prepared.staticKeys).toBe(keys);
  });
});
