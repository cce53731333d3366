/**
 * Pins for reading and writing `Signature-Agent` (src/profile/signature-agent/parse.ts,
 * serialize.ts, member.ts) that the mutation run showed unpinned (issue 20): misuse is
 * a TypeError that says what is wrong, a member that breaks SPEC 2.3 is refused with
 * ERR_SIGNATURE_AGENT_INVALID (serialiser) or dropped with its diagnostic code (parser).
 */
import { describe, expect, it } from 'vitest';
import {
  DIRECTORY_MEDIA_TYPE,
  type SignatureAgentMember,
  directoryUrlFor,
  parseSignatureAgent,
  serializeSignatureAgent,
  signatureAgentComponent,
} from '../../src/index';

const KEY_ERROR = new TypeError('a Signature-Agent member key must be a Structured Field key (lowercase letter or *, then a-z 0-9 _ - . *)');
const URL_ERROR = new TypeError('a Signature-Agent member url must be a string');
const TYPE_ERROR = new TypeError('a Signature-Agent member type must be directory, jwks_uri or cimd');
const invalid = (message: string) => expect.objectContaining({ code: 'ERR_SIGNATURE_AGENT_INVALID', message });
const DATA_DIR = `data:${DIRECTORY_MEDIA_TYPE};base64,e30=`;

describe('serializeSignatureAgent: misuse is a TypeError that names the rule', () => {
  it('members must be an array or a record', () => {
    for (const bad of ['x', 5, null, undefined, true]) {
      expect(() => serializeSignatureAgent(bad as never), String(bad)).toThrow(new TypeError('serializeSignatureAgent expects an array or a record'));
    }
  });

  it('an array member must be an object', () => {
    for (const bad of [null, 'sig1', 5]) {
      expect(() => serializeSignatureAgent([bad] as never), String(bad)).toThrow(new TypeError('each Signature-Agent member must be an object'));
    }
  });

  it('a record value must be a URL string or { url, type }', () => {
    for (const bad of [null, 5, undefined, true]) {
      expect(() => serializeSignatureAgent({ sig1: bad } as never), String(bad)).toThrow(
        new TypeError('each Signature-Agent member must be a URL string or { url, type }'),
      );
    }
  });

  it('a key must be a Structured Field key (RFC 9651 §3.2), in both shapes', () => {
    for (const key of ['Sig1', '1sig', '', 'a b', undefined, 5]) {
      expect(() => serializeSignatureAgent([{ key, url: 'https://a.example' }] as never), String(key)).toThrow(KEY_ERROR);
    }
    for (const key of ['Sig1', '1sig', 'a"b']) {
      expect(() => serializeSignatureAgent({ [key]: 'https://a.example' }), key).toThrow(KEY_ERROR);
      expect(() => serializeSignatureAgent({ [key]: { url: 'https://a.example' } }), key).toThrow(KEY_ERROR);
    }
    expect(() => signatureAgentComponent('Sig1')).toThrow(KEY_ERROR);
  });

  it('a url must be a string, in both shapes', () => {
    for (const url of [undefined, 5, null, {}]) {
      expect(() => serializeSignatureAgent([{ key: 'sig1', url }] as never), JSON.stringify(url)).toThrow(URL_ERROR);
      expect(() => serializeSignatureAgent({ sig1: { url } } as never), JSON.stringify(url)).toThrow(URL_ERROR);
    }
  });

  it('a type must be directory, jwks_uri or cimd, in both shapes', () => {
    for (const type of ['Directory', '', 'url', null, 5]) {
      expect(() => serializeSignatureAgent([{ key: 'sig1', url: 'https://a.example/j', type }] as never), String(type)).toThrow(TYPE_ERROR);
      expect(() => serializeSignatureAgent({ sig1: { url: 'https://a.example/j', type } } as never), String(type)).toThrow(TYPE_ERROR);
    }
  });

  it('a repeated key is refused (a Dictionary key is unique, RFC 9651 §3.2)', () => {
    expect(() =>
      serializeSignatureAgent([
        { key: 'sig1', url: 'https://a.example' },
        { key: 'sig1', url: 'https://b.example' },
      ]),
    ).toThrow(new TypeError('Signature-Agent member key "sig1" is repeated'));
  });
});

