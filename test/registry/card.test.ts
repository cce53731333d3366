/**
 * Signature Agent Cards (draft-meunier-webbotauth-registry): parseSignatureAgentCard on
 * Cloudflare's card vectors and on what the draft refuses, drops and ignores; the card
 * handler; and cards served on 127.0.0.1 resolved by the DirectoryClient (type=cimd),
 * unsigned and signed, with the card carried on the verification result.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isBotsigError, verifyRequest } from '../../src/index';
import type { VerifyingKey, SigningKey } from '../../src/index';
import { DirectoryClient, verifyDirectoryResponse } from '../../src/directory';
import { createSignatureAgentCardHandler, parseSignatureAgentCard } from '../../src/registry';
import type { ParseSignatureAgentCardOptions } from '../../src/registry';
import { importVerifyingKey, signMessage } from '../../src/httpsig';
import { closeAllLoopbackServers, startFetchHandlerServer, startLoopbackServer } from '../helpers/loopback';
import { cloudflareVectors } from '../helpers/vectors';
import { member, send, TestClock, testKey } from '../directory/client-fixtures';
import { expectCode } from '../helpers/errors';
import { placedDiagnosticCodes as codes } from '../helpers/errors';

afterEach(closeAllLoopbackServers);

function refusal(input: unknown, options?: ParseSignatureAgentCardOptions): string {
  try {
    parseSignatureAgentCard(input, options);
  } catch (error) {
    if (isBotsigError(error) && error.code === 'ERR_CARD_INVALID') return error.message;
    throw error;
  }
  throw new Error('the card was accepted');
}

/**
 * A request naming a card with the earlier drafts' `;type=cimd` member. botsig's signer no
 * longer sends typed members (draft -01), so it is signed at the RFC 9421 level; verifiers
 * read it only with `typedSignatureAgent`.
 */
async function signedAsCimd(request: { method: string; url: string }, key: SigningKey, cardUrl: string, now: () => number): Promise<Record<string, string>> {
  const created = Math.floor(now() / 1000);
  const agent = `sig1="${cardUrl}";type=cimd`;
  const signed = await signMessage(
    { ...request, headers: { 'signature-agent': agent } },
    {
      key,
      label: 'sig1',
      components: ['@authority', '"signature-agent";key="sig1"'],
      params: { created, keyid: key.thumbprint, alg: key.alg, expires: created + 300, tag: 'web-bot-auth' },
    },
  );
  return { 'signature-agent': agent, ...signed.headers };
}

