import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Encode, utf8 } from '../helpers/bytes';
import {
  isBotsigError,
  agentIdentifier,
  directoryUrlFor,
  DIRECTORY_MEDIA_TYPE,
  WELL_KNOWN_PATH,
  type SignatureAgentMember,
  parseSignatureAgent,
  serializeSignatureAgent,
  signatureAgentComponent,
} from '../../src/index';
import { diagnosticCodes as codes } from '../helpers/errors';

const VECTORS = '../../vectors/cloudflare-web-bot-auth/test_data/';
function vectors<T>(name: string): T {
  return JSON.parse(readFileSync(fileURLToPath(new URL(VECTORS + name, import.meta.url)), 'utf8')) as T;
}

const INLINE_JSON = '{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}';

describe('parseSignatureAgent: Cloudflare web_bot_auth_signature_agent_v1.json', () => {
  interface Case {
    name: string;
    header: string;
    entries: Array<{ label: string; uri: string; type: string }>;
  }
  const cases = vectors<Case[]>('web_bot_auth_signature_agent_v1.json');

  it('has cases', () => expect(cases.length).toBeGreaterThan(0));

  // Their `label` is our member `key`, `uri` our `url`; they expect every entry
  // to be kept. They are written in the earlier drafts' typed form, which draft -01
  // removed: read with typedSignatureAgent, and ignored without it (below).
  for (const c of cases) {
    it(`case ${c.name}`, () => {
      const parsed = parseSignatureAgent(c.header, { typedSignatureAgent: true });
      expect(parsed.form).toBe('dictionary');
      expect(parsed.ignored).toBe(false);
      expect(parsed.diagnostics).toEqual([]);
      expect(parsed.members.map((m) => ({ label: m.key, uri: m.url, type: m.type }))).toEqual(c.entries);
      expect(parsed.members.every((m) => m.scheme === 'https')).toBe(true);
    });
  }
});