describe('serializeSignatureAgent: SPEC 2.3 value rules', () => {
  it('a value that is not a URI-reference: ERR_SIGNATURE_AGENT_INVALID naming the member', () => {
    expect(() => serializeSignatureAgent({ sig1: 'https://a.example/a b' })).toThrow(
      invalid('Signature-Agent member "sig1" is not a URI-reference (SPEC 2.3)'),
    );
  });

  it('a value that breaks its type rule: ERR_SIGNATURE_AGENT_INVALID with the rule', () => {
    expect(() => serializeSignatureAgent({ sig2: { url: 'https://a.example/path', type: 'directory' } })).toThrow(
      invalid('Signature-Agent member "sig2": a type=directory value must be an origin (scheme://host[:port]) without path, query or fragment'),
    );
    expect(() => serializeSignatureAgent([{ key: 'k', url: 'ftp://a.example' }])).toThrow(invalid('Signature-Agent member "k": scheme must be https'));
  });

  it('http is allowed when writing (the parser decides with allowHttp)', () => {
    expect(serializeSignatureAgent({ sig1: 'http://a.example' })).toBe('sig1="http://a.example"');
  });

  it('`;type=` is written only when the type is not directory', () => {
    expect(serializeSignatureAgent([{ key: 'a', url: 'https://a.example', type: 'directory' }])).toBe('a="https://a.example"');
    expect(serializeSignatureAgent({ a: { url: 'https://a.example' } })).toBe('a="https://a.example"');
    expect(serializeSignatureAgent({ a: { url: 'https://a.example', type: 'directory' } })).toBe('a="https://a.example"');
    expect(serializeSignatureAgent([{ key: 'b', url: 'https://a.example/j', type: 'jwks_uri' }])).toBe('b="https://a.example/j";type=jwks_uri');
    expect(serializeSignatureAgent({ c: { url: 'https://a.example/c', type: 'cimd' } })).toBe('c="https://a.example/c";type=cimd');
  });

  it('members keep their order, joined by ", " (RFC 9651 §4.1.2)', () => {
    expect(
      serializeSignatureAgent([
        { key: 'z', url: 'https://z.example' },
        { key: 'a', url: DATA_DIR },
      ]),
    ).toBe(`z="https://z.example", a="${DATA_DIR}"`);
  });

  it('signatureAgentComponent: "signature-agent";key="<key>"', () => {
    expect(signatureAgentComponent('*a.b-c_1')).toBe('"signature-agent";key="*a.b-c_1"');
    expect(() => signatureAgentComponent(5 as never)).toThrow(KEY_ERROR);
  });
});

const LEGACY = {
  level: 'warning',
  code: 'legacy-string-form',
  message: "Signature-Agent uses the first revision's String form; the current form is a Dictionary",
};
const RAW = {
  level: 'warning',
  code: 'raw-angle-brackets',
  message: 'Signature-Agent is an unquoted <…> value, not a Structured Field; accepted as a String',
};
const SF_PARSE = { level: 'error', code: 'sf-parse', message: 'Signature-Agent is neither a Dictionary nor a String (RFC 9651); header ignored' };
const NOT_STRING = (at: string) => ({ level: 'error', code: 'member-not-string', message: 'Signature-Agent member is not a String Item; member ignored', at });
const ANGLE = (at: string) => ({ level: 'warning', code: 'angle-brackets', message: 'Signature-Agent value is wrapped in <…>; brackets removed', at });
const URI_INVALID = (at: string) => ({
  level: 'error',
  code: 'uri-invalid',
  message: 'Signature-Agent value is not a URI-reference (RFC 3986); header ignored',
  at,
});
const dropped = (code: string, message: string, at = 'a') => ({ level: 'error', code, message: `${message}; member ignored`, at });

