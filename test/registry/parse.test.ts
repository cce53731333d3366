/**
 * parseRegistry against the registry draft's grammar (draft-meunier-webbotauth-registry,
 * "Formal Syntax"), Cloudflare's registry vectors, and every edge of the ABNF: line ends,
 * comments, whitespace, schemes, data: entries, limits.
 */
import { describe, expect, it } from 'vitest';
import { isBotsigError } from '../../src/index';
import { parseRegistry } from '../../src/registry';
import type { ParsedRegistry, RegistryEntry } from '../../src/registry';
import { cloudflareVectors } from '../helpers/vectors';
import { placedDiagnosticCodes as codes } from '../helpers/errors';

const urls = (r: ParsedRegistry): string[] => r.entries.map((e) => (e.kind === 'https' ? e.url : `data ${e.card.client_name ?? ''}`));
const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('Cloudflare registry vectors (vectors/cloudflare-web-bot-auth/test_data/web_bot_auth_registry_v1.json)', () => {
  const vectors = cloudflareVectors<Array<{ name: string; registry_txt: string; signature_agent_cards: string[] }>>('test_data/web_bot_auth_registry_v1.json')!;
  it('has cases', () => expect(vectors.length).toBeGreaterThan(0));
  for (const v of vectors) {
    it(v.name, () => {
      const r = parseRegistry(v.registry_txt);
      expect(urls(r)).toEqual(v.signature_agent_cards);
      expect(r.diagnostics).toEqual([]);
    });
  }
});