describe('parseSignatureAgent: draft-ietf-webbotauth-httpsig-protocol-01 members', () => {
  it('a value is a JWK Set URL, fetched as sent (any path, query kept on the member)', () => {
    const p = parseSignatureAgent('sig1="https://agent.example/jwks.json?v=2"');
    expect(p.members).toEqual([{ key: 'sig1', url: 'https://agent.example/jwks.json?v=2', type: 'jwks_uri', scheme: 'https', index: 0 }]);
    expect(p.diagnostics).toEqual([]);
  });

  it('the full well-known URL is a JWK Set URL too (no compat rule needed)', () => {
    const p = parseSignatureAgent(`sig1="https://agent.example${WELL_KNOWN_PATH}"`);
    expect(p.members).toEqual([{ key: 'sig1', url: `https://agent.example${WELL_KNOWN_PATH}`, type: 'jwks_uri', scheme: 'https', index: 0 }]);
  });

  it('a member with parameters is ignored, with a diagnostic that says why (MUST ignore)', () => {
    for (const header of [
      'sig1="https://a.example/j";type=jwks_uri',
      'sig1="https://a.example";type=directory',
      'sig1="https://a.example/c";type=cimd',
      'sig1="https://a.example/j";x=1',
    ]) {
      const p = parseSignatureAgent(header);
      expect(p.members, header).toEqual([]);
      expect(p.ignored).toBe(false);
      expect(p.diagnostics).toEqual([expect.objectContaining({ level: 'warning', code: 'member-parameters', at: 'sig1' })]);
      expect(p.diagnostics[0]?.message).toMatch(/typedSignatureAgent/);
    }
    // The other members stay usable.
    const mixed = parseSignatureAgent('a="https://a.example/j";type=jwks_uri, b="https://b.example/k.json"');
    expect(mixed.members.map((m) => m.key)).toEqual(['b']);
  });

  it('a legacy String with parameters is ignored as well', () => {
    const p = parseSignatureAgent('"https://a.example";type=directory');
    expect(p.members).toEqual([]);
    expect(codes(p)).toEqual(['legacy-string-form', 'member-parameters']);
  });

  it('deployed dialect: a bare origin resolves through its well-known directory (compat bare-origin)', () => {
    for (const header of ['"https://chatgpt.com"', 'g="https://agent.bot.goog"', 'g="https://agent.bot.goog/"', 'g="https://a.example:8443"']) {
      const m = parseSignatureAgent(header).members[0];
      expect(m, header).toMatchObject({ type: 'directory', compat: 'bare-origin', scheme: 'https' });
    }
  });

  it('bareOriginDirectory: false reads a bare origin literally, as a JWK Set URL', () => {
    const m = parseSignatureAgent('"https://chatgpt.com"', { bareOriginDirectory: false }).members[0];
    expect(m).toEqual({ url: 'https://chatgpt.com', type: 'jwks_uri', scheme: 'https', index: 0 });
  });

  it.each([
    ['a path', 'https://a.example/agent'],
    ['a query', 'https://a.example/?x=1'],
    ['an empty query', 'https://a.example?'],
    ['a fragment', 'https://a.example#f'],
    ['two slashes', 'https://a.example//'],
  ])('a value with %s is not a bare origin: a JWK Set URL', (_name, url) => {
    const p = parseSignatureAgent(`sig1="${url}"`);
    expect(p.members).toEqual([{ key: 'sig1', url, type: 'jwks_uri', scheme: 'https', index: 0 }]);
  });

  it("an inline data: directory is an earlier draft's form: dropped unless typedSignatureAgent", () => {
    const url = `data:${DIRECTORY_MEDIA_TYPE};base64,${base64Encode(utf8(INLINE_JSON))}`;
    const p = parseSignatureAgent(`sig1="${url}"`);
    expect(p.members).toEqual([]);
    expect(p.diagnostics).toEqual([expect.objectContaining({ level: 'error', code: 'scheme-unsupported', at: 'sig1' })]);
    expect(parseSignatureAgent(`sig1="${url}"`, { typedSignatureAgent: true }).members[0]).toMatchObject({
      type: 'directory',
      scheme: 'data',
      compat: 'typed',
    });
  });

  it('the Cloudflare typed cases are ignored without typedSignatureAgent (they carry parameters)', () => {
    const p = parseSignatureAgent('sig2="https://b.example/jwks.json";type=jwks_uri, sig3="https://c.example/card";type=cimd');
    expect(p.members).toEqual([]);
    expect(codes(p)).toEqual(['member-parameters', 'member-parameters']);
  });
});