describe('parseSignatureAgent: what it accepts as input', () => {
  it('a value that is not a string, an array of strings, null or undefined is a TypeError', () => {
    for (const bad of [5, {}, true]) {
      expect(() => parseSignatureAgent(bad as never), JSON.stringify(bad)).toThrow(
        new TypeError('parseSignatureAgent expects a string, an array of strings, null or undefined'),
      );
    }
    expect(() => parseSignatureAgent(['a="https://a.example"', 5] as never)).toThrow(new TypeError('parseSignatureAgent expects an array of strings'));
  });

  it('no field line, or only empty lines: absent, not ignored, no diagnostics', () => {
    for (const value of [null, undefined, [], '', '   ', ['', ' \t ']]) {
      expect(parseSignatureAgent(value as never), JSON.stringify(value)).toStrictEqual({ form: 'absent', members: [], diagnostics: [], ignored: false });
    }
  });

  it('field lines are trimmed, empty ones skipped, the rest combined with ", " (RFC 9110 §5.3)', () => {
    const p = parseSignatureAgent(['  a="https://a.example"  ', '', 'b="https://b.example/j"']);
    expect(p).toStrictEqual({
      form: 'dictionary',
      members: [
        { key: 'a', url: 'https://a.example', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 0 },
        { key: 'b', url: 'https://b.example/j', type: 'jwks_uri', scheme: 'https', index: 1 },
      ],
      diagnostics: [],
      ignored: false,
    });
    expect(parseSignatureAgent('  a="https://a.example"\t').members).toStrictEqual([
      { key: 'a', url: 'https://a.example', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 0 },
    ]);
  });

  it('allowHttp must be exactly true to accept http', () => {
    expect(parseSignatureAgent('a="http://a.example"', { allowHttp: 1 as never }).diagnostics).toStrictEqual([
      dropped('http-not-allowed', 'http: values are accepted only when allowHttp is set'),
    ]);
    expect(parseSignatureAgent('a="http://a.example"', { allowHttp: true }).members).toStrictEqual([
      { key: 'a', url: 'http://a.example', type: 'directory', scheme: 'http', compat: 'bare-origin', index: 0 },
    ]);
  });
});

describe('parseSignatureAgent: the String (first revision) and raw <…> forms (NOTES)', () => {
  it('a List of Strings: form string, members without a key, indexed, and the legacy warning', () => {
    const p = parseSignatureAgent('"https://a.example", "https://b.example"');
    expect(p).toStrictEqual({
      form: 'string',
      members: [
        { url: 'https://a.example', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 0 },
        { url: 'https://b.example', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 1 },
      ],
      diagnostics: [LEGACY],
      ignored: false,
    });
  });

  it('a List with no String member: no candidate, so no legacy warning; the member is named by its index', () => {
    expect(parseSignatureAgent('5, "https://a.example"').diagnostics).toStrictEqual([NOT_STRING('[0]'), LEGACY]);
    expect(parseSignatureAgent('5')).toStrictEqual({ form: 'string', members: [], diagnostics: [NOT_STRING('[0]')], ignored: false });
  });

  it('raw <…> lines, one per line: accepted as Strings with two warnings', () => {
    const p = parseSignatureAgent(['<https://a.example>', '<https://b.example/>']);
    expect(p).toStrictEqual({
      form: 'string',
      members: [
        { url: 'https://a.example', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 0 },
        { url: 'https://b.example/', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 1 },
      ],
      diagnostics: [RAW, LEGACY],
      ignored: false,
    });
  });

  it('anything else that is not a Structured Field: sf-parse, header ignored', () => {
    for (const value of ['<', '>', '<https://a.example', 'https://a.example>', '<a<b>', '<a>b>', ['<https://a.example>', 'https://b.example>'], '(']) {
      expect(parseSignatureAgent(value), JSON.stringify(value)).toStrictEqual({ form: 'absent', members: [], diagnostics: [SF_PARSE], ignored: true });
    }
  });

  it('<> is the raw form of an empty value: a relative reference, dropped', () => {
    expect(parseSignatureAgent('<>').diagnostics).toStrictEqual([
      RAW,
      LEGACY,
      dropped('uri-not-absolute', 'value is a relative reference, not an absolute URI', '[0]'),
    ]);
  });
});

