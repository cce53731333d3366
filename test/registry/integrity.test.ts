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
import { recordingFetch, send, signatureHeaders, TestClock, testKey } from '../directory/client-fixtures';
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

describe('operator option errors say what is wrong', () => {
  const url = 'https://registry.example/bots.txt';
  const make =
    (operator: unknown, allowHttp = false) =>
    () =>
      new RegistryClient({ url, operator: operator as never, directory: new DirectoryClient({ allow: { http: allowHttp } }) });
  it('neither an object, nor exactly one of keys and card, nor a non-empty key list, nor a bad key', () => {
    for (const operator of [null, 'x', 7]) expect(make(operator), String(operator)).toThrow(new TypeError('options.operator must be { keys } or { card }'));
    for (const operator of [{}, { keys: [], card: 'x' }]) {
      expect(make(operator), JSON.stringify(operator)).toThrow(new TypeError('options.operator must be { keys } or { card }, not both'));
    }
    for (const operator of [{ keys: [] }, { keys: 'k' }]) {
      expect(make(operator), JSON.stringify(operator)).toThrow(
        new TypeError('options.operator.keys must be a non-empty array of public JWKs or verifying keys'),
      );
    }
    expect(make({ keys: [{ kty: 'oct', k: 'AA' }] })).toThrow(/^options\.operator\.keys\[0\] \S/);
  });

  it('card: an absolute https URL; http only when the directory client allows http; never another scheme', () => {
    const message = new TypeError("options.operator.card must be the absolute https URL of the operator's Signature Agent Card");
    for (const card of ['not a url', 42, 'http://op.example/card', 'ftp://op.example/card']) expect(make({ card }), String(card)).toThrow(message);
    expect(make({ card: 'ftp://op.example/card' }, true)).toThrow(message);
    expect(make({ card: 'data:application/json,{}' }, true)).toThrow(message);
    expect(make({ card: 'https://op.example/card' })).not.toThrow();
    expect(make({ card: 'http://op.example/card' }, true)).not.toThrow();
  });
});