describe('parseSignatureAgent: forms (SPEC 2.3, NOTES "Signature-Agent")', () => {
  it('absent: undefined, null, [], empty and blank lines', () => {
    for (const v of [undefined, null, [], '', '   ', ['', ' ']]) {
      expect(parseSignatureAgent(v)).toEqual({ form: 'absent', members: [], diagnostics: [], ignored: false });
    }
  });

  it('earlier drafts: Dictionary with type parameters (typedSignatureAgent)', () => {
    const p = parseSignatureAgent('sig1="https://a.example", sig2="https://b.example/jwks.json";type=jwks_uri, sig3="https://c.example/card";type=cimd', {
      typedSignatureAgent: true,
    });
    expect(p.form).toBe('dictionary');
    expect(p.members).toEqual([
      { key: 'sig1', url: 'https://a.example', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 0 },
      { key: 'sig2', url: 'https://b.example/jwks.json', type: 'jwks_uri', scheme: 'https', compat: 'typed', index: 1 },
      { key: 'sig3', url: 'https://c.example/card', type: 'cimd', scheme: 'https', compat: 'typed', index: 2 },
    ]);
  });

  it('explicit type=directory is the same as the default (typedSignatureAgent)', () => {
    expect(parseSignatureAgent('sig1="https://a.example";type=directory', { typedSignatureAgent: true }).members[0]?.type).toBe('directory');
  });

  it('intermediate Dictionary without type (architecture_v2 vector value)', () => {
    const p = parseSignatureAgent('agent2="https://signature-agent.test"');
    expect(p.members).toEqual([{ key: 'agent2', url: 'https://signature-agent.test', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 0 }]);
    expect(p.diagnostics).toEqual([]);
  });

  it('Dictionary split over several field lines', () => {
    const p = parseSignatureAgent(['sig1="https://a.example"', 'sig2="https://b.example/"']);
    expect(p.form).toBe('dictionary');
    expect(p.members.map((m) => m.key)).toEqual(['sig1', 'sig2']);
  });

  it('first revision: bare String (architecture_v1 vector value), with a legacy warning', () => {
    const p = parseSignatureAgent('"https://signature-agent.test"');
    expect(p.form).toBe('string');
    expect(p.members).toEqual([{ url: 'https://signature-agent.test', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 0 }]);
    expect(p.members[0]).not.toHaveProperty('key');
    expect(p.diagnostics).toEqual([expect.objectContaining({ level: 'warning', code: 'legacy-string-form' })]);
  });

  it('first revision: several String field lines are kept in order (the resolver picks the first that works)', () => {
    const p = parseSignatureAgent(['"https://a.example"', '"https://b.example"', '"https://c.example"']);
    expect(p.form).toBe('string');
    expect(p.members.map((m) => [m.url, m.index])).toEqual([
      ['https://a.example', 0],
      ['https://b.example', 1],
      ['https://c.example', 2],
    ]);
  });

  it('angle brackets inside a String are removed with a warning', () => {
    const p = parseSignatureAgent('"<https://agent.example>"');
    expect(p.members[0]?.url).toBe('https://agent.example');
    expect(codes(p)).toContain('angle-brackets');
    const d = parseSignatureAgent('sig1="<https://agent.example>"');
    expect(d.members[0]).toMatchObject({ key: 'sig1', url: 'https://agent.example' });
    expect(codes(d)).toEqual(['angle-brackets']);
  });

  it('raw unquoted <https://…> (not a Structured Field) is accepted as a String with a warning', () => {
    const p = parseSignatureAgent('<https://agent.example>');
    expect(p.form).toBe('string');
    expect(p.ignored).toBe(false);
    expect(p.members).toEqual([{ url: 'https://agent.example', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 0 }]);
    expect(codes(p)).toContain('raw-angle-brackets');
    expect(parseSignatureAgent(['<https://a.example>', '<https://b.example>']).members.map((m) => m.url)).toEqual(['https://a.example', 'https://b.example']);
  });

  it('unparseable header → ignored with an sf-parse error (SPEC 7: MAY answer 400)', () => {
    for (const v of ['"unterminated', 'sig1="a", "b"', '<a> <b>', ['"https://a.example"', 'not valid ;;']]) {
      const p = parseSignatureAgent(v);
      expect(p.ignored, String(v)).toBe(true);
      expect(p.members).toEqual([]);
      expect(p.form).toBe('absent');
      expect(p.diagnostics).toEqual([expect.objectContaining({ level: 'error', code: 'sf-parse' })]);
    }
  });
});