describe('parseSignatureAgent: members (SPEC 2.3)', () => {
  it('a member that is not a String Item is dropped with member-not-string', () => {
    for (const header of ['a=tok', 'a', 'a=("https://a.example")', 'a=5', 'a=:AAA=:']) {
      expect(parseSignatureAgent(header), header).toStrictEqual({ form: 'dictionary', members: [], diagnostics: [NOT_STRING('a')], ignored: false });
    }
  });

  it('a quoted value wrapped in <…> loses its brackets, with a warning; a lone bracket is kept', () => {
    expect(parseSignatureAgent('a="<https://a.example>"')).toStrictEqual({
      form: 'dictionary',
      members: [{ key: 'a', url: 'https://a.example', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 0 }],
      diagnostics: [ANGLE('a')],
      ignored: false,
    });
    expect(parseSignatureAgent('"<https://a.example>"').diagnostics).toStrictEqual([ANGLE('[0]'), LEGACY]);
    expect(parseSignatureAgent('a="<>"').diagnostics).toStrictEqual([
      ANGLE('a'),
      dropped('uri-not-absolute', 'value is a relative reference, not an absolute URI'),
    ]);
    for (const header of ['a="<"', 'a=">"', 'a="<https://a.example"', 'a="https://a.example>"']) {
      expect(parseSignatureAgent(header).diagnostics, header).toStrictEqual([URI_INVALID('a')]);
    }
  });

  it('a value that is not a URI-reference: every one is reported, the header ignored', () => {
    expect(parseSignatureAgent('a="https://a.example", b="a b", c="x y"')).toStrictEqual({
      form: 'dictionary',
      members: [],
      diagnostics: [URI_INVALID('b'), URI_INVALID('c')],
      ignored: true,
    });
    expect(parseSignatureAgent('"a b"')).toStrictEqual({ form: 'string', members: [], diagnostics: [LEGACY, URI_INVALID('[0]')], ignored: true });
  });

  it('the type parameter: a Token among directory, jwks_uri, cimd; otherwise a warning and the member dropped', () => {
    const TYPED = { typedSignatureAgent: true };
    const p = parseSignatureAgent('a="https://a.example/j";type=jwks_uri, b="https://a.example/c";type=cimd, c="https://a.example";type=directory', TYPED);
    expect(p.members.map((m) => [m.key, m.type])).toStrictEqual([
      ['a', 'jwks_uri'],
      ['b', 'cimd'],
      ['c', 'directory'],
    ]);
    expect(parseSignatureAgent('a="https://a.example/j";type="jwks_uri"', TYPED).diagnostics).toStrictEqual([
      { level: 'warning', code: 'type-invalid', message: 'type parameter is not a Token; member ignored', at: 'a' },
    ]);
    expect(parseSignatureAgent('a="https://a.example/j";type=url', TYPED).diagnostics).toStrictEqual([
      { level: 'warning', code: 'type-unsupported', message: 'unsupported type parameter; member ignored (SPEC 2.3)', at: 'a' },
    ]);
    expect(parseSignatureAgent('"https://a.example/j";type=jwks_uri', TYPED).members).toStrictEqual([
      { url: 'https://a.example/j', type: 'jwks_uri', scheme: 'https', compat: 'typed', index: 0 },
    ]);
    // Draft -01: without typedSignatureAgent, a member with any parameter is ignored.
    expect(parseSignatureAgent('a="https://a.example/j";type=jwks_uri').diagnostics.map((d) => [d.level, d.code, d.at])).toStrictEqual([
      ['warning', 'member-parameters', 'a'],
    ]);
    // Parameters without a type: the earlier drafts' default, a directory.
    expect(parseSignatureAgent('a="https://a.example";v=1', TYPED)).toStrictEqual({
      form: 'dictionary',
      members: [{ key: 'a', url: 'https://a.example', type: 'directory', scheme: 'https', compat: 'typed', index: 0 }],
      diagnostics: [],
      ignored: false,
    });
  });

  it('an inline data: directory: read as a typed directory with typedSignatureAgent, otherwise ignored with an error that says how to read it', () => {
    expect(parseSignatureAgent(`a="${DATA_DIR}"`, { typedSignatureAgent: true }).members.map((m) => [m.type, m.compat, m.scheme])).toStrictEqual([
      ['directory', 'typed', 'data'],
    ]);
    expect(parseSignatureAgent(`a="${DATA_DIR}"`)).toStrictEqual({
      form: 'dictionary',
      members: [],
      diagnostics: [
        {
          level: 'error',
          code: 'scheme-unsupported',
          message: "an inline data: directory is an earlier draft's form; member ignored (set typedSignatureAgent to read it)",
          at: 'a',
        },
      ],
      ignored: false,
    });
  });

  it('a dropped member keeps the others at their index', () => {
    expect(parseSignatureAgent('a="ftp://a.example", b="https://b.example"')).toStrictEqual({
      form: 'dictionary',
      members: [{ key: 'b', url: 'https://b.example', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 1 }],
      diagnostics: [dropped('scheme-unsupported', 'scheme must be https')],
      ignored: false,
    });
  });
});

