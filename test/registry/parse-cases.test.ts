/**
 * Pins for the registry parser (src/directory/registry/parse.ts) that the mutation run showed
 * unpinned (issue 20). Each test names the rule of draft-meunier-webbotauth-registry it pins
 * (sections as in the draft's source, thibmeu/http-message-signatures-directory,
 * draft-meunier-webbotauth-registry.md): §4 "Discovery" (entries are https or data URLs; the
 * draft's inline-card example), §4.2 "Formal Syntax" (`registry`, `cardendpointline`, `EOL`,
 * `comment = "#" *(UTF8-char-noctl / WS / "#")`, `NL`, `WS`), §4.4 "Registry Endpoint" (validate
 * the format and reject malformed entries: a malformed line is a diagnostic, the registry stays
 * usable), and the bounds and messages parseRegistry documents.
 *
 * Pure parsing: nothing here fetches.
 */
import { describe, expect, it } from 'vitest';
import { isBotsigError } from '../../src/index';
import type { Diagnostic } from '../../src/index';
import { parseRegistry, REGISTRY_DEFAULTS } from '../../src/registry';
import type { ParsedRegistry, ParseRegistryOptions, RegistryEntry } from '../../src/registry';

type DataEntry = Extract<RegistryEntry, { kind: 'data' }>;

/** Each diagnostic as `at: code (level): message`. */
const said = (r: ParsedRegistry): string[] => r.diagnostics.map((d: Diagnostic) => `${d.at ?? '-'}: ${d.code} (${d.level}): ${d.message}`);
const card = (extra: Record<string, unknown> = {}): string => JSON.stringify({ client_name: 'Inline', jwks_uri: 'https://inline.example/jwks', ...extra });
const encoded = (json: string, type = 'application/json'): string => `data:${type},${encodeURIComponent(json)}`;

function refusal(input: unknown, options?: ParseRegistryOptions): { code: string; message: string; cause: unknown } {
  try {
    parseRegistry(input as string, options);
  } catch (error) {
    if (isBotsigError(error)) return { code: error.code, message: error.message, cause: error.cause };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('options and input (parseRegistry: TypeError for malformed options, ERR_REGISTRY_INVALID for the text)', () => {
  it('options must be an object', () => {
    expect(() => parseRegistry('', null as unknown as ParseRegistryOptions)).toThrow(new TypeError('parseRegistry options must be an object'));
    expect(() => parseRegistry('', 'strict' as unknown as ParseRegistryOptions)).toThrow(TypeError);
  });

  it('each bound is a positive safe integer; 1 is the smallest accepted, undefined is the default', () => {
    for (const name of ['maxBytes', 'maxEntries', 'maxLines', 'maxLineLength'] as const) {
      for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '3']) {
        expect(() => parseRegistry('', { [name]: bad } as ParseRegistryOptions), `${name}=${String(bad)}`).toThrow(
          new TypeError(`options.${name} must be a positive integer`),
        );
      }
      expect(parseRegistry('', { [name]: 1 }).entries).toEqual([]);
      expect(parseRegistry('', { [name]: undefined }).entries).toEqual([]);
    }
    // The smallest bounds still read what fits in them.
    expect(parseRegistry('h', { maxBytes: 1, maxLines: 1, maxLineLength: 1, maxEntries: 1 })).toMatchObject({ lines: 1, entries: [] });
  });

  it('input that is neither text nor bytes is a TypeError', () => {
    expect(() => parseRegistry(42 as unknown as string)).toThrow(new TypeError('parseRegistry expects the registry text or its bytes'));
    expect(() => parseRegistry(['https://a.example/'] as unknown as string)).toThrow(TypeError);
  });

  it('maxBytes: exactly maxBytes is read; one more is refused, for text and bytes alike', () => {
    const text = `https://a.example/${'x'.repeat(82)}`; // 100 characters
    expect(parseRegistry(text, { maxBytes: 100 }).entries).toHaveLength(1);
    expect(parseRegistry(new TextEncoder().encode(text), { maxBytes: 100 }).entries).toHaveLength(1);
    expect(refusal(`${text}\n`, { maxBytes: 100 })).toMatchObject({ code: 'ERR_REGISTRY_INVALID', message: 'the registry is larger than 100 bytes' });
    expect(refusal(new TextEncoder().encode(`${text}\n`), { maxBytes: 100 })).toMatchObject({
      code: 'ERR_REGISTRY_INVALID',
      message: 'the registry is larger than 100 bytes',
    });
  });

  it('bytes that are not UTF-8 refuse the registry, with the decoder error as cause', () => {
    const r = refusal(new Uint8Array([0x23, 0x20, 0xc3, 0x28, 0x0a]));
    expect(r).toMatchObject({ code: 'ERR_REGISTRY_INVALID', message: 'the registry is not UTF-8' });
    expect(r.cause).toBeInstanceOf(TypeError);
  });

  it('allowHttp is only honoured when it is true', () => {
    const text = 'http://a.example/card\n';
    expect(parseRegistry(text, { allowHttp: true }).entries).toHaveLength(1);
    expect(parseRegistry(text, { allowHttp: 1 as unknown as boolean }).entries).toHaveLength(0);
    expect(parseRegistry(text, { allowHttp: 'yes' as unknown as boolean }).entries).toHaveLength(0);
  });
});