describe('parseSignatureAgent: member rules', () => {
  it('an unquoted URL is a Token (RFC 9651 §3.3.4 allows ":" and "/"), not a String → member dropped', () => {
    const p = parseSignatureAgent('https://agent.example');
    expect(p.form).toBe('string');
    expect(p.ignored).toBe(false);
    expect(p.members).toEqual([]);
    expect(codes(p)).toEqual(['member-not-string']);
  });

  it('unsupported type → that member only is ignored, with a warning (SPEC 2.3 MUST ignore; typedSignatureAgent)', () => {
    const p = parseSignatureAgent('sig1="https://a.example";type=future, sig2="https://b.example"', { typedSignatureAgent: true });
    expect(p.ignored).toBe(false);
    expect(p.members.map((m) => m.key)).toEqual(['sig2']);
    expect(p.members[0]?.index).toBe(1);
    expect(p.diagnostics).toEqual([expect.objectContaining({ level: 'warning', code: 'type-unsupported', at: 'sig1' })]);
  });

  it('type given as a String instead of a Token → member ignored (typedSignatureAgent)', () => {
    const p = parseSignatureAgent('sig1="https://a.example/j";type="jwks_uri"', { typedSignatureAgent: true });
    expect(p.members).toEqual([]);
    expect(codes(p)).toEqual(['type-invalid']);
  });

  it('a member that is not a String Item is dropped; the others stay', () => {
    const p = parseSignatureAgent('sig1=("https://a.example"), sig2=tok, sig3, sig4="https://d.example"');
    expect(p.members.map((m) => m.key)).toEqual(['sig4']);
    expect(p.diagnostics.map((d) => [d.code, d.at])).toEqual([
      ['member-not-string', 'sig1'],
      ['member-not-string', 'sig2'],
      ['member-not-string', 'sig3'],
    ]);
  });

  it('a value that is not a URI-reference → the whole header is ignored (SPEC 2.3)', () => {
    const p = parseSignatureAgent('sig1="https://a.example", sig2="https://b example"');
    expect(p.ignored).toBe(true);
    expect(p.form).toBe('dictionary');
    expect(p.members).toEqual([]);
    expect(p.diagnostics).toEqual([expect.objectContaining({ level: 'error', code: 'uri-invalid', at: 'sig2' })]);
    expect(parseSignatureAgent('"https://a.example/{x}"').ignored).toBe(true);
  });

  it('http is dropped unless allowHttp', () => {
    const header = 'sig1="http://a.example"';
    const strict = parseSignatureAgent(header);
    expect(strict.members).toEqual([]);
    expect(strict.diagnostics).toEqual([expect.objectContaining({ level: 'error', code: 'http-not-allowed', at: 'sig1' })]);
    const lax = parseSignatureAgent(header, { allowHttp: true });
    expect(lax.members).toEqual([{ key: 'sig1', url: 'http://a.example', type: 'directory', scheme: 'http', compat: 'bare-origin', index: 0 }]);
  });

  it.each([
    ['path', 'https://a.example/agent'],
    ['well-known path', `https://a.example${WELL_KNOWN_PATH}`],
    ['query', 'https://a.example/?x=1'],
    ['empty query', 'https://a.example?'],
    ['fragment', 'https://a.example#f'],
    ['two slashes', 'https://a.example//'],
  ])('typed type=directory value with a %s → member dropped (not an origin)', (_name, url) => {
    const p = parseSignatureAgent(`sig1="${url}";type=directory`, { typedSignatureAgent: true });
    expect(p.members).toEqual([]);
    expect(codes(p)).toEqual(['not-an-origin']);
  });

  it('type=directory origins: trailing slash and port allowed', () => {
    expect(parseSignatureAgent('sig1="https://a.example/"').members).toHaveLength(1);
    expect(parseSignatureAgent('sig1="https://a.example:8443"').members).toHaveLength(1);
    expect(parseSignatureAgent('sig1="HTTPS://A.EXAMPLE"').members[0]?.scheme).toBe('https');
  });

  it.each([
    ['userinfo', 'sig1="https://user@a.example"', 'uri-userinfo'],
    ['userinfo in jwks_uri', 'sig1="https://u:p@a.example/j";type=jwks_uri', 'uri-userinfo'],
    ['relative reference', 'sig1="/jwks.json";type=jwks_uri', 'uri-not-absolute'],
    ['empty value', 'sig1=""', 'uri-not-absolute'],
    ['no authority', 'sig1="https:a.example"', 'uri-no-authority'],
    ['empty host', 'sig1="https:///x";type=jwks_uri', 'uri-unparseable'],
    ['ftp scheme', 'sig1="ftp://a.example"', 'scheme-unsupported'],
    ['urn', 'sig1="urn:example:agent"', 'scheme-unsupported'],
  ])('%s → member dropped', (_name, header, code) => {
    const p = parseSignatureAgent(header, { typedSignatureAgent: true });
    expect(p.ignored).toBe(false);
    expect(p.members).toEqual([]);
    expect(codes(p)).toEqual([code]);
  });

  it('jwks_uri and cimd take any absolute https URL (path, query, fragment)', () => {
    const p = parseSignatureAgent('a="https://a.example/keys?v=2#x";type=jwks_uri, b="https://b.example/bot";type=cimd', { typedSignatureAgent: true });
    expect(p.members.map((m) => [m.key, m.type])).toEqual([
      ['a', 'jwks_uri'],
      ['b', 'cimd'],
    ]);
  });
});