describe('Cloudflare card vectors (vectors/cloudflare-web-bot-auth/test_data/web_bot_auth_signature_agent_card_v1.json)', () => {
  type CardVector = { name: string; url: string; valid: boolean; error?: string; card: Record<string, unknown> };
  const vectors = cloudflareVectors<CardVector[]>('test_data/web_bot_auth_signature_agent_card_v1.json')!;
  it('has valid and invalid cases', () => {
    expect(vectors.some((v) => v.valid)).toBe(true);
    expect(vectors.some((v) => !v.valid)).toBe(true);
  });
  for (const v of vectors) {
    it(`${v.name}: ${v.valid ? 'accepted' : `refused (${v.error})`}`, () => {
      if (!v.valid) {
        expect(refusal(v.card, { url: v.url })).toContain(v.error);
        return;
      }
      const { card, keys, diagnostics } = parseSignatureAgentCard(JSON.stringify(v.card), { url: v.url });
      expect(diagnostics.filter((d) => d.level === 'error')).toEqual([]);
      expect(card.client_id).toBe(v.url);
      expect(card.client_name).toBe(v.card['client_name']);
      if (v.card['web_bot_auth'] !== undefined) expect(card.web_bot_auth).toEqual(v.card['web_bot_auth']);
      if (v.card['contacts'] !== undefined) expect(card.contacts).toEqual(v.card['contacts']);
      if (v.card['jwks_uri'] !== undefined) expect(card.jwks_uri).toBe(v.card['jwks_uri']);
      if (v.card['jwks'] !== undefined) {
        expect(keys).toHaveLength((v.card['jwks'] as { keys: unknown[] }).keys.length);
        expect(card.jwks?.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
      }
    });
  }
});

describe('parseSignatureAgentCard: what the draft refuses', () => {
  const url = 'https://example.com/bot';
  it('no parameter at all ("There MUST be at least one parameter set"), not an object, not JSON, not UTF-8, too large', () => {
    expect(refusal({})).toContain('at least one');
    expect(refusal('[]')).toContain('not a JSON object');
    expect(refusal('{')).toContain('not JSON');
    expect(refusal(new Uint8Array([0x7b, 0xff, 0x7d]))).toContain('UTF-8');
    expect(refusal(JSON.stringify({ client_name: 'x'.repeat(100) }), { maxBytes: 64 })).toContain('larger than 64');
  });

  it('fetched from a URL: client_id is required and must be that URL, by simple string comparison (as given or as fetched)', () => {
    expect(refusal({ jwks_uri: 'https://example.com/k' }, { url })).toContain('no client_id');
    expect(refusal({ client_id: 'https://EXAMPLE.com/bot', jwks_uri: 'https://example.com/k' }, { url })).toContain('must match');
    expect(refusal({ client_id: 'https://example.com/bot/', jwks_uri: 'https://example.com/k' }, { url })).toContain('must match');
    // The WHATWG serialisation of the URL fetched counts as the URL fetched.
    expect(
      parseSignatureAgentCard({ client_id: 'https://example.com/', jwks_uri: 'https://example.com/k' }, { url: 'https://example.com' }).card.client_id,
    ).toBe('https://example.com/');
  });

  it('client_id and jwks_uri must be https URLs (http only with allowHttp); a card must not have both jwks and jwks_uri', () => {
    expect(refusal({ client_id: 'http://example.com/bot' })).toContain('client_id');
    expect(refusal({ client_id: 42 })).toContain('client_id');
    expect(refusal({ jwks_uri: 'http://example.com/k' })).toContain('jwks_uri');
    expect(refusal({ jwks_uri: 'not a url' })).toContain('jwks_uri');
    expect(refusal({ jwks_uri: 'https://user:pw@example.com/k' })).toContain('jwks_uri');
    expect(parseSignatureAgentCard({ client_id: 'http://127.0.0.1/bot', jwks_uri: 'http://127.0.0.1/k' }, { allowHttp: true }).card.jwks_uri).toBe(
      'http://127.0.0.1/k',
    );
    expect(refusal({ jwks: { keys: [] }, jwks_uri: 'https://example.com/k' })).toContain('both jwks and jwks_uri');
  });

  it('jwks must be a JWK Set; its keys go through the directory rules (a private key is dropped with a diagnostic)', async () => {
    expect(refusal({ jwks: [] })).toContain('jwks');
    expect(refusal({ jwks: { keys: 'x' } })).toContain('jwks');
    const a = await testKey();
    const { keys, diagnostics, card } = parseSignatureAgentCard({ jwks: { keys: [a.privateJwk, a.publicJwk] } });
    expect(keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
    expect(codes(diagnostics)).toContain('keys[0]: private-key-material');
    expect(card.jwks?.keys).toHaveLength(1);
    expect(card.jwks?.keys[0]).not.toHaveProperty('d');
  });
});

describe('parseSignatureAgentCard: members dropped, ignored and kept', () => {
  it('a known member of the wrong type is dropped with card-member-invalid; the card stays usable', () => {
    const { card, diagnostics } = parseSignatureAgentCard({
      client_name: 5,
      contacts: ['mailto:a@example.com', 7, 'mailto:b@example.com'],
      logo_uri: 'https://example.com/logo.png',
      web_bot_auth: { 'rfc9309-compliance': 'yes', 'known-urls': '/', 'expected-user-agent': ['A/1', 'B/*'], 'rate-expectation': 'avg=10rps;max=100rps' },
      jwks_uri: 'https://example.com/k',
    });
    expect(card).toEqual({
      logo_uri: 'https://example.com/logo.png',
      contacts: ['mailto:a@example.com', 'mailto:b@example.com'],
      jwks_uri: 'https://example.com/k',
      web_bot_auth: { 'expected-user-agent': ['A/1', 'B/*'], 'rate-expectation': 'avg=10rps;max=100rps' },
    });
    expect(codes(diagnostics)).toEqual([
      'client_name: card-member-invalid',
      'contacts[1]: card-member-invalid',
      'web_bot_auth.rfc9309-compliance: card-member-invalid',
      'web_bot_auth.known-urls: card-member-invalid',
    ]);
  });

  it('trigger other than fetcher / crawler: card-value-unknown; ips_uri not https: card-uri-not-https (an error, the member dropped)', () => {
    const { card, diagnostics } = parseSignatureAgentCard({ client_name: 'X', web_bot_auth: { trigger: 'sometimes', ips_uri: 'http://example.com/ips.json' } });
    expect(card.web_bot_auth).toEqual({});
    expect(codes(diagnostics)).toEqual(['web_bot_auth.trigger: card-value-unknown', 'web_bot_auth.ips_uri: card-uri-not-https', ': card-no-keys']);
    expect(diagnostics.find((d) => d.code === 'card-uri-not-https')?.level).toBe('error');
  });

  it('unknown members are ignored, at the top and in web_bot_auth; purpose may be a string or an array; web_bot_auth not an object is dropped', () => {
    const { card } = parseSignatureAgentCard({
      client_name: 'X',
      redirect_uris: ['https://x'],
      web_bot_auth: { purpose: ['search', 'ai-input'], 'future-thing': 1 },
    });
    expect(card).toEqual({ client_name: 'X', web_bot_auth: { purpose: ['search', 'ai-input'] } });
    const dropped = parseSignatureAgentCard({ client_name: 'X', web_bot_auth: [] });
    expect(dropped.card.web_bot_auth).toBeUndefined();
    expect(codes(dropped.diagnostics)).toContain('web_bot_auth: card-member-invalid');
  });

  it('the card is frozen, arrays included; long strings and long arrays are bounded', () => {
    const { card, diagnostics } = parseSignatureAgentCard({
      client_name: 'x'.repeat(3000),
      contacts: Array.from({ length: 300 }, (_, i) => `mailto:${i}@example.com`),
      web_bot_auth: { purpose: 'search' },
    });
    expect(card.client_name).toBeUndefined();
    expect(card.contacts).toHaveLength(256);
    expect(Object.isFrozen(card)).toBe(true);
    expect(Object.isFrozen(card.contacts)).toBe(true);
    expect(Object.isFrozen(card.web_bot_auth)).toBe(true);
    expect(codes(diagnostics)).toContain('client_name: card-member-invalid');
    expect(codes(diagnostics)).toContain('contacts[256…]: card-member-invalid');
  });
});

describe('createSignatureAgentCardHandler', () => {
  const clientId = 'https://bot.example/card';
  async function keysOf(body: string): Promise<Map<string, VerifyingKey>> {
    const parsed = parseSignatureAgentCard(body, { url: clientId });
    const keys = new Map<string, VerifyingKey>();
    for (const k of parsed.keys) keys.set(k.thumbprint, await importVerifyingKey(k.jwk));
    return keys;
  }

  it('serves the card at its client_id path: JSON, ETag, Cache-Control, Content-Digest and one signature per key, which verify', async () => {
    const [a, b] = [await testKey(), await testKey()];
    const handler = createSignatureAgentCardHandler({
      card: { client_id: clientId, client_name: 'Example Bot', web_bot_auth: { purpose: 'search', trigger: 'fetcher' } },
      keys: [a.privateJwk, b.signing],
    });
    const res = await handler(new Request(clientId));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('cache-control')).toBe('max-age=300, no-transform');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9+/=]+"$/);
    const body = await res.text();
    const card = JSON.parse(body) as { jwks: { keys: Array<{ kid: string }> } };
    expect(card.jwks.keys.map((k) => k.kid).sort()).toEqual([a.thumbprint, b.thumbprint].sort());
    const check = await verifyDirectoryResponse({ url: clientId, status: 200, headers: res.headers, body }, { keys: await keysOf(body) });
    expect([...check.proofs.keys()].sort()).toEqual([a.thumbprint, b.thumbprint].sort());
    expect(check.digestValid).toBe(true);
    // A card served for another authority would not verify there.
    const elsewhere = await verifyDirectoryResponse(
      { url: 'https://evil.example/card', status: 200, headers: res.headers, body },
      { keys: await keysOf(body) },
    );
    expect(elsewhere.proofs.size).toBe(0);

    const again = await handler(new Request(clientId, { headers: { 'if-none-match': res.headers.get('etag')! } }));
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const head = await handler(new Request(clientId, { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('404 elsewhere, 405 for other methods, 204 for OPTIONS, 421 for another authority (a forged Host gets no signature)', async () => {
    const handler = createSignatureAgentCardHandler({ card: { client_id: clientId, client_name: 'X' } });
    expect((await handler(new Request('https://bot.example/other'))).status).toBe(404);
    expect((await handler(new Request(clientId, { method: 'POST', body: 'x' }))).status).toBe(405);
    expect((await handler(new Request(clientId, { method: 'OPTIONS' }))).status).toBe(204);
    expect((await handler(new Request('https://evil.example/card'))).status).toBe(421);
    const unsigned = await handler(new Request(clientId));
    expect(unsigned.status).toBe(200);
    expect(unsigned.headers.get('signature')).toBeNull();
  });

  it('refuses at creation what it cannot publish: no client_id, an invalid card, keys with a jwks_uri card', async () => {
    const a = await testKey();
    expect(() => createSignatureAgentCardHandler({ card: { client_name: 'X' } })).toThrow(/client_id is required/);
    expect(() => createSignatureAgentCardHandler({ card: { client_id: clientId, jwks: {}, jwks_uri: 'https://bot.example/k' } })).toThrow(TypeError);
    expect(() => createSignatureAgentCardHandler({ card: { client_id: clientId, jwks_uri: 'https://bot.example/k' }, keys: [a.privateJwk] })).toThrow(
      /jwks_uri/,
    );
    // The option checks the directory handler makes, with the same messages.
    const card = { client_id: clientId };
    expect(() => createSignatureAgentCardHandler({ card, authorities: [] })).toThrow(TypeError);
    expect(() => createSignatureAgentCardHandler({ card, authorities: ['bot.example/x'] })).toThrow(
      new TypeError('options.authorities must be host or host:port values'),
    );
    expect(() => createSignatureAgentCardHandler({ card, label: 'Card' })).toThrow(new TypeError('options.label must be a Structured Field key (e.g. "card")'));
    expect(() => createSignatureAgentCardHandler({ card, maxAgeSeconds: 1.5 })).toThrow(new TypeError('options.maxAgeSeconds must be an integer >= 0'));
  });

  it('an RFC 9421 example key does not sign a card unless allowTestKeys (ERR_KEY_TEST_KEY)', async () => {
    // RFC 9421 Appendix B.1.4, test-key-ed25519: its private half is public.
    const key = cloudflareVectors<Record<string, string>>('rfc9421-keys/ed25519.json')!;
    const { d: _private, ...publicJwk } = key;
    const card = { client_id: clientId, jwks: { keys: [publicJwk] } };
    await expectCode(createSignatureAgentCardHandler({ card, keys: [key as never] })(new Request(clientId)), 'ERR_KEY_TEST_KEY');
    const allowed = await createSignatureAgentCardHandler({ card, keys: [key as never], allowTestKeys: true })(new Request(clientId));
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('signature-input')).toContain('tag="http-message-signatures-directory"');
  });

  it('a signing key missing from the jwks given rejects every request (ERR_CARD_INVALID): verifiers would refuse such a card', async () => {
    const [a, b] = [await testKey(), await testKey()];
    const handler = createSignatureAgentCardHandler({ card: { client_id: clientId, jwks: { keys: [b.publicJwk] } }, keys: [a.privateJwk] });
    await expectCode(handler(new Request(clientId)), 'ERR_CARD_INVALID');
  });
});

describe('cards on 127.0.0.1 through the DirectoryClient (type=cimd)', () => {
  const client = (clock: TestClock, extra: ConstructorParameters<typeof DirectoryClient>[0] = {}) =>
    new DirectoryClient({ now: clock.now, allow: { http: true, loopback: true }, random: () => 1, ...extra });

  async function signedCardServer(clock: TestClock, card: Record<string, unknown>, keys: Array<Awaited<ReturnType<typeof testKey>>>) {
    let handler: ((r: Request) => Promise<Response>) | undefined;
    const srv = await startFetchHandlerServer((r) => handler!(r));
    handler = createSignatureAgentCardHandler({
      card: { client_id: `${srv.origin}/bot`, ...card },
      keys: keys.map((k) => k.privateJwk),
      allowHttp: true,
      now: clock.now,
    });
    return srv;
  }

  it('a signed card: every key proven, and the card rides on the resolution and on the verified request (result.card)', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const wba = { purpose: 'search', trigger: 'fetcher', 'rfc9309-product-token': 'ExampleBot' };
    const srv = await signedCardServer(clock, { client_name: 'Example Bot', contacts: ['mailto:bots@example.com'], web_bot_auth: wba }, [a]);
    const directory = client(clock);
    const resolution = await directory.resolve(member(`${srv.origin}/bot`, 'cimd'));
    expect(resolution.keys.map((k) => [k.thumbprint, k.proof])).toEqual([[a.thumbprint, 'signed']]);
    expect(resolution.card).toMatchObject({ client_id: `${srv.origin}/bot`, client_name: 'Example Bot', web_bot_auth: wba });

    const request = { method: 'GET', url: 'https://origin.example/page', headers: {} as Record<string, string> };
    const headers = await signedAsCimd(request, a.signing, `${srv.origin}/bot`, clock.now);
    const result = await verifyRequest(
      { ...request, headers: { ...headers } },
      { directory, now: clock.now, allowHttpSignatureAgent: true, typedSignatureAgent: true },
    );
    expect(result.outcome).toBe('verified');
    expect(result.agent).toBe(`${srv.origin}/bot`);
    expect(result.card).toBe(resolution.card);
    expect(result.card?.contacts).toEqual(['mailto:bots@example.com']);
    expect(result.signatures[0]!.card?.web_bot_auth?.purpose).toBe('search');
  });

  it('a card with jwks_uri: the key set is fetched under the same guards, and the card is still on the result', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === '/bot') {
        const card = { client_id: `${srv.origin}/bot`, client_name: 'Far Keys', jwks_uri: `${srv.origin}/keys` };
        return send(res, clock, 200, { 'content-type': 'application/json' }, JSON.stringify(card));
      }
      send(res, clock, 200, { 'content-type': 'application/jwk-set+json' }, JSON.stringify({ keys: [a.publicJwk] }));
    });
    const directory = client(clock);
    const request = { method: 'GET', url: 'https://origin.example/', headers: {} as Record<string, string> };
    const headers = await signedAsCimd(request, a.signing, `${srv.origin}/bot`, clock.now);
    const result = await verifyRequest(
      { ...request, headers: { ...headers } },
      { directory, now: clock.now, allowHttpSignatureAgent: true, typedSignatureAgent: true },
    );
    expect(result.outcome).toBe('verified');
    expect(result.card?.client_name).toBe('Far Keys');
    expect(srv.requests.map((r) => r.path)).toEqual(['/bot', '/keys']);
  });

  it('a signed card whose body was changed after signing is refused (registry draft: reject cards with invalid signatures)', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const signed = await signedCardServer(clock, { client_name: 'Honest Bot' }, [a]);
    const original = await fetch(`${signed.origin}/bot`);
    const headers = Object.fromEntries(original.headers);
    const tampered = JSON.stringify({ ...(JSON.parse(await original.text()) as object), client_name: 'Tampered Bot' });
    // The same client_id (the signed server's URL) cannot be served twice; replay the signed headers at a proxy URL instead.
    const proxy = await startLoopbackServer((_req, res) => {
      const body = tampered.replace(`${signed.origin}/bot`, `${proxy.origin}/bot`);
      send(
        res,
        clock,
        200,
        {
          'content-type': 'application/json',
          'content-digest': headers['content-digest']!,
          signature: headers['signature']!,
          'signature-input': headers['signature-input']!,
        },
        body,
      );
    });
    const error = await client(clock)
      .resolve(member(`${proxy.origin}/bot`, 'cimd'))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isBotsigError(error) && error.code).toBe('ERR_DIRECTORY_INVALID');
    expect((error as Error).message).toMatch(/signature|content-digest/);
  });

  it('an unsigned card with inline keys is accepted (the draft recommends signing, it does not require it), with response-unsigned', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((_req, res) => {
      send(res, clock, 200, { 'content-type': 'application/json' }, JSON.stringify({ client_id: `${srv.origin}/bot`, jwks: { keys: [a.publicJwk] } }));
    });
    const resolution = await client(clock).resolve(member(`${srv.origin}/bot`, 'cimd'));
    expect(resolution.keys.map((k) => k.proof)).toEqual(['unsigned']);
    expect(resolution.diagnostics.map((d) => d.code)).toContain('response-unsigned');
    // requireProof leaves such keys out.
    const strict = await client(clock, { requireProof: true }).resolve(member(`${srv.origin}/bot`, 'cimd'));
    expect(strict.keys).toEqual([]);
    expect(strict.diagnostics.map((d) => d.code)).toContain('key-unproven');
  });

  it('client_id mismatch and both key members are refused with the rule in the message', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      const card =
        req.url === '/mismatch'
          ? { client_id: `${srv.origin}/other`, jwks: { keys: [a.publicJwk] } }
          : { client_id: `${srv.origin}/both`, jwks: { keys: [a.publicJwk] }, jwks_uri: `${srv.origin}/jwks.json` };
      send(res, clock, 200, { 'content-type': 'application/json' }, JSON.stringify(card));
    });
    const c = client(clock);
    await expect(c.resolve(member(`${srv.origin}/mismatch`, 'cimd'))).rejects.toThrow(/client_id must match the card URL/);
    await expect(c.resolve(member(`${srv.origin}/both`, 'cimd'))).rejects.toThrow(/both jwks and jwks_uri/);
  });

  it('a card behind a redirect is refused, even with maxRedirects (registry draft: MUST NOT follow redirects)', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === '/old') return send(res, clock, 301, { location: `${srv.origin}/bot` });
      send(res, clock, 200, { 'content-type': 'application/json' }, JSON.stringify({ client_id: `${srv.origin}/bot`, jwks: { keys: [a.publicJwk] } }));
    });
    await expectCode(client(clock, { limits: { maxRedirects: 3 } }).resolve(member(`${srv.origin}/old`, 'cimd')), 'ERR_DIRECTORY_FETCH');
    expect(srv.requests.map((r) => r.path)).toEqual(['/old']);
    // A directory may still follow a same-site redirect when allowed (the cards' rule is theirs alone).
    const dir = await startLoopbackServer((req, res) => {
      if (req.url === '/.well-known/http-message-signatures-directory') return send(res, clock, 302, { location: '/dir' });
      send(res, clock, 200, { 'content-type': 'application/http-message-signatures-directory+json' }, JSON.stringify({ keys: [a.publicJwk] }));
    });
    const resolved = await client(clock, { limits: { maxRedirects: 1 } }).resolve(member(dir.origin));
    expect(resolved.keys).toHaveLength(1);
  });
});