describe('default bounds (REGISTRY_DEFAULTS)', () => {
  it('are 1 MiB, 10,000 entries, 100,000 lines, 16,384 characters a line', () => {
    expect(REGISTRY_DEFAULTS).toEqual({ maxBytes: 1_048_576, maxEntries: 10_000, maxLines: 100_000, maxLineLength: 16_384 });
    expect(Object.isFrozen(REGISTRY_DEFAULTS)).toBe(true);
  });

  it('maxBytes: a 1 MiB text is read, one character more is refused', () => {
    const mib = `${'#'.repeat(1023)}\n`.repeat(1024);
    expect(parseRegistry(mib)).toMatchObject({ lines: 1024, diagnostics: [] });
    expect(refusal(`${mib}#`)).toMatchObject({ code: 'ERR_REGISTRY_INVALID', message: 'the registry is larger than 1048576 bytes' });
  });

  it('maxLineLength: a line of 16,384 characters is read, 16,385 is skipped', () => {
    const url = (n: number): string => `https://a.example/${'x'.repeat(n - 18)}`;
    const r = parseRegistry(`${url(16_384)}\n${url(16_385)}\n`);
    expect(r.entries.map((e) => e.line)).toEqual([1]);
    expect(said(r)).toEqual(['line 2: registry-line-too-long (error): the line is longer than 16384 characters; skipped']);
  });

  it('maxEntries: 10,000 entries are kept, the 10,001st is reported', () => {
    const text = Array.from({ length: 10_001 }, (_, i) => `https://a.example/${i}`).join('\n');
    const r = parseRegistry(text);
    expect(r.entries).toHaveLength(10_000);
    expect(said(r)).toEqual(['-: registry-too-many-entries (error): the registry lists more than 10000 entries; 1 entry line after the limit ignored']);
  });

  it('maxLines: 100,000 lines are read, the 100,001st stops the reading', () => {
    expect(parseRegistry('\n'.repeat(100_000))).toMatchObject({ lines: 100_000, diagnostics: [] });
    const r = parseRegistry(`${'\n'.repeat(100_000)}https://a.example/late\n`);
    expect(r.entries).toEqual([]);
    expect(r.lines).toBe(100_000);
    expect(said(r)).toEqual(['line 100001: registry-too-many-lines (error): the registry has more than 100000 lines; the rest is ignored']);
  });
});