describe('parseSignatureAgent: inline data: directories (SPEC 2.3, RFC 2397; typedSignatureAgent)', () => {
  const TYPED = { typedSignatureAgent: true } as const;
  it('base64 data with the directory media type', () => {
    const url = `data:${DIRECTORY_MEDIA_TYPE};base64,${base64Encode(utf8(INLINE_JSON))}`;
    const p = parseSignatureAgent(`sig1="${url}"`, TYPED);
    expect(p.members).toHaveLength(1);
    const m = p.members[0]!;
    expect(m).toMatchObject({ key: 'sig1', url, type: 'directory', scheme: 'data' });
    expect(m.inline?.mediaType).toBe(DIRECTORY_MEDIA_TYPE);
    expect(new TextDecoder().decode(m.inline?.body)).toBe(INLINE_JSON);
  });

  it('percent-encoded data with the directory media type', () => {
    const url = `data:${DIRECTORY_MEDIA_TYPE},${encodeURIComponent(INLINE_JSON)}`;
    const m = parseSignatureAgent(`sig1="${url}"`, TYPED).members[0];
    expect(new TextDecoder().decode(m?.inline?.body)).toBe(INLINE_JSON);
  });

  it('data: only with type=directory', () => {
    const url = `data:${DIRECTORY_MEDIA_TYPE};base64,e30=`;
    for (const type of ['jwks_uri', 'cimd']) {
      const p = parseSignatureAgent(`sig1="${url}";type=${type}`, TYPED);
      expect(p.members).toEqual([]);
      expect(codes(p)).toEqual(['data-requires-directory']);
    }
  });

  it('data: with another media type (even the legacy one or plain JSON) is dropped', () => {
    for (const mt of ['application/json', 'application/http-message-signatures-directory', 'text/plain', '']) {
      const p = parseSignatureAgent(`sig1="data:${mt};base64,e30="`, TYPED);
      expect(p.members, mt).toEqual([]);
      expect(codes(p)).toEqual(['data-media-type']);
    }
  });

  it('malformed data: URL is dropped', () => {
    const p = parseSignatureAgent(`sig1="data:${DIRECTORY_MEDIA_TYPE};base64,%%%"`, TYPED);
    // "%%%" is not a URI-reference: that makes the header ignored instead.
    expect(p.ignored).toBe(true);
    const q = parseSignatureAgent(`sig1="data:${DIRECTORY_MEDIA_TYPE};base64,QR=="`, TYPED);
    expect(q.members).toEqual([]);
    expect(codes(q)).toEqual(['data-invalid']);
  });
});

