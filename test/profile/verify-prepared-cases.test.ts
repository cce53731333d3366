/**
 * Pins for the table of prepared options (src/profile/verify/prepared.ts): options are
 * prepared once, so the nonce store an options object owns (a MemoryNonceStore, answering
 * synchronously) remembers nonces across requests (SPEC: a
 * nonce is single-use), and static keys are imported once per options object.
 */
import { describe, expect, it } from 'vitest';
import { MemoryNonceStore, verifyRequest } from '../../src/index';
import type { SigningKey, VerifyRequestOptions } from '../../src/index';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';
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

  it('with no store given, an options object owns a MemoryNonceStore, answering synchronously', async () => {
    const options: VerifyRequestOptions = { keys: [(await keyPair()).publicJwk], now, nonce: { policy: 'required' } };
    expect((await verifyRequest(await signed('owned-store'), options)).outcome).toBe('verified');
    const store = preparedOf(options)!.store;
    expect(store).toBeInstanceOf(MemoryNonceStore);
    // The nonce just verified is recorded: a replay is refused at once, not through a promise.
    expect(store.checkAndRecord((await signing()).thumbprint, 'owned-store', (NOW + 290) * 1000, NOW * 1000)).toBe(false);
    expect(store.checkAndRecord('another scope', 'fresh', (NOW + 290) * 1000, NOW * 1000)).toBe(true);
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
    const k = await importVerifyingKey(pair.publicJwk);
    const keys = new Map([[k.thumbprint, { key: k }]]);
    const prepared = { staticKeys: undefined, pendingKeys: Promise.resolve(keys) } as unknown as Prepared;
    await loadStaticKeys(prepared);
    expect(prepared.staticKeys).toBe(keys);
  });
});