describe('lines and their bounds (§4.2: NL = %x0D / %x0A / %x0D.0A)', () => {
  it('a final line end does not start another line; a line without one is still a line', () => {
    expect(parseRegistry('https://a.example/1\n').lines).toBe(1);
    expect(parseRegistry('https://a.example/1\r\n').lines).toBe(1);
    expect(parseRegistry('https://a.example/1\r').lines).toBe(1);
    expect(parseRegistry('https://a.example/1\n#x').lines).toBe(2);
    expect(parseRegistry('').lines).toBe(0);
  });

  it('maxLines: exactly maxLines lines are all read; the message names the bound', () => {
    expect(parseRegistry('https://a.example/1\nhttps://a.example/2', { maxLines: 2 })).toMatchObject({ lines: 2, diagnostics: [] });
    const r = parseRegistry('https://a.example/1\nhttps://a.example/2\nhttps://a.example/3', { maxLines: 2 });
    expect(r.entries.map((e) => e.line)).toEqual([1, 2]);
    expect(said(r)).toEqual(['line 3: registry-too-many-lines (error): the registry has more than 2 lines; the rest is ignored']);
  });

  it('maxLineLength counts the line without its line end: exactly the bound is read', () => {
    const url = 'https://a.example/1234567890'; // 28 characters
    expect(parseRegistry(`${url}\r\n`, { maxLineLength: 28 }).entries).toHaveLength(1);
    const r = parseRegistry(`${url}\r\n${url}9\r\n`, { maxLineLength: 28 });
    expect(r.entries.map((e) => e.line)).toEqual([1]);
    expect(said(r)).toEqual(['line 2: registry-line-too-long (error): the line is longer than 28 characters; skipped']);
  });

  it('only a byte order mark at the very start is skipped; one opening a later line is not whitespace', () => {
    const r = parseRegistry('\ufeff# list\n\ufeffhttps://a.example/card\n');
    expect(r.entries).toEqual([]);
    expect(r.diagnostics.map((d) => `${d.at ?? ''}: ${d.code}`)).toEqual(['line 2: registry-scheme']);
  });
});

describe('whitespace and comments (§4.2: EOL = *WS [comment] NL; WS = %x20 / %x09; UTF8-char-noctl)', () => {
  it('an entry after leading whitespace (space or tab) is a malformed line, with the reason', () => {
    const r = parseRegistry(' https://a.example/1\n\thttps://a.example/2\n \t# fine\n');
    expect(said(r)).toEqual([
      'line 1: registry-line-invalid (error): an entry must start at the beginning of the line; the line is skipped',
      'line 2: registry-line-invalid (error): an entry must start at the beginning of the line; the line is skipped',
    ]);
  });

  it('text after an entry that is not a comment is a malformed line, with the reason', () => {
    const r = parseRegistry('https://a.example/1 \t x\nhttps://a.example/2\t \t\n');
    expect(r.entries.map((e) => e.line)).toEqual([2]);
    expect(said(r)).toEqual(['line 1: registry-line-invalid (error): text after the entry that is not a # comment; the line is skipped']);
  });

  it('a comment may hold tab, space, "#", DEL and every character from U+0021 on, surrogate pairs included', () => {
    const allowed = ['\t', ' ', '!', '#', '~', '\u007f', '\u0080', '\u00a0', '\ud7ff', '\ue000', '\ufffd', '\ud800\udc00', '\udbff\udfff', '\ud83e\udd16'];
    for (const c of allowed) {
      const hex = [...c].map((x) => x.codePointAt(0)!.toString(16)).join(' ');
      expect(parseRegistry(`# a${c}b\nhttps://a.example/x #${c}\n`).diagnostics, hex).toEqual([]);
      // At the very end of the comment too.
      expect(parseRegistry(`# a${c}`).diagnostics, hex).toEqual([]);
    }
  });

  it('a comment may not hold a control other than tab, a lone surrogate or U+FFFE / U+FFFF: the message names it in upper-case hex', () => {
    const refused: Array<[string, string]> = [
      ['\u0000', 'U+0000'],
      ['\u0008', 'U+0008'],
      ['\u000b', 'U+000B'],
      ['\u000c', 'U+000C'],
      ['\u001f', 'U+001F'],
      ['\ud800x', 'U+D800'],
      ['\udbff\udbff', 'U+DBFF'],
      ['\ud83e\ue000', 'U+D83E'],
      ['\udc00', 'U+DC00'],
      ['\udfff', 'U+DFFF'],
      ['\ufffe', 'U+FFFE'],
      ['\uffff', 'U+FFFF'],
      // Whatever follows it: a control or a low surrogate does not start a pair.
      ['\u0001\udc00', 'U+0001'],
      ['\udc00\udc00', 'U+DC00'],
    ];
    for (const [c, name] of refused) {
      const r = parseRegistry(`# a${c}b\nhttps://a.example/x # ${c}\nhttps://a.example/ok\n`);
      expect(
        r.entries.map((e) => e.line),
        name,
      ).toEqual([3]);
      expect(said(r), name).toEqual([
        `line 1: registry-line-invalid (error): a control character (${name}) in a comment; the line is skipped`,
        `line 2: registry-line-invalid (error): a control character (${name}) in a comment; the line is skipped`,
      ]);
    }
    // A high surrogate that ends the comment (the line, or the text) has no pair.
    expect(said(parseRegistry('# a\ud83e\n'))).toEqual([
      'line 1: registry-line-invalid (error): a control character (U+D83E) in a comment; the line is skipped',
    ]);
    expect(said(parseRegistry('# a\ud83e'))).toEqual(['line 1: registry-line-invalid (error): a control character (U+D83E) in a comment; the line is skipped']);
  });

  it('the first bad character is the one reported', () => {
    expect(said(parseRegistry('# ok\u0001\u0002\n'))[0]).toContain('(U+0001)');
  });
});