describe('serializeSignatureAgent (NOTES: emit the Dictionary form)', () => {
  it('array form, type omitted for directory', () => {
    expect(
      serializeSignatureAgent([
        { key: 'sig1', url: 'https://a.example' },
        { key: 'sig2', url: 'https://a.example/jwks.json', type: 'jwks_uri' },
        { key: 'sig3', url: 'https://a.example/card', type: 'cimd' },
        { key: 'sig4', url: 'https://b.example', type: 'directory' },
      ]),
    ).toBe('sig1="https://a.example", sig2="https://a.example/jwks.json";type=jwks_uri, sig3="https://a.example/card";type=cimd, sig4="https://b.example"');
  });

  it('record form', () => {
    expect(serializeSignatureAgent({ sig1: 'https://a.example', agent2: { url: 'https://b.example/c', type: 'cimd' } })).toBe(
      'sig1="https://a.example", agent2="https://b.example/c";type=cimd',
    );
  });

  it('empty input gives an empty string', () => {
    expect(serializeSignatureAgent([])).toBe('');
    expect(serializeSignatureAgent({})).toBe('');
  });

  it('round trip: serialise → parse gives the same members (property)', () => {
    const key = fc.tuple(fc.constantFrom(...'abcz*'), fc.string({ unit: fc.constantFrom(...'abz09_-.*'), maxLength: 8 })).map(([a, b]) => a + b);
    const host = fc.domain();
    const member = fc.oneof(
      fc.record({ url: host.map((h) => `https://${h}`), type: fc.constant('directory' as const) }),
      fc.record({ url: fc.webUrl({ validSchemes: ['https'], withQueryParameters: true }), type: fc.constantFrom('jwks_uri' as const, 'cimd' as const) }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, member), { selector: ([k]) => k, maxLength: 5 }), (entries) => {
        const members = entries.map(([k, m]) => ({ key: k, ...m }));
        // fc.webUrl may produce characters outside RFC 3986 (it targets WHATWG); keep only what SPEC allows.
        let header: string;
        try {
          header = serializeSignatureAgent(members);
        } catch (error) {
          expect(isBotsigError(error) && error.code).toBe('ERR_SIGNATURE_AGENT_INVALID');
          return;
        }
        const parsed = parseSignatureAgent(header, { typedSignatureAgent: true });
        expect(parsed.ignored).toBe(false);
        expect(parsed.diagnostics).toEqual([]);
        expect(parsed.members.map((m) => ({ key: m.key, url: m.url, type: m.type }))).toEqual(members);
      }),
    );
  });

  it('round trip of a data: member', () => {
    const url = `data:${DIRECTORY_MEDIA_TYPE};base64,${base64Encode(utf8(INLINE_JSON))}`;
    const parsed = parseSignatureAgent(serializeSignatureAgent([{ key: 'sig1', url }]), { typedSignatureAgent: true });
    expect(parsed.members[0]?.scheme).toBe('data');
  });

  it('a member without type is a draft -01 member: any https URL, no parameter', () => {
    expect(serializeSignatureAgent([{ key: 'sig1', url: 'https://a.example/jwks.json' }])).toBe('sig1="https://a.example/jwks.json"');
    expect(serializeSignatureAgent({ sig1: 'https://a.example/.well-known/http-message-signatures-directory' })).toBe(
      'sig1="https://a.example/.well-known/http-message-signatures-directory"',
    );
  });

  it('http is allowed on output (SPEC 2.3 lists it)', () => {
    expect(serializeSignatureAgent([{ key: 'sig1', url: 'http://localhost:8080' }])).toBe('sig1="http://localhost:8080"');
  });

  it.each([
    ['uppercase key', [{ key: 'Sig1', url: 'https://a.example' }]],
    ['key starting with a digit', [{ key: '1sig', url: 'https://a.example' }]],
    ['empty key', [{ key: '', url: 'https://a.example' }]],
    [
      'repeated key',
      [
        { key: 'a', url: 'https://a.example' },
        { key: 'a', url: 'https://b.example' },
      ],
    ],
    ['non-string url', [{ key: 'a', url: 42 }]],
    ['unknown type', [{ key: 'a', url: 'https://a.example', type: 'other' }]],
    ['null member', [null]],
  ])('TypeError for %s', (_name, members) => {
    expect(() => serializeSignatureAgent(members as never)).toThrow(TypeError);
  });

  it('TypeError for a non-object argument and for a bad record value', () => {
    expect(() => serializeSignatureAgent('x' as never)).toThrow(TypeError);
    expect(() => serializeSignatureAgent({ a: 1 } as never)).toThrow(TypeError);
  });

  it.each([
    ['not a URI-reference', 'https://a example', undefined],
    ['directory with a path', 'https://a.example/path', 'directory'],
    ['bad scheme', 'ftp://a.example', undefined],
    ['angle brackets', '<https://a.example>', undefined],
    ['data: with the wrong media type', 'data:application/json;base64,e30=', undefined],
  ] as const)('ERR_SIGNATURE_AGENT_INVALID for %s', (_name, url, type) => {
    try {
      serializeSignatureAgent([{ key: 'sig1', url, ...(type === undefined ? {} : { type }) }]);
      expect.unreachable();
    } catch (error) {
      expect(isBotsigError(error) && error.code).toBe('ERR_SIGNATURE_AGENT_INVALID');
      expect((error as Error).message).not.toContain(url);
    }
  });
});

