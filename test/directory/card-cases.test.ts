/**
 * Pins for Signature Agent Cards (issue 20): the card parser (src/directory/card/parse.ts),
 * which card-signature findings refuse a card (src/directory/card/signatures.ts), and how the
 * DirectoryClient resolves a `type=cimd` member (src/directory/client/card.ts). Each test names
 * the rule of draft-meunier-webbotauth-registry it pins (sections as in the draft's source,
 * thibmeu/http-message-signatures-directory, draft-meunier-webbotauth-registry.md):
 * §3 "Signature Agent Card" (at least one parameter; unknown parameters ignored; strings UTF-8),
 * §3.1 "Client Metadata Parameters", §3.1.1 "Client ID" (simple string comparison, RFC 3986
 * §6.2.1), §3.1.2 "JWKS URI" (https; not both with jwks), §3.1.3 "JWKS" (a JWK Set, RFC 7517
 * §5), §3.2 "Web Bot Auth Extension" and its members, §4.1 "CIMD-Based Discovery" (keys from
 * jwks_uri, else jwks), §5 "Security Considerations" (reject cards with invalid signatures).
 *
 * NETWORK RULE for this file: nothing leaves the process. Every DirectoryClient gets a
 * recording fetch that answers from a script (and refuses anything else); with an injected
 * fetch the client makes no DNS lookup of its own.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isBotsigError, importSigningKey } from '../../src/index';
import type { Diagnostic } from '../../src/index';
import { DirectoryClient, DIRECTORY_RESPONSE_TAG } from '../../src/directory';
import type { DirectoryClientOptions } from '../../src/directory';
import { DEFAULT_CARD_MAX_BYTES, parseSignatureAgentCard } from '../../src/registry';
import type { ParseSignatureAgentCardOptions } from '../../src/registry';
import { cardSignatureFailure } from '../../src/directory/card/signatures';
import { rawMember, testKey } from '../directory/client-fixtures';
import { signedCardHeaders } from '../helpers/signed-card';
import type { TestKey } from '../directory/client-fixtures';

let a: TestKey;
let b: TestKey;
beforeAll(async () => {
  [a, b] = [await testKey(), await testKey()];
});

/** The ERR_CARD_INVALID refusal of a card (its message and cause); fails when the card is accepted or another error is thrown. */
function refusal(input: unknown, options?: ParseSignatureAgentCardOptions): { message: string; cause: unknown } {
  try {
    parseSignatureAgentCard(input, options);
  } catch (error) {
    if (isBotsigError(error) && error.code === 'ERR_CARD_INVALID') return { message: error.message, cause: error.cause };
    throw error;
  }
  throw new Error('the card was accepted');
}

const warning = (at: string, message: string, code = 'card-member-invalid'): Diagnostic => ({
  level: 'warning',
  code: code as Diagnostic['code'],
  message,
  at,
});

describe('options (documented TypeErrors)', () => {
  const card = { client_name: 'X' };
  it('options must be an object; url a string; allowHttp a boolean; maxBytes and maxKeys positive integers', () => {
    expect(() => parseSignatureAgentCard(card, null as never)).toThrow(new TypeError('parseSignatureAgentCard options must be an object'));
    expect(() => parseSignatureAgentCard(card, 'x' as never)).toThrow(new TypeError('parseSignatureAgentCard options must be an object'));
    expect(() => parseSignatureAgentCard(card, { url: 5 as never })).toThrow(new TypeError('options.url must be a string'));
    expect(() => parseSignatureAgentCard(card, { allowHttp: 'yes' as never })).toThrow(new TypeError('options.allowHttp must be a boolean'));
    for (const maxBytes of [0, -1, 1.5, Number.NaN, '10' as never]) {
      expect(() => parseSignatureAgentCard(card, { maxBytes })).toThrow(new TypeError('options.maxBytes must be a positive integer'));
    }
    for (const maxKeys of [0, -1, 1.5, Number.NaN, '10' as never]) {
      expect(() => parseSignatureAgentCard(card, { maxKeys })).toThrow(new TypeError('options.maxKeys must be a positive integer'));
    }
  });

  it('1 is a valid maxBytes and maxKeys (the cap applies to text; a parsed value is not measured)', () => {
    expect(parseSignatureAgentCard(card, { maxBytes: 1, maxKeys: 1 }).card).toStrictEqual({ client_name: 'X' });
  });
});

