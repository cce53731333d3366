/**
 * Registry Integrity (draft-meunier-webbotauth-registry, Security Considerations): a
 * RegistryClient with an `operator` accepts a registry response only when a signature by one
 * of the operator's keys verifies (checked as a directory response signature is); anything
 * else is refused and the last good registry stays. Without an operator, a signed registry
 * is listed with a `registry-signature-unchecked` warning. Registries and the operator's card
 * are served on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { signResponse } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { RegistryClient } from '../../src/registry';
import type { RegistryClientOptions } from '../../src/registry';
import { closeAllLoopbackServers, startLoopbackServer } from '../helpers/loopback';
import { send, signatureHeaders, TestClock, testKey } from '../directory/client-fixtures';
import type { TestKey } from '../directory/client-fixtures';

afterEach(closeAllLoopbackServers);

interface Served {
  /** The registry text and the header fields it is served with (signatures, digest). */
  registry: { text: string; headers: Record<string, string> };
  /** The operator's card at /operator, when set. */
  card?: object;
  registryFetches: number;
  cardFetches: number;
}

async function serve(clock: TestClock): Promise<{ origin: string; served: Served }> {
  const served: Served = { registry: { text: '', headers: {} }, registryFetches: 0, cardFetches: 0 };
  const srv = await startLoopbackServer((req, res) => {
    if (req.url === '/bots.txt') {
      served.registryFetches++;
      return send(res, clock, 200, { 'content-type': 'text/plain', 'cache-control': 'max-age=60', ...served.registry.headers }, served.registry.text);
    }
    if (req.url === '/operator' && served.card !== undefined) {
      served.cardFetches++;
      return send(res, clock, 200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' }, JSON.stringify(served.card));
    }
    send(res, clock, 404, {});
  });
  return { origin: srv.origin, served };
}

function client(clock: TestClock, url: string, extra: Partial<RegistryClientOptions> = {}): RegistryClient {
  const directory = new DirectoryClient({ now: clock.now, allow: { http: true, loopback: true }, random: () => 1 });
  return new RegistryClient({ url, directory, now: clock.now, minIntervalSeconds: 0, ...extra });
}

/** A registry text listing `n` inline cards (data: entries need no fetch). */
function registryText(...names: string[]): string {
  return names.map((n) => `data:application/json,${encodeURIComponent(JSON.stringify({ client_name: n }))}`).join('\n') + '\n';
}

async function signed(text: string, url: string, keys: TestKey[], clock: TestClock, opts: { created?: number; expires?: number } = {}) {
  return { text, headers: await signatureHeaders(text, url, keys, clock, opts) };
}

describe('RegistryClient with an operator ({ keys })', () => {
  it('a registry signed by the operator key is listed; a later text signed by another key is refused and the last good one stays', async () => {
    const clock = new TestClock();
    const [operator, stranger] = [await testKey(), await testKey()];
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    served.registry = await signed(registryText('A', 'B'), url, [operator], clock);
    const registry = client(clock, url, { operator: { keys: [operator.publicJwk] } });
    const first = await registry.refresh();
    expect(first).toMatchObject({ loaded: true, entries: 2, stale: false });
    expect(first.lastError).toBeUndefined();

    served.registry = await signed(registryText('A', 'B', 'C'), url, [stranger], clock);
    clock.advance(120);
    const second = await registry.refresh();
    expect(second).toMatchObject({ loaded: true, entries: 2, stale: true });
    expect(second.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(second.lastError?.message).toContain('response-signature-unknown-key');
  });

  it('the text changed after signing (the digest no longer matches) is refused; the last good registry stays', async () => {
    const clock = new TestClock();
    const operator = await testKey();
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    const good = await signed(registryText('A'), url, [operator], clock);
    served.registry = good;
    const registry = client(clock, url, { operator: { keys: [operator.publicJwk] } });
    expect(await registry.refresh()).toMatchObject({ loaded: true, entries: 1 });
    served.registry = { text: registryText('A', 'Mallory'), headers: good.headers };
    clock.advance(120);
    const status = await registry.refresh();
    expect(status).toMatchObject({ loaded: true, entries: 1, stale: true });
    expect(status.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(status.lastError?.message).toContain('content-digest-mismatch');
    expect(registry.entries().map((e) => e.card?.client_name)).toEqual(['A']);
  });

  it('an unsigned registry is refused; an expired signature is refused; one signed for another authority is refused', async () => {
    const clock = new TestClock();
    const operator = await testKey();
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    const options = { operator: { keys: [operator.publicJwk] } };

    served.registry = { text: registryText('A'), headers: {} };
    const unsigned = await client(clock, url, options).refresh();
    expect(unsigned.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(unsigned.lastError?.message).toContain('not signed');

    served.registry = await signed(registryText('A'), url, [operator], clock, { created: clock.seconds - 7200, expires: clock.seconds - 3600 });
    const expired = await client(clock, url, options).refresh();
    expect(expired.lastError?.message).toContain('response-signature-expired');

    served.registry = await signed(registryText('A'), 'https://registry.example/bots.txt', [operator], clock);
    const elsewhere = await client(clock, url, options).refresh();
    expect(elsewhere.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(elsewhere.loaded).toBe(false);
  });

  it('signed with signResponse as docs/directory.md shows it: listed', async () => {
    const clock = new TestClock();
    const operator = await testKey();
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    const text = registryText('A');
    const headers = await signResponse(
      { status: 200, headers: { 'content-type': 'text/plain' }, body: text },
      {
        key: operator.privateJwk,
        request: { method: 'GET', url, headers: {} },
        components: ['"@authority";req', '"content-digest"'],
        tag: 'http-message-signatures-directory',
        now: clock.now,
      },
    );
    served.registry = { text, headers: { ...headers } };
    const status = await client(clock, url, { operator: { keys: [operator.publicJwk] } }).refresh();
    expect(status).toMatchObject({ loaded: true, entries: 1 });
    expect(status.lastError).toBeUndefined();
  });

  it('one good signature among bad ones is enough; the bad ones are reported; at most 8 are judged', async () => {
    const clock = new TestClock();
    const operator = await testKey();
    const strangers = await Promise.all(Array.from({ length: 9 }, () => testKey()));
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    served.registry = await signed(registryText('A'), url, [strangers[0]!, operator], clock);
    const status = await client(clock, url, { operator: { keys: [operator.publicJwk] } }).refresh();
    expect(status).toMatchObject({ loaded: true, entries: 1 });
    expect(status.diagnostics.map((d) => d.code)).toContain('response-signature-unknown-key');

    // Seven strangers first, the operator eighth: judged, listed.
    served.registry = await signed(registryText('A'), url, [...strangers.slice(0, 7), operator], clock);
    const eighth = await client(clock, url, { operator: { keys: [operator.publicJwk] } }).refresh();
    expect(eighth).toMatchObject({ loaded: true, entries: 1 });

    // Eight strangers first, the operator ninth: the operator's signature is never reached.
    served.registry = await signed(registryText('A'), url, [...strangers.slice(0, 8), operator], clock);
    const flooded = await client(clock, url, { operator: { keys: [operator.publicJwk] } }).refresh();
    expect(flooded).toMatchObject({ loaded: false });
    expect(flooded.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(flooded.lastError?.message).toContain('response-signatures-too-many');
  });

  it('forty copies of a stranger signature before the operator one: refused after 8, no exception', async () => {
    const clock = new TestClock();
    const [operator, stranger] = [await testKey(), await testKey()];
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    const text = registryText('A');
    const one = await signatureHeaders(text, url, [stranger], clock);
    const own = await signatureHeaders(text, url, [operator], clock);
    // The label is not signed (RFC 9421 §2.3): one signature under many labels is many signatures to judge.
    const params = one['signature-input']!.slice('binding1='.length);
    const value = one['signature']!.slice('binding1='.length);
    const labels = Array.from({ length: 40 }, (_, i) => `s${i}`);
    served.registry = {
      text,
      headers: {
        'content-digest': one['content-digest']!,
        'signature-input': [...labels.map((l) => `${l}=${params}`), own['signature-input']!].join(', '),
        signature: [...labels.map((l) => `${l}=${value}`), own['signature']!].join(', '),
      },
    };
    const status = await client(clock, url, { operator: { keys: [operator.publicJwk] } }).refresh();
    expect(status.loaded).toBe(false);
    expect(status.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(status.lastError?.message).toContain('response-signatures-too-many');
    expect(served.registryFetches).toBe(1);
  });
});

describe('RegistryClient with an operator ({ card })', () => {
  it("the operator's card gives the keys; it is fetched once while fresh; a registry signed by a key not in the card is refused", async () => {
    const clock = new TestClock();
    const [operator, stranger] = [await testKey(), await testKey()];
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    served.card = { client_id: `${origin}/operator`, client_name: 'Registry operator', jwks: { keys: [operator.publicJwk] } };
    served.registry = await signed(registryText('A'), url, [operator], clock);
    const registry = client(clock, url, { operator: { card: `${origin}/operator` } });
    expect(await registry.refresh()).toMatchObject({ loaded: true, entries: 1 });
    served.registry = await signed(registryText('A', 'B'), url, [operator], clock);
    clock.advance(120);
    expect(await registry.refresh()).toMatchObject({ entries: 2, stale: false });
    expect(served.cardFetches).toBe(1);

    served.registry = await signed(registryText('A', 'B', 'C'), url, [stranger], clock);
    clock.advance(120);
    const refused = await registry.refresh();
    expect(refused).toMatchObject({ entries: 2, stale: true });
    expect(refused.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
  });

  it('a card whose client_id is another URL or absent, or an unreachable card, refuses the registry (fail closed)', async () => {
    const clock = new TestClock();
    const operator = await testKey();
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    served.registry = await signed(registryText('A'), url, [operator], clock);
    served.card = { client_id: 'https://elsewhere.example/operator', jwks: { keys: [operator.publicJwk] } };
    const wrong = await client(clock, url, { operator: { card: `${origin}/operator` } }).refresh();
    expect(wrong.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(wrong.lastError?.message).toContain('ERR_CARD_INVALID');
    served.card = { client_name: 'Registry operator', jwks: { keys: [operator.publicJwk] } };
    const anonymous = await client(clock, url, { operator: { card: `${origin}/operator` } }).refresh();
    expect(anonymous.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(anonymous.lastError?.message).toContain('ERR_CARD_INVALID');
    const missing = await client(clock, url, { operator: { card: `${origin}/no-such-card` } }).refresh();
    expect(missing.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(missing.loaded).toBe(false);
  });
});

describe('RegistryClient without an operator', () => {
  it('a signed registry is listed with a registry-signature-unchecked warning; an unsigned one without', async () => {
    const clock = new TestClock();
    const someone = await testKey();
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    served.registry = await signed(registryText('A'), url, [someone], clock);
    const signedStatus = await client(clock, url).refresh();
    expect(signedStatus).toMatchObject({ loaded: true, entries: 1 });
    expect(signedStatus.diagnostics.map((d) => d.code)).toContain('registry-signature-unchecked');
    served.registry = { text: registryText('A'), headers: {} };
    const plain = await client(clock, url).refresh();
    expect(plain.diagnostics.map((d) => d.code)).not.toContain('registry-signature-unchecked');
  });
});

describe('operator option checks', () => {
  it('refuses what is neither { keys } nor { card }', () => {
    const url = 'https://registry.example/bots.txt';
    const bad: unknown[] = [
      null,
      'x',
      {},
      { keys: [] },
      { keys: [{ kty: 'oct', k: 'AA' }] },
      { card: 'not a url' },
      { card: 'http://registry.example/op' },
      { keys: [], card: 'x' },
    ];
    for (const operator of bad) {
      expect(() => new RegistryClient({ url, operator: operator as never }), JSON.stringify(operator)).toThrow(TypeError);
    }
  });
});