describe('signatureAgentComponent (SPEC 5.2 rule 2)', () => {
  it('gives the component identifier text', () => {
    expect(signatureAgentComponent('sig1')).toBe('"signature-agent";key="sig1"');
    expect(signatureAgentComponent('agent2')).toBe('"signature-agent";key="agent2"');
  });
  it('TypeError for an invalid key', () => {
    expect(() => signatureAgentComponent('Sig"1')).toThrow(TypeError);
    expect(() => signatureAgentComponent(1 as never)).toThrow(TypeError);
  });
});

describe('directoryUrlFor / agentIdentifier (SPEC 4.1, NOTES "Keys and identity")', () => {
  const member = (url: string, type: SignatureAgentMember['type'] = 'directory'): SignatureAgentMember => {
    const m = parseSignatureAgent(serializeSignatureAgent([{ key: 'k', url, type }]), { allowHttp: true, typedSignatureAgent: true }).members[0];
    if (m === undefined) throw new Error(`no member for ${url}`);
    return m;
  };

  it('directory: the well-known URL of the origin', () => {
    expect(directoryUrlFor(member('https://signature-agent.test'))).toBe(`https://signature-agent.test${WELL_KNOWN_PATH}`);
    expect(directoryUrlFor(member('https://Agent.Example:443/'))).toBe(`https://agent.example${WELL_KNOWN_PATH}`);
    expect(directoryUrlFor(member('https://agent.example:8443'))).toBe(`https://agent.example:8443${WELL_KNOWN_PATH}`);
    expect(directoryUrlFor(member('http://localhost:8080'))).toBe(`http://localhost:8080${WELL_KNOWN_PATH}`);
    expect(agentIdentifier(member('HTTPS://Agent.Example'))).toBe(`https://agent.example${WELL_KNOWN_PATH}`);
  });

  it('jwks_uri/cimd: fetched as sent (query kept, fragment dropped); identified without the query, normalised (draft -01, RFC 3986 §6.2.2–6.2.3)', () => {
    const j = member('https://Agent.Example:443/a/./keys%2djwks.json?v=2#frag', 'jwks_uri');
    expect(directoryUrlFor(j)).toBe('https://agent.example/a/keys%2djwks.json?v=2');
    expect(agentIdentifier(j)).toBe('https://agent.example/a/keys-jwks.json');
    // One key set must not yield an identifier per spelling: the query is not part of the identity.
    const a = member('https://keys.host.example/jwks?tenant=alice', 'jwks_uri');
    const b = member('https://keys.host.example/jwks?tenant=mallory', 'jwks_uri');
    expect(directoryUrlFor(a)).toBe('https://keys.host.example/jwks?tenant=alice');
    expect(agentIdentifier(a)).toBe('https://keys.host.example/jwks');
    expect(agentIdentifier(b)).toBe(agentIdentifier(a));
    expect(agentIdentifier(member('https://keys.host.example/card?id=a#x', 'cimd'))).toBe('https://keys.host.example/card');
    const c = member('https://agent.example/bot', 'cimd');
    expect(directoryUrlFor(c)).toBe('https://agent.example/bot');
    expect(agentIdentifier(c)).toBe('https://agent.example/bot');
  });

  it('a bare origin (deployed dialect) and its well-known URL sent as is are the same agent', () => {
    const bare = parseSignatureAgent('"https://Agent.Example"').members[0]!;
    const full = parseSignatureAgent(`sig1="https://agent.example${WELL_KNOWN_PATH}"`).members[0]!;
    const query = parseSignatureAgent(`sig1="https://agent.example:443${WELL_KNOWN_PATH}?x=1"`).members[0]!;
    expect(agentIdentifier(bare)).toBe(`https://agent.example${WELL_KNOWN_PATH}`);
    expect(agentIdentifier(full)).toBe(agentIdentifier(bare));
    expect(agentIdentifier(query)).toBe(agentIdentifier(bare));
    expect(directoryUrlFor(query)).toBe(`https://agent.example${WELL_KNOWN_PATH}?x=1`);
  });

  it('data: members have nothing to fetch and no URL identifier', () => {
    const url = `data:${DIRECTORY_MEDIA_TYPE};base64,e30=`;
    const m = member(url);
    expect(directoryUrlFor(m)).toBeUndefined();
    expect(agentIdentifier(m)).toBeUndefined();
  });

  it('misuse: TypeError for a non-member, ERR_URL_INVALID for a hand-made bad value', () => {
    expect(() => directoryUrlFor(null as never)).toThrow(TypeError);
    expect(() => agentIdentifier({ url: 'x', type: 'bogus' } as never)).toThrow(TypeError);
    try {
      directoryUrlFor({ url: 'not a url', type: 'directory', scheme: 'https', index: 0 });
      expect.unreachable();
    } catch (error) {
      expect(isBotsigError(error) && error.code).toBe('ERR_URL_INVALID');
    }
  });
});