describe('the grammar', () => {
  it('line ends: LF, CRLF and a lone CR each end a line (NL = %x0D / %x0A / %x0D.0A); CRLF is one line end', () => {
    const r = parseRegistry('https://a.example/1\r\nhttps://a.example/2\rhttps://a.example/3\nhttps://a.example/4');
    expect(urls(r)).toEqual(['https://a.example/1', 'https://a.example/2', 'https://a.example/3', 'https://a.example/4']);
    expect(r.entries.map((e) => e.line)).toEqual([1, 2, 3, 4]);
    expect(r.lines).toBe(4);
    // \n\r is two line ends: an empty line between.
    const two = parseRegistry('https://a.example/1\n\rhttps://a.example/2\n');
    expect(two.entries.map((e) => e.line)).toEqual([1, 3]);
  });

  it('blank lines, whitespace-only lines and comment lines (with leading whitespace) are fine', () => {
    const r = parseRegistry('\n   \n\t\n# a comment\n  \t# indented comment ## with hashes\n#\nhttps://a.example/card\n');
    expect(urls(r)).toEqual(['https://a.example/card']);
    expect(r.diagnostics).toEqual([]);
  });

  it('a trailing comment after whitespace, or right after the URL (the "#" ends the https-URI, which has no fragment)', () => {
    const r = parseRegistry('https://a.example/1 # primary\nhttps://a.example/2\t#tab\nhttps://a.example/3#not-a-fragment\nhttps://a.example/4   \n');
    expect(urls(r)).toEqual(['https://a.example/1', 'https://a.example/2', 'https://a.example/3', 'https://a.example/4']);
    expect(r.diagnostics).toEqual([]);
  });

  it('an entry must start the line: leading whitespace before a URL is a malformed line, not a failure of the registry', () => {
    const r = parseRegistry('  https://a.example/indented\nhttps://a.example/ok\n');
    expect(urls(r)).toEqual(['https://a.example/ok']);
    expect(codes(r)).toEqual(['line 1: registry-line-invalid']);
    expect(r.diagnostics[0]!.level).toBe('error');
  });

  it('text after the entry that is not a comment makes the line malformed', () => {
    const r = parseRegistry('https://a.example/1 https://a.example/2\nhttps://a.example/3\n');
    expect(urls(r)).toEqual(['https://a.example/3']);
    expect(codes(r)).toEqual(['line 1: registry-line-invalid']);
  });

  it('comments: controls other than tab are refused (UTF8-char-noctl); DEL (the ABNF says %x24-7F), non-ASCII and "#" are allowed', () => {
    const r = parseRegistry('# ok \u007f é 🤖 ##\nhttps://a.example/1 # bad \u0001\n# bad \u0000\nhttps://a.example/2 # fine é\n');
    expect(urls(r)).toEqual(['https://a.example/2']);
    expect(codes(r)).toEqual(['line 2: registry-line-invalid', 'line 3: registry-line-invalid']);
    expect(r.diagnostics[0]!.message).toContain('U+0001');
  });

  it('a lone surrogate in a comment is refused (not UTF-8)', () => {
    expect(codes(parseRegistry('# \ud800 x\n'))).toEqual(['line 1: registry-line-invalid']);
    expect(codes(parseRegistry('# \ud83e\udd16 robot\n'))).toEqual([]);
  });

  it('schemes: https (any case) and data are entries; http is refused unless allowed; anything else is refused', () => {
    const text = 'HTTPS://A.Example/Card\nhttp://a.example/plain\nftp://a.example/x\nmailto:bot@example.com\nnot a url\n';
    const r = parseRegistry(text);
    expect(urls(r)).toEqual(['https://a.example/Card']);
    expect(r.entries[0]).toMatchObject({ text: 'HTTPS://A.Example/Card' });
    expect(codes(r)).toEqual(['line 2: registry-scheme', 'line 3: registry-scheme', 'line 4: registry-scheme', 'line 5: registry-scheme']);
    expect(urls(parseRegistry(text, { allowHttp: true }))).toEqual(['https://a.example/Card', 'http://a.example/plain']);
  });

  it('https-URI: a host is required, userinfo is refused, queries are kept, characters outside RFC 3986 are refused', () => {
    const r = parseRegistry('https:///nohost\nhttps://user@a.example/x\nhttps://a.example/card?v=2&x=y\nhttps://a.example/ca{rd}\nhttps:a.example/x\n');
    expect(urls(r)).toEqual(['https://a.example/card?v=2&x=y']);
    expect(codes(r)).toEqual([
      'line 1: registry-line-invalid',
      'line 2: registry-line-invalid',
      'line 4: registry-line-invalid',
      'line 5: registry-line-invalid',
    ]);
  });

  it('a duplicate entry (same URL after WHATWG serialisation) is a warning and listed once', () => {
    const r = parseRegistry('https://a.example/card\nHTTPS://A.EXAMPLE/card # again\n');
    expect(urls(r)).toEqual(['https://a.example/card']);
    expect(codes(r)).toEqual(['line 2: registry-entry-duplicate']);
    expect(r.diagnostics[0]!.level).toBe('warning');
  });

  it('a byte order mark at the start is skipped; bytes are decoded as UTF-8, and invalid UTF-8 refuses the registry (ERR_REGISTRY_INVALID)', () => {
    expect(urls(parseRegistry('\ufeffhttps://a.example/card\n'))).toEqual(['https://a.example/card']);
    expect(urls(parseRegistry(new TextEncoder().encode('# é\nhttps://a.example/card\n')))).toEqual(['https://a.example/card']);
    let error: unknown;
    try {
      parseRegistry(new Uint8Array([0x68, 0x74, 0xff, 0x0a]));
    } catch (e) {
      error = e;
    }
    expect(isBotsigError(error) && error.code).toBe('ERR_REGISTRY_INVALID');
  });
});