describe('the member rules (SPEC 2.3), through parseSignatureAgent', () => {
  const only = (value: string, type = 'directory', allowHttp = false) =>
    parseSignatureAgent(`a="${value}";type=${type}`, { allowHttp, typedSignatureAgent: true });

  it('a relative reference is not absolute', () => {
    // RFC 3986 §4.2: a colon after "/", "?" or "#" is in a relative reference, not after a scheme.
    // `datax` and `data/x`: a path that starts like the data scheme is not one.
    for (const url of ['a.example', '/p', '', '?q', '/a:b', './x:y', '?q:1', '#f:2', 'a/b:c', 'datax', 'data', 'data/x']) {
      expect(only(url).diagnostics, url).toStrictEqual([dropped('uri-not-absolute', 'value is a relative reference, not an absolute URI')]);
    }
  });

  it('the scheme is compared case-insensitively and reported lowercase', () => {
    expect(only('HTTPS://a.example').members).toStrictEqual([
      { key: 'a', url: 'HTTPS://a.example', type: 'directory', scheme: 'https', compat: 'typed', index: 0 },
    ]);
    expect(only('HtTp://a.example', 'directory', true).members[0]?.scheme).toBe('http');
    const m = only(`DaTa:${DIRECTORY_MEDIA_TYPE},%7B%7D`).members[0];
    expect(m?.scheme).toBe('data');
    expect(new TextDecoder().decode(m?.inline?.body)).toBe('{}');
  });

  it('data: only with type=directory, well-formed, of the directory media type; inline carries media type and body', () => {
    for (const type of ['jwks_uri', 'cimd']) {
      expect(only(DATA_DIR, type).diagnostics).toStrictEqual([
        dropped('data-requires-directory', `a data: value is allowed only with type=directory, not ${type}`),
      ]);
    }
    expect(only('data:nocomma').diagnostics).toStrictEqual([dropped('data-invalid', 'data: value is not a well-formed data URL (RFC 2397)')]);
    expect(only('data:application/json,%7B%7D').diagnostics).toStrictEqual([
      dropped('data-media-type', `a data: value must have media type ${DIRECTORY_MEDIA_TYPE}`),
    ]);
    const m = only(DATA_DIR).members[0];
    expect(m?.inline?.mediaType).toBe(DIRECTORY_MEDIA_TYPE);
    expect(Array.from(m?.inline?.body ?? [])).toStrictEqual([0x7b, 0x7d]);
  });

  it('an https member carries no inline part', () => {
    expect('inline' in (only('https://a.example').members[0] ?? {})).toBe(false);
  });

  it('only https (http when allowed; data with typedSignatureAgent)', () => {
    for (const url of ['ftp://a.example', 'httpx://a.example', 'ws://a.example', 'urn:x']) {
      expect(only(url).diagnostics, url).toStrictEqual([dropped('scheme-unsupported', 'scheme must be https')]);
    }
  });

  it('http only with allowHttp; https always', () => {
    expect(only('http://a.example').diagnostics).toStrictEqual([dropped('http-not-allowed', 'http: values are accepted only when allowHttp is set')]);
    expect(only('https://a.example', 'directory', false).members).toHaveLength(1);
  });

  it('scheme://host is required (RFC 3986 reads "https:host" as a path)', () => {
    for (const url of ['https:a.example', 'https:/a.example', 'https:a/b', 'https:']) {
      expect(only(url, 'jwks_uri').diagnostics, url).toStrictEqual([dropped('uri-no-authority', 'value has no authority (expected scheme://host)')]);
    }
  });

  it('userinfo is refused; an @ after the authority (path, query, fragment) is not userinfo', () => {
    for (const url of ['https://u@a.example', 'https://@a.example', 'https://u:p@a.example/x', 'https://u@a.example?q', 'https://u@a.example#f']) {
      expect(only(url, 'jwks_uri').diagnostics, url).toStrictEqual([dropped('uri-userinfo', 'value carries userinfo, which is not allowed')]);
    }
    for (const url of [
      'https://a.example/@p',
      'https://a.example?@q',
      'https://a.example#@f',
      'https://a.example/p@q/r',
      'https://a.example?x@y/z',
      'https://a.example#x@y/z',
      'https://a.example/p?q@r#s@t/u',
    ]) {
      expect(
        only(url, 'jwks_uri').members.map((m) => m.url),
        url,
      ).toStrictEqual([url]);
    }
  });

  it('a URL the WHATWG parser refuses, or with an empty host, is unusable', () => {
    for (const url of ['https://a.example:99999', 'https:///p', 'https://?q', 'https://#f', 'https://']) {
      expect(only(url, 'jwks_uri').diagnostics, url).toStrictEqual([dropped('uri-unparseable', 'value is not a usable URL')]);
    }
  });

  it('a directory value is an origin, with at most a "/"; jwks_uri and cimd may have a path', () => {
    for (const url of ['https://a.example', 'https://a.example/', 'https://a.example:8443', 'https://a.example:8443/']) {
      expect(
        only(url).members.map((m) => m.url),
        url,
      ).toStrictEqual([url]);
    }
    for (const url of [
      'https://a.example//',
      'https://a.example/p',
      'https://a.example?',
      'https://a.example#',
      'https://a.example?q',
      'https://a.example/#',
    ]) {
      expect(only(url).diagnostics, url).toStrictEqual([
        dropped('not-an-origin', 'a type=directory value must be an origin (scheme://host[:port]) without path, query or fragment'),
      ]);
    }
    expect(only('https://a.example/p?q#f', 'cimd').members).toHaveLength(1);
  });

  it('Structured Field keys (RFC 9651 §3.2): lowercase letter or *, then a-z 0-9 _ - . *', () => {
    for (const key of ['a', 'z', '*', '*a', 'a0', 'a9', 'a_', 'a-', 'a.', 'a*', 'az09_-.*']) {
      expect(serializeSignatureAgent([{ key, url: 'https://a.example' }]), key).toBe(`${key}="https://a.example"`);
    }
    for (const key of ['', '`', '{', '0', '_', 'A', 'a/', 'a:', 'aA', 'a+', 'a`', 'a{', 'a ', 'ab\u0100']) {
      expect(() => serializeSignatureAgent([{ key, url: 'https://a.example' }]), key).toThrow(KEY_ERROR);
    }
  });

  it('directoryUrlFor: a data: value, any case, even bare "data:", has nothing to fetch', () => {
    for (const url of ['data:', 'DATA:,x', `DaTa:${DIRECTORY_MEDIA_TYPE},%7B%7D`]) {
      expect(directoryUrlFor({ url, type: 'directory', scheme: 'data', index: 0 } as SignatureAgentMember), url).toBeUndefined();
    }
  });
});