describe('https entries (§4: "https: Points to an HTTPS resource"; §4.2: https-URI, RFC 9110 §4.2.2)', () => {
  it('an entry is frozen and carries its line, the text as written and the WHATWG serialisation', () => {
    const r = parseRegistry('# x\nHTTPS://A.EXAMPLE:443/Card?x=1\n');
    expect(r.entries).toEqual([{ kind: 'https', line: 2, text: 'HTTPS://A.EXAMPLE:443/Card?x=1', url: 'https://a.example/Card?x=1' }]);
    expect(Object.isFrozen(r.entries[0])).toBe(true);
    expect(Object.isFrozen(r.entries)).toBe(true);
    expect(Object.isFrozen(r.diagnostics)).toBe(true);
  });

  it('the "//" authority is required: https:/host and https:host are refused although WHATWG would repair them', () => {
    const r = parseRegistry('https:/a.example/x\nhttps:a.example/x\nhttps:///a.example/x\nhttps://\nhttps:x//a.example/\nhttps://a.example\n');
    expect(r.entries.map((e) => (e.kind === 'https' ? e.url : ''))).toEqual(['https://a.example/']);
    expect(said(r)).toEqual(
      [1, 2, 3, 4, 5].map((n) => `line ${n}: registry-line-invalid (error): not an https URL with a host (RFC 9110 §4.2.2); the line is skipped`),
    );
  });

  it('userinfo is refused, a password alone included', () => {
    const r = parseRegistry('https://:secret@a.example/x\nhttps://bot:secret@a.example/x\n');
    expect(r.entries).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['registry-line-invalid', 'registry-line-invalid']);
  });

  it('with allowHttp, a malformed http entry names its scheme', () => {
    expect(said(parseRegistry('http:/a.example/x\n', { allowHttp: true }))).toEqual([
      'line 1: registry-line-invalid (error): not an http URL with a host (RFC 9110 §4.2.2); the line is skipped',
    ]);
  });

  it('a scheme other than https and data is refused, naming it (lower-cased); text without a scheme is "not a URL"', () => {
    const r = parseRegistry('FTP://a.example/x\nnot a url\n:nothing\nhttp://a.example/x\n');
    expect(said(r)).toEqual([
      'line 1: registry-scheme (error): a ftp: entry: registry entries are https or data URLs (registry draft); the line is skipped',
      'line 2: registry-scheme (error): not a URL: registry entries are https or data URLs (registry draft); the line is skipped',
      'line 3: registry-scheme (error): not a URL: registry entries are https or data URLs (registry draft); the line is skipped',
      'line 4: registry-scheme (error): a http: entry: registry entries are https or data URLs (registry draft); the line is skipped',
    ]);
  });

  it('a duplicate URL is a warning with the reason; the first line is kept', () => {
    const r = parseRegistry('https://a.example/card\nhttps://A.example:443/card\n');
    expect(r.entries.map((e) => e.line)).toEqual([1]);
    expect(said(r)).toEqual(['line 2: registry-entry-duplicate (warning): the same URL appears on an earlier line; skipped']);
  });
});