describe('the card as text: size cap, UTF-8, JSON object (§3: a JSON object, strings UTF-8)', () => {
  it('a string of exactly maxBytes UTF-8 bytes is read; one byte more is refused, measured in UTF-8 bytes, not UTF-16 units', () => {
    const text = (name: string): string => JSON.stringify({ client_name: name });
    const overhead = text('').length;
    // ASCII: the string length is the byte count.
    expect(parseSignatureAgentCard(text('x'.repeat(30)), { maxBytes: overhead + 30 }).card.client_name).toBe('x'.repeat(30));
    expect(refusal(text('x'.repeat(31)), { maxBytes: overhead + 30 }).message).toBe(`the card is larger than ${overhead + 30} bytes`);
    // 'é' is 1 UTF-16 unit but 2 UTF-8 bytes: 10 of them are 20 bytes.
    expect(parseSignatureAgentCard(text('é'.repeat(10)), { maxBytes: overhead + 20 }).card.client_name).toBe('é'.repeat(10));
    expect(refusal(text('é'.repeat(10)), { maxBytes: overhead + 19 }).message).toBe(`the card is larger than ${overhead + 19} bytes`);
    // Three times the length above the cap, but the UTF-8 size within it: read.
    expect(parseSignatureAgentCard(text('é'), { maxBytes: overhead + 2 }).card.client_name).toBe('é');
  });

  it('bytes: exactly maxBytes are read, one more refused; bytes that are not UTF-8 are refused with the decoder error as cause', () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ client_name: 'Bot' }));
    expect(parseSignatureAgentCard(bytes, { maxBytes: bytes.length }).card.client_name).toBe('Bot');
    expect(refusal(bytes, { maxBytes: bytes.length - 1 }).message).toBe(`the card is larger than ${bytes.length - 1} bytes`);
    const bad = refusal(new Uint8Array([0x7b, 0xff, 0x7d]));
    expect(bad.message).toBe('the card is not UTF-8');
    expect(bad.cause).toBeInstanceOf(TypeError);
  });

  it('the default cap is 64 KiB', () => {
    expect(DEFAULT_CARD_MAX_BYTES).toBe(65_536);
    const padded = (n: number): string => JSON.stringify({ client_name: 'X', pad: 'x'.repeat(n) });
    const fits = padded(DEFAULT_CARD_MAX_BYTES - padded(0).length);
    expect(fits.length).toBe(DEFAULT_CARD_MAX_BYTES);
    expect(parseSignatureAgentCard(fits).card.client_name).toBe('X');
    expect(refusal(padded(DEFAULT_CARD_MAX_BYTES + 1 - padded(0).length)).message).toBe(`the card is larger than ${DEFAULT_CARD_MAX_BYTES} bytes`);
  });

  it('a leading byte order mark is skipped; text that is not JSON is refused with the parse error as cause', () => {
    expect(parseSignatureAgentCard('\ufeff{"client_name":"Bot"}').card.client_name).toBe('Bot');
    const notJson = refusal('{');
    expect(notJson.message).toBe('the card is not JSON');
    expect(notJson.cause).toBeInstanceOf(SyntaxError);
  });

  it('JSON that is not an object (null, a string, an array) is refused without a cause', () => {
    for (const text of ['null', '"https://example.com/bot"', '[{"client_name":"X"}]']) {
      const r = refusal(text);
      expect(r.message).toBe('the card is not a JSON object');
      expect(r.cause).toBeUndefined();
    }
    expect(refusal(null).message).toBe('the card is not a JSON object');
  });

  it("only the object's own members count: inherited ones are not card parameters", () => {
    const inherited = Object.create({ jwks_uri: 'http://evil.example/k', client_id: 'nope' }) as Record<string, unknown>;
    inherited['client_name'] = 'Own';
    const { card, keys } = parseSignatureAgentCard(inherited);
    expect(card).toStrictEqual({ client_name: 'Own' });
    expect(keys).toEqual([]);
  });
});