describe('data: entries (inline cards)', () => {
  const card = { client_name: 'Inline Bot', jwks_uri: 'https://inline.example/.well-known/http-message-signatures-directory' };

  it('percent-encoded and base64 data: URLs hold a card, validated without client_id', () => {
    const encoded = `data:application/json,${encodeURIComponent(JSON.stringify(card))}`;
    const base64 = `data:application/json;base64,${b64(JSON.stringify({ ...card, client_name: 'B64 Bot' }))}`;
    const r = parseRegistry(`${encoded}\n${base64} # inline\n`);
    expect(r.diagnostics).toEqual([]);
    expect(r.entries.map((e) => e.kind)).toEqual(['data', 'data']);
    const [a, b] = r.entries as Array<Extract<RegistryEntry, { kind: 'data' }>>;
    expect(a!.card).toEqual(card);
    expect(b!.card.client_name).toBe('B64 Bot');
    expect(Object.isFrozen(a!.card)).toBe(true);
  });

  it("the draft's own example (JSON written as is, with a space) is read as the whole line, with a warning", () => {
    // From the draft's "Discovery" example: the dataurl rule (RFC 2397) does not allow the space or the quotes.
    const line = 'data:application/json,{"client_name":"Inline Bot","jwks_uri":"https://inline.example.com/.well-known/http-message-signatures-directory"}';
    const r = parseRegistry(`# Below is an inlined card with the data URL scheme\n${line}\n`);
    expect(codes(r)).toEqual(['line 2: registry-data-url-unencoded']);
    expect(r.diagnostics[0]!.level).toBe('warning');
    const entry = r.entries[0] as Extract<RegistryEntry, { kind: 'data' }>;
    expect(entry.card.client_name).toBe('Inline Bot');
    expect(entry.text).toBe(line);
  });

  it('a data: URL that is not JSON, not a card, or a card the draft refuses is a line diagnostic', () => {
    const r = parseRegistry(
      [
        'data:text/plain,hello',
        `data:application/json,${encodeURIComponent('{not json')}`,
        `data:application/json,${encodeURIComponent('{}')}`,
        `data:application/json,${encodeURIComponent(JSON.stringify({ jwks_uri: 'https://a.example/k', jwks: { keys: [] } }))}`,
        `data:application/json,${encodeURIComponent(JSON.stringify({ jwks_uri: 'http://a.example/k' }))}`,
        'data:application/json;base64,@@@',
        'https://a.example/ok',
      ].join('\n'),
    );
    expect(urls(r)).toEqual(['https://a.example/ok']);
    expect(codes(r)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `line ${n}: registry-data-invalid`));
  });

  it("an inline card's own diagnostics are reported at its line", () => {
    const r = parseRegistry(`data:application/json,${encodeURIComponent(JSON.stringify({ client_name: 'X', web_bot_auth: { trigger: 'sometimes' } }))}\n`);
    expect(r.entries).toHaveLength(1);
    expect(codes(r)).toEqual(['line 1 web_bot_auth.trigger: card-value-unknown', 'line 1: card-no-keys']);
  });
});

describe('limits', () => {
  it('maxEntries: the rest is ignored and reported once, with a count', () => {
    const text = Array.from({ length: 10 }, (_, i) => `https://a.example/${i}`).join('\n');
    const r = parseRegistry(`${text}\n# trailing comment\n`, { maxEntries: 3 });
    expect(urls(r)).toEqual(['https://a.example/0', 'https://a.example/1', 'https://a.example/2']);
    expect(codes(r)).toEqual([': registry-too-many-entries']);
    expect(r.diagnostics[0]!.message).toContain('7 entry lines');
  });

  it('maxLines: reading stops there', () => {
    const r = parseRegistry('https://a.example/1\n\n\nhttps://a.example/4\n', { maxLines: 2 });
    expect(urls(r)).toEqual(['https://a.example/1']);
    expect(codes(r)).toEqual(['line 3: registry-too-many-lines']);
    expect(r.lines).toBe(2);
  });

  it('maxLineLength: a longer line is skipped; maxBytes: a larger registry is refused', () => {
    const r = parseRegistry(`https://a.example/${'x'.repeat(100)}\nhttps://a.example/ok\n`, { maxLineLength: 50 });
    expect(urls(r)).toEqual(['https://a.example/ok']);
    expect(codes(r)).toEqual(['line 1: registry-line-too-long']);
    expect(() => parseRegistry('x'.repeat(101), { maxBytes: 100 })).toThrow(expect.objectContaining({ code: 'ERR_REGISTRY_INVALID' }) as Error);
  });

  it('a large registry parses in linear time (50,000 entries)', () => {
    const text = Array.from({ length: 50_000 }, (_, i) => `https://bot${i}.example/card # ${i}`).join('\r\n');
    const start = performance.now();
    const r = parseRegistry(text, { maxEntries: 50_000, maxBytes: 4 * 1024 * 1024 });
    expect(r.entries).toHaveLength(50_000);
    expect(performance.now() - start).toBeLessThan(5_000);
  });

  it('never throws for arbitrary text (only diagnostics)', () => {
    const alphabet = ['https://a.example/x', 'data:', ',', '#', ' ', '\t', '\r', '\n', '\u0000', 'é', '{"a":1}', 'http://', '%', '%zz'];
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    for (let i = 0; i < 2000; i++) {
      let text = '';
      for (let j = rand(20); j > 0; j--) text += alphabet[rand(alphabet.length)];
      expect(() => parseRegistry(text)).not.toThrow();
    }
  });
});