describe('parseSignatureAgent: hostile input (property)', () => {
  const fragments = fc.constantFrom(
    'sig1=',
    '"https://a.example"',
    '"data:application/http-message-signatures-directory+json;base64,e30="',
    ';type=jwks_uri',
    ';type=cimd',
    ';type=x',
    ', ',
    '<',
    '>',
    '"',
    '\\',
    '(',
    ')',
    'https://',
    '%',
    '?',
    '#',
    '=',
    ' ',
    'a',
  );
  const headerish = fc.array(fragments, { maxLength: 12 }).map((a) => a.join(''));

  it('never throws on random strings or arrays of strings', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), headerish, fc.array(fc.oneof(fc.string({ maxLength: 60 }), headerish), { maxLength: 4 })),
        fc.boolean(),
        (value, allowHttp) => {
          const p = parseSignatureAgent(value, { allowHttp });
          if (p.ignored) expect(p.members).toEqual([]);
          for (const m of p.members) {
            expect(['https', 'http', 'data']).toContain(m.scheme);
            if (!allowHttp) expect(m.scheme).not.toBe('http');
            if (m.scheme === 'data') expect(m.type).toBe('directory');
            // Every usable member resolves without throwing.
            directoryUrlFor(m);
            agentIdentifier(m);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('TypeError for wrong argument types', () => {
    expect(() => parseSignatureAgent(42 as never)).toThrow(TypeError);
    expect(() => parseSignatureAgent([1] as never)).toThrow(TypeError);
    expect(() => parseSignatureAgent({} as never)).toThrow(TypeError);
  });
});