describe('client_id (§3.1.1: an https URL, identical to the URL the card was fetched from)', () => {
  it('a client_id that is not a string, longer than 2048 characters, or not an https URL is refused, and the message names the scheme', () => {
    expect(refusal({ client_id: null }).message).toBe('client_id is not an https URL');
    expect(refusal({ client_id: { length: 3 } }).message).toBe('client_id is not an https URL');
    const long = `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`;
    expect(long).toHaveLength(2049);
    expect(refusal({ client_id: long }).message).toBe('client_id is not an https URL');
    expect(parseSignatureAgentCard({ client_id: long.slice(0, 2048) }).card.client_id).toBe(long.slice(0, 2048));
    expect(refusal({ client_id: 'ftp://example.com/bot' }, { allowHttp: true }).message).toBe('client_id is not an http(s) URL');
  });

  it('userinfo is refused, username or password alone included', () => {
    for (const u of ['https://user@example.com/bot', 'https://:pw@example.com/bot']) {
      expect(refusal({ client_id: u }).message).toBe('client_id is not an https URL');
      expect(refusal({ jwks_uri: u }).message).toBe('jwks_uri is not an https URL');
    }
  });

  it('compared with the URL as given or as WHATWG serialises it: "https://example.com" matches itself; an unparsable URL matches nothing else', () => {
    const r = parseSignatureAgentCard({ client_id: 'https://example.com', jwks_uri: 'https://example.com/k' }, { url: 'https://example.com' });
    expect(r.card.client_id).toBe('https://example.com');
    expect(refusal({ client_id: 'https://example.com/bot' }, { url: 'not a url' }).message).toBe(
      'client_id must match the card URL (simple string comparison)',
    );
    // No url option: a card not fetched through its client_id (a data: card) needs none.
    expect(parseSignatureAgentCard({ client_name: 'Inline' }).card).toStrictEqual({ client_name: 'Inline' });
  });
});