describe('what counts as a signed registry response', () => {
  it('a Signature-Input field alone, or a Signature field alone, marks the response signed', async () => {
    const clock = new TestClock();
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    const unchecked = {
      level: 'warning',
      code: 'registry-signature-unchecked',
      message: 'the registry response is signed, but no operator is configured to check it (options.operator)',
    };
    for (const headers of [{ 'signature-input': 'sig1=("content-digest");created=1' }, { signature: 'sig1=:AAAA:' }]) {
      served.registry = { text: registryText('A'), headers };
      const status = await client(clock, url).refresh();
      expect(status.diagnostics, JSON.stringify(headers)).toContainEqual(unchecked);
    }
    // With an operator, a Signature field alone is judged (and fails), not refused as unsigned.
    const operator = await testKey();
    served.registry = { text: registryText('A'), headers: { signature: 'sig1=:AAAA:' } };
    const judged = await client(clock, url, { operator: { keys: [operator.publicJwk] } }).refresh();
    expect(judged.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(judged.lastError?.message).toMatch(/^no signature of the registry operator verifies/);
  });

  it('signatures with another tag are skipped: their warnings neither name the refusal nor join the listed diagnostics', async () => {
    const clock = new TestClock();
    const operator = await testKey();
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    const text = registryText('A');
    const sign = (tag: string) =>
      signResponse(
        { status: 200, headers: { 'content-type': 'text/plain' }, body: text },
        { key: operator.privateJwk, request: { method: 'GET', url, headers: {} }, components: ['"@authority";req', '"content-digest"'], tag, now: clock.now },
      );
    served.registry = { text, headers: { ...(await sign('something-else')) } };
    const refused = await client(clock, url, { operator: { keys: [operator.publicJwk] } }).refresh();
    expect(refused.lastError).toEqual({ code: 'ERR_REGISTRY_SIGNATURE', message: 'no signature of the registry operator verifies' });

    // The operator's good signature beside one with another tag: listed, and the skipped one is not an error finding.
    const good = await signatureHeaders(text, url, [operator], clock);
    const other = await sign('something-else');
    served.registry = {
      text,
      headers: {
        'content-digest': good['content-digest']!,
        'signature-input': `${good['signature-input']!}, ${other['signature-input']!.replace(/^sig1=/, 'other=')}`,
        signature: `${good['signature']!}, ${other['signature']!.replace(/^sig1=/, 'other=')}`,
      },
    };
    const listed = await client(clock, url, { operator: { keys: [operator.publicJwk] } }).refresh();
    expect(listed).toMatchObject({ loaded: true, entries: 1 });
    expect(listed.lastError).toBeUndefined();
    expect(listed.diagnostics.map((d) => d.code)).not.toContain('response-signature-tag');
  });

  it('two different findings are each named once in the refusal', async () => {
    const clock = new TestClock();
    const [operator, stranger] = [await testKey(), await testKey()];
    const { origin, served } = await serve(clock);
    const url = `${origin}/bots.txt`;
    const text = registryText('A');
    const old = await signatureHeaders(text, url, [operator], clock, { created: clock.seconds - 7200, expires: clock.seconds - 3600 });
    const unknown = await signatureHeaders(text, url, [stranger, stranger], clock);
    served.registry = {
      text,
      headers: {
        'content-digest': old['content-digest']!,
        'signature-input': `${unknown['signature-input']!}, ${old['signature-input']!.replace(/^binding1=/, 'binding3=')}`,
        signature: `${unknown['signature']!}, ${old['signature']!.replace(/^binding1=/, 'binding3=')}`,
      },
    };
    const status = await client(clock, url, { operator: { keys: [operator.publicJwk] } }).refresh();
    expect(status.lastError).toEqual({
      code: 'ERR_REGISTRY_SIGNATURE',
      message: 'no signature of the registry operator verifies (response-signature-unknown-key, response-signature-expired)',
    });
  });
});

describe("the operator's card (over an injected fetch)", () => {
  const REG = 'https://registry.example/bots.txt';
  const CARD = 'https://operator.example/card';
  const json = (body: unknown, maxAge = 600) =>
    new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', 'cache-control': `max-age=${maxAge}` } });

  async function setup(cardAnswer: (operator: TestKey) => Response, maxRedirects = 0) {
    const clock = new TestClock();
    const operator = await testKey();
    const registry = { current: await signed(registryText('A'), REG, [operator], clock) };
    const fetch = recordingFetch({
      [REG]: () => new Response(registry.current.text, { status: 200, headers: { 'content-type': 'text/plain', ...registry.current.headers } }),
      [CARD]: () => cardAnswer(operator),
      'https://operator.example/moved': () => json({ client_id: CARD, jwks: { keys: [operator.publicJwk] } }),
    });
    const directory = new DirectoryClient({ fetch, now: clock.now, random: () => 1, limits: { maxRedirects } });
    const client = new RegistryClient({ url: REG, directory, now: clock.now, minIntervalSeconds: 0, operator: { card: CARD } });
    const cardFetches = () => fetch.mock.calls.filter(([u]) => u === CARD).length;
    return { clock, operator, registry, client, cardFetches };
  }

  it('a card that cannot be fetched, or lists no key, refuses the registry and says which', async () => {
    const missing = await setup(() => new Response(null, { status: 404 }));
    const a = await missing.client.refresh();
    expect(a.loaded).toBe(false);
    expect(a.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(a.lastError?.message).toMatch(/^the operator's card could not be fetched \(ERR_[A-Z_]+\)$/);

    const keyless = await setup(() => json({ client_id: CARD, client_name: 'Operator' }));
    const b = await keyless.client.refresh();
    expect(b.loaded).toBe(false);
    expect(b.lastError).toEqual({ code: 'ERR_REGISTRY_SIGNATURE', message: "the operator's card lists no usable key" });
  });

  it('a key directory or a card without client_id at the card URL is refused as a card', async () => {
    const bodies = [(op: TestKey) => ({ keys: [op.publicJwk] }), (op: TestKey) => ({ client_name: 'Operator', jwks: { keys: [op.publicJwk] } })];
    for (const [i, body] of bodies.entries()) {
      const status = await (await setup((op) => json(body(op)))).client.refresh();
      expect(status.loaded, `body ${i}`).toBe(false);
      expect(status.lastError, `body ${i}`).toEqual({ code: 'ERR_REGISTRY_SIGNATURE', message: "the operator's card is refused (ERR_CARD_INVALID)" });
    }
  });

  it('the card is fetched without following a redirect, even when the directory client follows them elsewhere', async () => {
    const moved = await setup(() => new Response(null, { status: 302, headers: { location: 'https://operator.example/moved' } }), 2);
    const status = await moved.client.refresh();
    expect(status.loaded).toBe(false);
    expect(status.lastError?.message).toMatch(/^the operator's card could not be fetched/);
  });

  it('the card is kept while fresh and fetched again once its max-age has passed, to the millisecond', async () => {
    const s = await setup((op) => json({ client_id: CARD, jwks: { keys: [op.publicJwk] } }));
    expect(await s.client.refresh()).toMatchObject({ loaded: true, entries: 1 });
    expect(s.cardFetches()).toBe(1);
    // A new registry text every time, so that its signature is judged again.
    s.clock.t += 599_999;
    s.registry.current = await signed(registryText('A', 'B'), REG, [s.operator], s.clock);
    expect(await s.client.refresh()).toMatchObject({ entries: 2, stale: false });
    expect(s.cardFetches()).toBe(1);
    s.clock.t += 1;
    s.registry.current = await signed(registryText('A', 'B', 'C'), REG, [s.operator], s.clock);
    expect(await s.client.refresh()).toMatchObject({ entries: 3, stale: false });
    expect(s.cardFetches()).toBe(2);
  });
});