describe('data: entries (§4: "data: Contains an inline signature agent card"; §4.2: dataurl, RFC 2397)', () => {
  it('the scheme is "data:" in any case, and only that: a look-alike scheme is not an inline card', () => {
    const json = card();
    const ok = parseRegistry(
      ['DATA:', 'Data:', 'dAtA:'].map((p, i) => `${p}application/json,${encodeURIComponent(card({ client_name: `n${i}` }))}`).join('\n'),
    );
    expect(ok.diagnostics).toEqual([]);
    expect(ok.entries.map((e) => e.kind)).toEqual(['data', 'data', 'data']);
    const lookAlikes = ['xata:', 'dxta:', 'daxa:', 'datx:', 'datas:'];
    const r = parseRegistry(lookAlikes.map((p) => `${p}application/json,${encodeURIComponent(json)}`).join('\n'));
    expect(r.entries).toEqual([]);
    expect(said(r)).toEqual(
      lookAlikes.map(
        (p, i) => `line ${i + 1}: registry-scheme (error): a ${p} entry: registry entries are https or data URLs (registry draft); the line is skipped`,
      ),
    );
  });

  it('the media type must be application/json or a +json type (a data: URL without one is text/plain)', () => {
    const r = parseRegistry([encoded(card(), 'application/foo+json'), encoded(card(), 'text/json'), encoded(card(), '')].join('\n'));
    expect(r.entries.map((e) => e.line)).toEqual([1]);
    expect(said(r)).toEqual([
      'line 2: registry-data-invalid (error): the data: URL is text/json, not application/json; the line is skipped',
      'line 3: registry-data-invalid (error): the data: URL is text/plain, not application/json; the line is skipped',
    ]);
  });

  it('why a data: entry is refused: it does not decode, or the card is refused (with the card parser reason)', () => {
    const r = parseRegistry(`data:application/json;base64,@@@\n${encoded('{}')}\n`);
    expect(said(r)).toEqual([
      'line 1: registry-data-invalid (error): the data: URL does not decode (invalid data: URL (base64)); the line is skipped',
      'line 2: registry-data-invalid (error): the inline card is refused: the card sets no parameter (the draft requires at least one); the line is skipped',
    ]);
  });

  it('an inline card is bounded while it is decoded, at the card size cap (65,536 bytes)', () => {
    const big = card({ client_uri: `https://inline.example/${'x'.repeat(70_000)}` });
    const r = parseRegistry(`${encoded(big)}\n`, { maxLineLength: 500_000 });
    expect(r.entries).toEqual([]);
    expect(said(r)).toEqual(['line 1: registry-data-invalid (error): the data: URL does not decode (invalid data: URL (too large)); the line is skipped']);
  });

  it('allowHttp reaches the inline card: an http jwks_uri is accepted only then', () => {
    const line = encoded(card({ jwks_uri: 'http://inline.example/jwks' }));
    expect(said(parseRegistry(line))).toEqual([
      'line 1: registry-data-invalid (error): the inline card is refused: jwks_uri is not an https URL; the line is skipped',
    ]);
    expect(parseRegistry(line, { allowHttp: true }).entries).toHaveLength(1);
  });

  it('an entry is frozen and carries its line, the data: URL as written, the card and its keys', () => {
    const line = encoded(card());
    const [entry] = parseRegistry(`\n${line} # inline\n`).entries as DataEntry[];
    expect(entry).toEqual({ kind: 'data', line: 2, text: line, card: JSON.parse(card()) as object, keys: [] });
    expect(Object.isFrozen(entry)).toBe(true);
  });

  it('a data: entry written without percent-encoding is read as written: non-ASCII as UTF-8 (astral characters whole), DEL, quotes', () => {
    for (const name of ['Bötë', 'bot\ud83e\udd16', 'Bö\ud83e\udd16', '\ud800\udc00', '\udbff\udffd', 'A\u007fB']) {
      const r = parseRegistry(`data:application/json,${card({ client_name: name })}\n`);
      expect(r.diagnostics, name).toEqual([]);
      expect((r.entries[0] as DataEntry).card.client_name, name).toBe(name);
    }
  });

  it('the draft example with a space and a "#" in the JSON is read as the whole line (trailing whitespace trimmed), with the warning', () => {
    // §4 "Discovery" example: `data:application/json,{"client_name":"Inline Bot",...}`.
    const line = `data:application/json,${card({ client_name: 'Inline Bot #1' })}`;
    const r = parseRegistry(`${line} \t\n${line}\n`);
    const entry = r.entries[0] as DataEntry;
    expect(entry.text).toBe(line);
    expect(entry.card.client_name).toBe('Inline Bot #1');
    expect(said(r)).toEqual([
      'line 1: registry-data-url-unencoded (warning): the data: URL holds spaces or "#" that RFC 2397 wants percent-encoded; read as the whole line',
      'line 2: registry-data-url-unencoded (warning): the data: URL holds spaces or "#" that RFC 2397 wants percent-encoded; read as the whole line',
      'line 2: registry-entry-duplicate (warning): the same entry appears on an earlier line; skipped',
    ]);
    expect(r.entries).toHaveLength(1);
  });

  it('a data: entry that fails as the entry and as the whole line: text after it is a malformed line; otherwise the entry is refused with its own reason', () => {
    const r = parseRegistry(`data:application/json,${card()} trailing\n${encoded('{}')} # empty card\n`);
    expect(said(r)).toEqual([
      'line 1: registry-line-invalid (error): text after the entry that is not a # comment; the line is skipped',
      'line 2: registry-data-invalid (error): the inline card is refused: the card sets no parameter (the draft requires at least one); the line is skipped',
    ]);
  });

  it('a duplicate data: entry is a warning with the reason; the first line is kept', () => {
    const line = encoded(card());
    const r = parseRegistry(`${line}\n${line} # again\n`);
    expect(r.entries.map((e) => e.line)).toEqual([1]);
    expect(said(r)).toEqual(['line 2: registry-entry-duplicate (warning): the same entry appears on an earlier line; skipped']);
  });
});