describe('jwks_uri and jwks (§3.1.2, §3.1.3)', () => {
  it('jwks_uri must be an https URL of at most 2048 characters (http(s) with allowHttp); a jwks_uri card has no inline keys and no card-no-keys warning', () => {
    expect(refusal({ jwks_uri: null }).message).toBe('jwks_uri is not an https URL');
    expect(refusal({ jwks_uri: { length: 3 } }).message).toBe('jwks_uri is not an https URL');
    expect(refusal({ jwks_uri: 'wss://example.com/k' }, { allowHttp: true }).message).toBe('jwks_uri is not an http(s) URL');
    const long = `https://example.com/${'k'.repeat(2049 - 'https://example.com/'.length)}`;
    expect(refusal({ jwks_uri: long }).message).toBe('jwks_uri is not an https URL');
    const ok = parseSignatureAgentCard({ jwks_uri: long.slice(0, 2048) });
    expect(ok.card).toStrictEqual({ jwks_uri: long.slice(0, 2048) });
    expect(ok.keys).toEqual([]);
    expect(ok.diagnostics).toEqual([]);
  });

  it('jwks must be a JSON object: a string holding a JWK Set, null or an array is refused as is, not parsed', () => {
    for (const jwks of [JSON.stringify({ keys: [] }), null, []]) {
      const r = refusal({ jwks });
      expect(r.message).toBe('jwks is not a JWK Set');
      expect(r.cause).toBeUndefined();
    }
  });

  it('a jwks the directory parser refuses is refused with its reason and the parser error as cause', () => {
    const r = refusal({ jwks: { keys: 'x' } });
    expect(r.message).toMatch(/^jwks is not a JWK Set \(.+\)$/);
    expect(isBotsigError(r.cause)).toBe(true);
  });

  it('an inline key may carry any kid (RFC 7517 §4.5: kid is free-form; no thumbprint rule for a card); maxKeys bounds the keys read', () => {
    const labelled = { ...a.publicJwk, kid: 'my-signing-key' };
    const one = parseSignatureAgentCard({ jwks: { keys: [labelled] } });
    expect(one.keys.map((k) => [k.thumbprint, k.kid])).toEqual([[a.thumbprint, 'my-signing-key']]);
    expect(one.diagnostics).toEqual([]);
    expect(one.card.jwks?.keys).toEqual([labelled]);
    const capped = parseSignatureAgentCard({ jwks: { keys: [a.publicJwk, b.publicJwk] } }, { maxKeys: 1 });
    expect(capped.keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
    expect(capped.diagnostics.map((d) => d.code)).toEqual(['too-many-keys']);
  });

  it('a card with neither jwks nor jwks_uri gets the card-no-keys warning, exactly', () => {
    expect(parseSignatureAgentCard({ client_name: 'X' }).diagnostics).toEqual([
      { level: 'warning', code: 'card-no-keys', message: 'the card has neither jwks nor jwks_uri: it describes an agent but verifies nothing' },
    ]);
  });
});

describe('client metadata members (§3.1; dropped with card-member-invalid when of the wrong type, §3 "unknown ... ignored")', () => {
  it('each member kept as given; members the card does not set are absent, not undefined', () => {
    const full = {
      client_id: 'https://example.com/bot',
      client_name: 'Example Bot',
      client_uri: 'https://example.com/bot/about.html',
      logo_uri: 'https://example.com/logo.png',
      contacts: ['mailto:bot-support@example.com'],
      jwks_uri: 'https://example.com/.well-known/http-message-signatures-directory',
    };
    expect(parseSignatureAgentCard(full, { url: full.client_id }).card).toStrictEqual(full);
    const sparse = parseSignatureAgentCard({ client_name: 'Only' }).card;
    expect(Object.keys(sparse)).toEqual(['client_name']);
  });

  it('the diagnostics say why: not a string; longer than 2048 characters (2048 kept); contacts not an array', () => {
    const at2048 = 'n'.repeat(2048);
    const { card, diagnostics } = parseSignatureAgentCard({
      client_name: at2048,
      client_uri: 42,
      logo_uri: 'l'.repeat(2049),
      contacts: 'mailto:a@example.com',
    });
    expect(card).toStrictEqual({ client_name: at2048 });
    expect(diagnostics.slice(0, 3)).toEqual([
      warning('client_uri', 'not a string; the member is ignored'),
      warning('logo_uri', 'longer than 2048 characters; the member is ignored'),
      warning('contacts', 'not an array of strings; the member is ignored'),
    ]);
  });

  it('array entries: at most 2048 characters each (2048 kept), at most 256 entries (256 kept without a diagnostic)', () => {
    const contacts = ['c'.repeat(2048), 'c'.repeat(2049), 7, ...Array.from({ length: 253 }, (_, i) => `mailto:${i}@example.com`)];
    expect(contacts).toHaveLength(256);
    const { card, diagnostics } = parseSignatureAgentCard({ contacts });
    expect(card.contacts).toHaveLength(254);
    expect(card.contacts?.[0]).toBe('c'.repeat(2048));
    expect(diagnostics.filter((d) => d.code === 'card-member-invalid')).toEqual([
      warning('contacts[1]', 'not a string of at most 2048 characters; the member is ignored'),
      warning('contacts[2]', 'not a string of at most 2048 characters; the member is ignored'),
    ]);
    const over = parseSignatureAgentCard({ contacts: [...contacts.slice(3), 'x', 'y', 'z', 'w'] });
    expect(over.card.contacts).toHaveLength(256);
    expect(over.diagnostics.filter((d) => d.code === 'card-member-invalid')).toEqual([
      warning('contacts[256…]', 'more than 256 entries; the member is ignored'),
    ]);
  });
});

describe('web_bot_auth (§3.2 and its members §3.2.1–§3.2.10)', () => {
  const all = {
    'expected-user-agent': 'Mozilla/5.0 ExampleBot',
    'rfc9309-product-token': 'ExampleBot',
    'rfc9309-compliance': false,
    trigger: 'crawler',
    purpose: 'search',
    'targeted-content': 'Cat pictures',
    'rate-control': '429',
    'rate-expectation': 'avg=10rps;max=100rps',
    'known-urls': ['/', '/robots.txt', '*.png'],
    ips_uri: 'https://example.com/ips.json',
  };

  it("the draft's example members are all kept as given (rfc9309-compliance false included)", () => {
    const { card, diagnostics } = parseSignatureAgentCard({ client_name: 'X', web_bot_auth: all });
    expect(card.web_bot_auth).toStrictEqual(all);
    expect(diagnostics.map((d) => d.code)).toEqual(['card-no-keys']);
    expect(parseSignatureAgentCard({ web_bot_auth: { 'rfc9309-compliance': true } }).card.web_bot_auth).toStrictEqual({ 'rfc9309-compliance': true });
  });

  it('members the card does not set are absent from the parsed metadata (not present as undefined)', () => {
    const m = parseSignatureAgentCard({ web_bot_auth: { 'future-member': 1 } }).card.web_bot_auth;
    expect(m).toStrictEqual({});
    expect(Object.keys(m ?? { missing: true })).toEqual([]);
  });

  it('expected-user-agent and purpose: a string or an array of strings, else dropped with a diagnostic that says so', () => {
    const { card, diagnostics } = parseSignatureAgentCard({
      web_bot_auth: { 'expected-user-agent': 5, purpose: ['search', 'ai-input'], 'known-urls': ['/'] },
    });
    expect(card.web_bot_auth).toStrictEqual({ purpose: ['search', 'ai-input'], 'known-urls': ['/'] });
    expect(Object.isFrozen(card.web_bot_auth?.purpose)).toBe(true);
    expect(diagnostics[0]).toEqual(warning('web_bot_auth.expected-user-agent', 'neither a string nor an array of strings; the member is ignored'));
  });

  it('rfc9309-compliance must be a boolean (§3.2.3); the diagnostic says so', () => {
    const { card, diagnostics } = parseSignatureAgentCard({ web_bot_auth: { 'rfc9309-compliance': 'true' } });
    expect(card.web_bot_auth).toStrictEqual({});
    expect(diagnostics[0]).toEqual(warning('web_bot_auth.rfc9309-compliance', 'not a boolean; the member is ignored'));
  });

  it('a trigger other than fetcher or crawler (§3.2.4) is reported as card-value-unknown, a warning', () => {
    const { card, diagnostics } = parseSignatureAgentCard({ web_bot_auth: { trigger: 'sometimes' } });
    expect(card.web_bot_auth).toStrictEqual({});
    expect(diagnostics[0]).toEqual(warning('web_bot_auth.trigger', 'trigger is neither "fetcher" nor "crawler"; the member is ignored', 'card-value-unknown'));
  });

  it('ips_uri must be https (§3.2.10): otherwise an error diagnostic, the member dropped; http only with allowHttp', () => {
    const { card, diagnostics } = parseSignatureAgentCard({ web_bot_auth: { ips_uri: 'http://example.com/ips.json' } });
    expect(card.web_bot_auth).toStrictEqual({});
    expect(diagnostics[0]).toEqual({
      level: 'error',
      code: 'card-uri-not-https',
      message: 'ips_uri must be an https URL; the member is ignored',
      at: 'web_bot_auth.ips_uri',
    });
    expect(parseSignatureAgentCard({ web_bot_auth: { ips_uri: 'http://127.0.0.1/ips.json' } }, { allowHttp: true }).card.web_bot_auth).toStrictEqual({
      ips_uri: 'http://127.0.0.1/ips.json',
    });
  });

  it('web_bot_auth that is not an object is dropped with card-member-invalid, and the card has no web_bot_auth member at all', () => {
    const { card, diagnostics } = parseSignatureAgentCard({ client_name: 'X', web_bot_auth: 'search' });
    expect(card).toStrictEqual({ client_name: 'X' });
    expect(diagnostics[0]).toEqual(warning('web_bot_auth', 'web_bot_auth is not an object; the member is ignored'));
  });
});

describe('cardSignatureFailure (§3.1.3 and §5: reject a card whose signatures do not verify)', () => {
  it('only an error-level finding of a failed signature or digest refuses the card; the first one is returned', () => {
    const d = (level: Diagnostic['level'], code: string): Diagnostic => ({ level, code: code as Diagnostic['code'], message: code });
    expect(cardSignatureFailure([d('warning', 'response-signature-invalid'), d('warning', 'content-digest-mismatch')])).toBeUndefined();
    expect(cardSignatureFailure([d('warning', 'response-unsigned'), d('error', 'private-key-material')])).toBeUndefined();
    const first = d('error', 'content-digest-mismatch');
    expect(cardSignatureFailure([d('warning', 'response-signature-tag'), first, d('error', 'response-signature-invalid')])).toBe(first);
    expect(cardSignatureFailure([])).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// The DirectoryClient resolving type=cimd members (§4.1), with a scripted, recording fetch.

type Route = () => Response;
function scripted(routes: Record<string, Route>): ((url: string, init?: RequestInit) => Promise<Response>) & { urls: string[] } {
  const urls: string[] = [];
  const fn = (async (url: string) => {
    urls.push(url);
    const route = routes[url];
    if (route === undefined) throw new TypeError('scripted fetch: no route (nothing was sent)');
    return route();
  }) as ((url: string, init?: RequestInit) => Promise<Response>) & { urls: string[] };
  fn.urls = urls;
  return fn;
}

const json =
  (body: unknown, type = 'application/json'): Route =>
  () =>
    new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': type } });
const keySet = (...keys: unknown[]): Route => json({ keys }, 'application/jwk-set+json');

function client(fetch: NonNullable<DirectoryClientOptions['fetch']>): DirectoryClient {
  return new DirectoryClient({ fetch });
}

async function refused(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (error) {
    if (isBotsigError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('DirectoryClient, type=cimd (§4.1)', () => {
  const CARD = 'https://agent.example/bot';

  it("the card's own findings ride on the resolution (a member dropped by the parser is reported there)", async () => {
    const fetch = scripted({ [CARD]: json({ client_id: CARD, client_name: 5, jwks: { keys: [a.publicJwk] } }) });
    const r = await client(fetch).resolve(rawMember(CARD, 'cimd'));
    expect(r.keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
    expect(r.diagnostics.map((d) => `${d.at ?? ''}: ${d.code}`)).toEqual(['client_name: card-member-invalid', ': response-unsigned']);
    expect(r.card).toStrictEqual({ client_id: CARD, jwks: { keys: [a.publicJwk] } });
  });

  it('a signed card whose keys are at jwks_uri is verified with those keys (§5: "If signatures are present, clients MUST verify them")', async () => {
    // Signed as a directory response is (SPEC 5.4), by a third party: botsig's own handler signs only inline keys.
    const text = JSON.stringify({ client_id: CARD, jwks_uri: 'https://keys.example/jwks' });
    const signedHeaders = await signedCardHeaders(text, CARD, await importSigningKey(a.privateJwk), Math.floor(Date.now() / 1000));
    const card: Route = () =>
      new Response(text, {
        status: 200,
        headers: { 'content-type': 'application/json', ...signedHeaders },
      });
    const good = scripted({ [CARD]: card, 'https://keys.example/jwks': keySet(a.publicJwk) });
    expect((await client(good).resolve(rawMember(CARD, 'cimd'))).keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
    // The key set at jwks_uri does not hold the signer: the card is refused.
    const other = await testKey();
    const bad = scripted({ [CARD]: card, 'https://keys.example/jwks': keySet(other.publicJwk) });
    expect(await refused(client(bad).resolve(rawMember(CARD, 'cimd')))).toEqual({
      code: 'ERR_DIRECTORY_INVALID',
      message: 'the Signature Agent Card carries a signature that does not verify (response-signature-unknown-key); refused',
    });
  });

  it('a card whose keys are at jwks_uri is checked on either field alone: a Signature-Input, or a Content-Digest', async () => {
    const text = JSON.stringify({ client_id: CARD, jwks_uri: 'https://keys.example/jwks' });
    const keys = keySet(a.publicJwk);
    const serve =
      (headers: Record<string, string>): Route =>
      () =>
        new Response(text, { status: 200, headers: { 'content-type': 'application/json', ...headers } });
    // A Signature-Input and Signature without the Content-Digest they cover: the signature does not verify.
    const created = Math.floor(Date.now() / 1000);
    const sigOnly = scripted({
      [CARD]: serve({
        'signature-input': `sig1=("@authority";req "content-digest");created=${created};expires=${created + 3600};keyid="${a.thumbprint}";tag="${DIRECTORY_RESPONSE_TAG}"`,
        signature: `sig1=:${'A'.repeat(86)}==:`,
      }),
      'https://keys.example/jwks': keys,
    });
    expect((await refused(client(sigOnly).resolve(rawMember(CARD, 'cimd')))).code).toBe('ERR_DIRECTORY_INVALID');
    // A Content-Digest alone that does not match the body.
    const digestOnly = scripted({ [CARD]: serve({ 'content-digest': `sha-256=:${'A'.repeat(43)}=:` }), 'https://keys.example/jwks': keys });
    expect(await refused(client(digestOnly).resolve(rawMember(CARD, 'cimd')))).toEqual({
      code: 'ERR_DIRECTORY_INVALID',
      message: 'the Signature Agent Card carries a signature that does not verify (content-digest-mismatch); refused',
    });
  });

  it('a card with neither jwks nor jwks_uri verifies nothing: refused with ERR_DIRECTORY_INVALID, the rule in the message', async () => {
    const fetch = scripted({ [CARD]: json({ client_id: CARD, client_name: 'No Keys' }) });
    const e = await refused(client(fetch).resolve(rawMember(CARD, 'cimd')));
    expect(e).toEqual({ code: 'ERR_DIRECTORY_INVALID', message: 'the Signature Agent Card has neither jwks nor jwks_uri' });
  });

  it('jwks_uri: the fragment is not part of what is fetched (two cards naming one key set with different fragments share one fetch)', async () => {
    const other = 'https://agent.example/bot2';
    const fetch = scripted({
      [CARD]: json({ client_id: CARD, jwks_uri: 'https://keys.example/jwks#one' }),
      [other]: json({ client_id: other, jwks_uri: 'https://keys.example/jwks#two' }),
      'https://keys.example/jwks': keySet(a.publicJwk),
    });
    const c = client(fetch);
    expect((await c.resolve(rawMember(CARD, 'cimd'))).keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
    expect((await c.resolve(rawMember(other, 'cimd'))).keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
    expect(fetch.urls).toEqual([CARD, 'https://keys.example/jwks', other]);
  });

  it('jwks_uri: fetched as written, identified as a jwks_uri member naming it is (without its query), whichever is looked up first', async () => {
    const keys = 'https://keys.example/jwks?tenant=a';
    for (const cardFirst of [true, false]) {
      const fetch = scripted({ [CARD]: json({ client_id: CARD, jwks_uri: keys }), [keys]: keySet(a.publicJwk) });
      const c = client(fetch);
      if (cardFirst) await c.resolve(rawMember(CARD, 'cimd'));
      // The same key set named by a jwks_uri member is the same resource: one fetch, one identifier.
      const direct = await c.resolve(rawMember(keys, 'jwks_uri'));
      if (!cardFirst) await c.resolve(rawMember(CARD, 'cimd'));
      expect(direct.url).toBe('https://keys.example/jwks');
      expect(direct.keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
      expect(fetch.urls).toEqual(cardFirst ? [CARD, keys] : [keys, CARD]);
    }
  });

  it("the key set's findings are reported under jwks_uri (with the key set's own location when it has one)", async () => {
    const fetch = scripted({
      [CARD]: json({ client_id: CARD, jwks_uri: 'https://keys.example/jwks' }),
      'https://keys.example/jwks': keySet(a.privateJwk, b.publicJwk),
    });
    const r = await client(fetch).resolve(rawMember(CARD, 'cimd'));
    expect(r.keys.map((k) => k.thumbprint)).toEqual([b.thumbprint]);
    const found = r.diagnostics.map((d) => ({ code: d.code, at: d.at, level: d.level }));
    expect(found).toContainEqual({ code: 'private-key-material', at: 'jwks_uri keys[0]', level: 'error' });
    expect(found).toContainEqual({ code: 'response-unsigned', at: 'jwks_uri', level: 'warning' });
    expect(r.diagnostics.find((d) => d.code === 'response-unsigned')?.message).toBe('the directory response carries no signatures (SPEC 5.4)');
  });
});

describe('DirectoryClient, type=cimd: the keys of a stale key set (§4.1 step 3; NOTES "Discovery": stale-if-error)', () => {
  it("a key of the card's jwks_uri that passes its exp while the key set is stale is left out, reported at `jwks_uri <thumbprint>`", async () => {
    const CARD = 'https://agent.example/bot';
    const KEYS = 'https://keys.example/jwks';
    let t = Math.floor(Date.now() / 1000) * 1000;
    const t0 = t / 1000;
    let keySetUp = true;
    const fetch = scripted({
      [CARD]: () =>
        new Response(JSON.stringify({ client_id: CARD, jwks_uri: KEYS }), { headers: { 'content-type': 'application/json', 'cache-control': 'max-age=3600' } }),
      [KEYS]: () =>
        keySetUp
          ? new Response(JSON.stringify({ keys: [{ ...a.publicJwk, exp: t0 + 62 }] }), {
              headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=60' },
            })
          : new Response('down', { status: 500 }),
    });
    const c = new DirectoryClient({ fetch, now: () => t, clockSkewSeconds: 0, random: () => 1 });
    expect((await c.resolve(rawMember(CARD, 'cimd'))).keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
    // The key set expires (60 s) and its refresh fails: its last keys are served, stale, until the retry (5 s later).
    keySetUp = false;
    t += 61_000;
    const stale = await c.resolve(rawMember(CARD, 'cimd'));
    expect(stale.stale).toBe(true);
    expect(stale.keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
    // Before the retry, the key passes its exp (62 s): left out of the card's answer, reported at the key set's key.
    t += 2_000;
    const later = await c.resolve(rawMember(CARD, 'cimd'));
    expect(later.keys).toEqual([]);
    expect(later.diagnostics.filter((d) => d.code === 'key-expired').map((d) => d.at)).toEqual([`jwks_uri ${a.thumbprint}`]);
    expect(fetch.urls).toEqual([CARD, KEYS, KEYS]);
  });
});