describe('maxEntries (the rest is reported once, without a line, and ignored)', () => {
  it('the message names the bound and the count; exactly maxEntries entries is no finding', () => {
    const lines = (n: number): string => Array.from({ length: n }, (_, i) => `https://a.example/${i}`).join('\n');
    expect(parseRegistry(lines(3), { maxEntries: 3 }).diagnostics).toEqual([]);
    expect(said(parseRegistry(lines(10), { maxEntries: 3 }))).toEqual([
      '-: registry-too-many-entries (error): the registry lists more than 3 entries; 7 entry lines after the limit ignored',
    ]);
    expect(said(parseRegistry(lines(4), { maxEntries: 3 }))).toEqual([
      '-: registry-too-many-entries (error): the registry lists more than 3 entries; 1 entry line after the limit ignored',
    ]);
  });

  it('lines after the limit are not read: a malformed one there is counted, not diagnosed', () => {
    const r = parseRegistry('https://a.example/1\nftp://a.example/2\n  x\n# c\n', { maxEntries: 1 });
    expect(said(r)).toEqual([
      'line 3: registry-line-invalid (error): an entry must start at the beginning of the line; the line is skipped',
      '-: registry-too-many-entries (error): the registry lists more than 1 entries; 1 entry line after the limit ignored',
    ]);
  });
});
