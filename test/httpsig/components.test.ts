import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isBotsigError, componentValues, parseComponentIdentifier, serializeComponentIdentifier, toHttpMessage } from '../../src/httpsig';
import type { HttpMessage, MessageObject } from '../../src/httpsig';
import { queryParamValues } from '../../src/httpsig/components';
import { codeOf } from '../helpers/errors';

function values(message: MessageObject | HttpMessage, id: string, request?: MessageObject): string[] {
  return componentValues(toHttpMessage(message, request === undefined ? undefined : { request }), parseComponentIdentifier(id));
}

function value(message: MessageObject | HttpMessage, id: string, request?: MessageObject): string {
  const v = values(message, id, request);
  expect(v).toHaveLength(1);
  return v[0]!;
}

const post = { method: 'POST', url: 'https://www.example.com/path?param=value', headers: { Host: 'www.example.com' } };

describe('component identifiers (RFC 9421 §2)', () => {
  it('parses quoted identifiers with parameters in order', () => {
    const id = parseComponentIdentifier('"signature-agent";key="sig1";req');
    expect(id.name).toBe('signature-agent');
    expect([...id.params.keys()]).toEqual(['key', 'req']);
    expect(serializeComponentIdentifier(id)).toBe('"signature-agent";key="sig1";req');
  });

  it('parses bare names, lowercasing field names only', () => {
    expect(parseComponentIdentifier('@authority')).toEqual({ name: '@authority', params: new Map() });
    expect(parseComponentIdentifier('Content-Digest').name).toBe('content-digest');
    expect(serializeComponentIdentifier(parseComponentIdentifier('content-digest;sf'))).toBe('"content-digest";sf');
    expect(serializeComponentIdentifier(parseComponentIdentifier('@query-param;name="Pet"'))).toBe('"@query-param";name="Pet"');
  });

  it('refuses identifiers that are not Strings or names with bad characters', () => {
    expect(codeOf(() => parseComponentIdentifier('"a'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => parseComponentIdentifier('a b'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => parseComponentIdentifier('@'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => parseComponentIdentifier('x;=1'))).toBe('ERR_COMPONENT_INVALID');
    expect(() => parseComponentIdentifier(42 as unknown as string)).toThrow(TypeError);
  });

  it('fast-check: random text gives an identifier or a BotsigError, never anything else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('"a";b', '@x;y="z"', '"@q";name=?1')), (text) => {
        try {
          const id = parseComponentIdentifier(text);
          expect(typeof id.name).toBe('string');
        } catch (err) {
          expect(isBotsigError(err)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('derived components (RFC 9421 §2.2)', () => {
  it('@method keeps case (§2.2.1)', () => {
    expect(value(post, '@method')).toBe('POST');
    expect(value({ ...post, method: 'patch' }, '@method')).toBe('patch');
    expect(value({ url: 'https://a.example/' }, '@method')).toBe('GET');
  });

  it('@target-uri is the absolute URI without fragment (§2.2.2)', () => {
    expect(value(post, '@target-uri')).toBe('https://www.example.com/path?param=value');
    expect(value({ url: 'https://www.example.com/path?param=value#frag' }, '@target-uri')).toBe('https://www.example.com/path?param=value');
    expect(value({ url: 'HTTPS://WWW.Example.COM:443' }, '@target-uri')).toBe('https://www.example.com/');
  });

  it('@authority lowercases the host and drops the default port (§2.2.3)', () => {
    expect(value(post, '@authority')).toBe('www.example.com');
    expect(value({ url: 'https://WWW.EXAMPLE.COM:443/x' }, '@authority')).toBe('www.example.com');
    expect(value({ url: 'http://example.com:80/x' }, '@authority')).toBe('example.com');
    expect(value({ url: 'https://example.com:8443/x' }, '@authority')).toBe('example.com:8443');
    expect(value({ url: 'http://example.com:443/x' }, '@authority')).toBe('example.com:443');
    expect(value({ url: 'http://[::1]:8080/' }, '@authority')).toBe('[::1]:8080');
  });

  it('@scheme is lowercase (§2.2.4)', () => {
    expect(value({ ...post, url: 'http://www.example.com/path?param=value' }, '@scheme')).toBe('http');
    expect(value({ url: 'HTTPS://example.com/' }, '@scheme')).toBe('https');
  });

  it('@request-target is path and query in origin form (§2.2.5)', () => {
    expect(value(post, '@request-target')).toBe('/path?param=value');
    expect(value({ url: 'https://example.com' }, '@request-target')).toBe('/');
  });

  it('@request-target takes the request line target when given: absolute, authority and asterisk forms (§2.2.5)', () => {
    expect(value({ url: 'https://www.example.com/path?param=value', target: 'https://www.example.com/path?param=value' }, '@request-target')).toBe(
      'https://www.example.com/path?param=value',
    );
    expect(value({ method: 'CONNECT', url: 'https://www.example.com:80/', target: 'www.example.com:80' }, '@request-target')).toBe('www.example.com:80');
    expect(value({ method: 'OPTIONS', url: 'https://www.example.com/', target: '*' }, '@request-target')).toBe('*');
    expect(codeOf(() => values({ url: 'https://e.example/', target: 'a b' }, '@request-target'))).toBe('ERR_MESSAGE_INVALID');
    expect(() => toHttpMessage({ target: 1 } as never)).toThrow(TypeError);
  });

  it('@path: empty path is "/", percent-encoding kept (§2.2.6)', () => {
    expect(value({ url: 'https://www.example.com/path?param=value' }, '@path')).toBe('/path');
    expect(value({ url: 'https://www.example.com' }, '@path')).toBe('/');
    expect(value({ url: 'https://www.example.com?x=1' }, '@path')).toBe('/');
    expect(value({ url: 'https://www.example.com/a%2Fb/c' }, '@path')).toBe('/a%2Fb/c');
  });

  it('@query keeps the query as sent and is "?" when absent (§2.2.7)', () => {
    expect(value({ url: 'https://www.example.com/path?param=value&foo=bar&baz=bat%2Dman' }, '@query')).toBe('?param=value&foo=bar&baz=bat%2Dman');
    expect(value({ url: 'https://www.example.com/path?queryString' }, '@query')).toBe('?queryString');
    expect(value({ url: 'https://www.example.com/path' }, '@query')).toBe('?');
    expect(value({ url: 'https://www.example.com/path?' }, '@query')).toBe('?');
  });

  it('@query-param examples of §2.2.8', () => {
    const m = { url: 'https://www.example.com/path?param=value&foo=bar&baz=batman&qux=' };
    expect(value(m, '"@query-param";name="baz"')).toBe('batman');
    expect(value(m, '"@query-param";name="qux"')).toBe('');
    expect(value(m, '"@query-param";name="param"')).toBe('value');
    const m2 = {
      url: 'https://www.example.com/parameters?var=this%20is%20a%20big%0Amultiline%20value&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something',
    };
    expect(value(m2, '"@query-param";name="var"')).toBe('this%20is%20a%20big%0Amultiline%20value');
    expect(value(m2, '"@query-param";name="bar"')).toBe('with%20plus%20whitespace');
    expect(value(m2, '"@query-param";name="fa%C3%A7ade%22%3A%20"')).toBe('something');
  });

  it('@query-param: decoded then re-encoded names match, absent names are missing (§2.2.8)', () => {
    const m = { url: 'https://example.com/?b%61z=1&x=%7e&y=a~b' };
    expect(value(m, '"@query-param";name="baz"')).toBe('1');
    expect(value(m, '"@query-param";name="x"')).toBe('%7E');
    expect(value(m, '"@query-param";name="y"')).toBe('a%7Eb');
    expect(codeOf(() => values(m, '"@query-param";name="nope"'))).toBe('ERR_COMPONENT_MISSING');
    expect(codeOf(() => values(m, '@query-param'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => values({ url: 'https://example.com/' }, '"@query-param";name="a"'))).toBe('ERR_COMPONENT_MISSING');
  });

  it('@query-param gives one value per occurrence of a repeated name, in order', () => {
    expect(values({ url: 'https://example.com/?a=1&b=2&a=3' }, '"@query-param";name="a"')).toEqual(['1', '3']);
  });

  it('queryParamValues follows form-urlencoded parsing: empty sequences skipped, "+" is SP, bad % kept', () => {
    expect(queryParamValues('&&a&&a=&', 'a')).toEqual(['', '']);
    expect(queryParamValues('a=%zz%4', 'a')).toEqual(['%25zz%254']);
    expect(queryParamValues('a=%2B+', 'a')).toEqual(['%2B%20']);
    expect(queryParamValues('a=%FF', 'a')).toEqual(['%EF%BF%BD']);
    expect(queryParamValues('a==b', 'a')).toEqual(['%3Db']);
  });

  it('@status is three digits, responses only (§2.2.9)', () => {
    expect(value({ status: 200, headers: {} }, '@status')).toBe('200');
    expect(codeOf(() => values(post, '@status'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => values({ status: 42 }, '@status'))).toBe('ERR_MESSAGE_INVALID');
  });

  it('request-only derived components refuse a response without ;req', () => {
    for (const name of ['@method', '@target-uri', '@authority', '@scheme', '@request-target', '@path', '@query']) {
      expect(
        codeOf(() => values({ status: 200 }, name)),
        name,
      ).toBe('ERR_COMPONENT_INVALID');
    }
  });

  it('unknown derived names and @request-response are unsupported; @signature-params cannot be covered', () => {
    expect(codeOf(() => values(post, '@request-response'))).toBe('ERR_COMPONENT_UNSUPPORTED');
    expect(codeOf(() => values(post, '@nope'))).toBe('ERR_COMPONENT_UNSUPPORTED');
    expect(codeOf(() => values(post, '@signature-params'))).toBe('ERR_COMPONENT_INVALID');
  });

  it('derived components refuse sf, key, bs and tr; name only on @query-param', () => {
    for (const p of [';sf', ';key="a"', ';bs', ';tr']) {
      expect(
        codeOf(() => values(post, `"@authority"${p}`)),
        p,
      ).toBe('ERR_COMPONENT_INVALID');
    }
    expect(codeOf(() => values(post, '"@authority";name="a"'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => values(post, '"@authority";foo'))).toBe('ERR_COMPONENT_UNSUPPORTED');
  });

  it('a message without a usable URL is ERR_MESSAGE_INVALID', () => {
    expect(codeOf(() => values({ method: 'GET' }, '@authority'))).toBe('ERR_MESSAGE_INVALID');
    expect(codeOf(() => values({ url: '/relative' }, '@path'))).toBe('ERR_MESSAGE_INVALID');
    expect(codeOf(() => values({ url: 'https://exa mple.com/' }, '@path'))).toBe('ERR_MESSAGE_INVALID');
  });
});

describe('HTTP fields (RFC 9421 §2.1)', () => {
  const fields: MessageObject = {
    url: 'https://www.example.com/',
    headers: [
      ['Host', 'www.example.com'],
      ['Date', 'Tue, 20 Apr 2021 02:07:56 GMT'],
      ['X-OWS-Header', '   Leading and trailing whitespace.   '],
      ['X-Obs-Fold-Header', 'Obsolete\r\n    line folding.'],
      ['Cache-Control', 'max-age=60'],
      ['Cache-Control', '   must-revalidate'],
      ['Example-Dict', ' a=1,    b=2;x=1;y=2,   c=(a   b   c)'],
      ['X-Empty-Header', ''],
    ],
  };

  it('the field examples of §2.1', () => {
    expect(value(fields, 'host')).toBe('www.example.com');
    expect(value(fields, 'date')).toBe('Tue, 20 Apr 2021 02:07:56 GMT');
    expect(value(fields, 'x-ows-header')).toBe('Leading and trailing whitespace.');
    expect(value(fields, 'x-obs-fold-header')).toBe('Obsolete line folding.');
    expect(value(fields, 'cache-control')).toBe('max-age=60, must-revalidate');
    expect(value(fields, 'example-dict')).toBe('a=1,    b=2;x=1;y=2,   c=(a   b   c)');
    expect(value(fields, 'x-empty-header')).toBe('');
  });

  it('field names are case-insensitive in the message and lowercase in identifiers', () => {
    expect(value({ headers: { 'CONTENT-TYPE': 'text/plain' } }, 'Content-Type')).toBe('text/plain');
    expect(codeOf(() => values({ headers: { a: 'b' } }, '"Content-Type"'))).toBe('ERR_COMPONENT_INVALID');
  });

  it('an absent field is ERR_COMPONENT_MISSING, never an empty value', () => {
    expect(codeOf(() => values(fields, 'x-missing'))).toBe('ERR_COMPONENT_MISSING');
    expect(codeOf(() => values({ headers: { a: [] } }, 'a'))).toBe('ERR_COMPONENT_MISSING');
  });

  it('CR/LF outside obs-fold and non-ASCII are refused (§2.5 step 4)', () => {
    expect(codeOf(() => values({ headers: { a: 'x\r\ny' } }, 'a'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => values({ headers: { a: 'x\ry' } }, 'a'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => values({ headers: { a: 'caf\u00e9' } }, 'a'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => values({ headers: { a: 'x\u0000' } }, 'a'))).toBe('ERR_COMPONENT_INVALID');
    expect(value({ headers: { a: 'x\ty' } }, 'a')).toBe('x\ty');
  });

  it('obs-fold with a bare LF and several folds', () => {
    expect(value({ headers: { a: 'one \n\ttwo\r\n three' } }, 'a')).toBe('one two three');
  });

  it('Headers objects combine lines; records and pairs keep them', () => {
    const h = new Headers();
    h.append('Accept', 'application/json');
    h.append('Accept', '*/*');
    expect(value({ headers: h }, 'accept')).toBe('application/json, */*');
    expect(value({ headers: { accept: ['application/json', '*/*'] } }, 'accept')).toBe('application/json, */*');
  });

  describe(';sf (§2.1.1)', () => {
    it('re-serialises a known Dictionary', () => {
      expect(value(fields, 'example-dict;sf')).toBe('a=1, b=2;x=1;y=2, c=(a b c)');
    });

    it('combines several lines of a List or Dictionary before serialising', () => {
      expect(
        value(
          {
            headers: [
              ['proxy-status', 'a;error=x'],
              ['Proxy-Status', '  b '],
            ],
          },
          'proxy-status;sf',
        ),
      ).toBe('a;error=x, b');
      expect(
        value(
          {
            headers: [
              ['priority', 'u=1'],
              ['priority', ''],
              ['priority', 'i'],
            ],
          },
          'priority;sf',
        ),
      ).toBe('u=1, i');
    });

    it('keeps Integer and Decimal apart', () => {
      expect(value({ headers: { 'example-dict': 'a=1.0, b=1' } }, 'example-dict;sf')).toBe('a=1.0, b=1');
    });

    it('items serialise as items', () => {
      expect(value({ headers: { 'sec-ch-ua-mobile': '?0' } }, 'sec-ch-ua-mobile;sf')).toBe('?0');
    });

    it('an unknown field type is ERR_COMPONENT_UNSUPPORTED unless the caller declares it', () => {
      const m = toHttpMessage({ headers: { 'x-thing': 'a,   b' } });
      const id = parseComponentIdentifier('x-thing;sf');
      expect(codeOf(() => componentValues(m, id))).toBe('ERR_COMPONENT_UNSUPPORTED');
      expect(componentValues(m, id, { structuredFields: { 'x-thing': 'list' } })).toEqual(['a, b']);
    });

    it('a malformed structured value is ERR_COMPONENT_INVALID', () => {
      expect(codeOf(() => values({ headers: { 'example-dict': 'a=(' } }, 'example-dict;sf'))).toBe('ERR_COMPONENT_INVALID');
    });
  });

  describe(';key (§2.1.2)', () => {
    const dict = { headers: { 'Example-Dict': ' a=1, b=2;x=1;y=2, c=(a   b    c), d' } };

    it('the member examples of §2.1.2', () => {
      expect(value(dict, '"example-dict";key="a"')).toBe('1');
      expect(value(dict, '"example-dict";key="d"')).toBe('?1');
      expect(value(dict, '"example-dict";key="b"')).toBe('2;x=1;y=2');
      expect(value(dict, '"example-dict";key="c"')).toBe('(a b c)');
    });

    it('a missing member is ERR_COMPONENT_MISSING', () => {
      expect(codeOf(() => values({ headers: { 'example-dict': 'a=1, b=2' } }, '"example-dict";key="c"'))).toBe('ERR_COMPONENT_MISSING');
    });

    it('works on fields of unknown type, refuses known non-Dictionaries', () => {
      expect(value({ headers: { 'x-d': 'k="v"' } }, '"x-d";key="k"')).toBe('"v"');
      expect(codeOf(() => values({ headers: { 'proxy-status': 'a' } }, '"proxy-status";key="a"'))).toBe('ERR_COMPONENT_UNSUPPORTED');
      expect(codeOf(() => values({ headers: { 'x-d': 'not a dict' } }, '"x-d";key="k"'))).toBe('ERR_COMPONENT_INVALID');
    });

    it('Signature-Agent member selection, as Web Bot Auth covers it', () => {
      const m = { headers: { 'Signature-Agent': 'sig1="https://agent.example"' } };
      expect(value(m, '"signature-agent";key="sig1"')).toBe('"https://agent.example"');
    });

    it('the key parameter must be a String', () => {
      expect(codeOf(() => values(dict, '"example-dict";key=a'))).toBe('ERR_COMPONENT_INVALID');
    });
  });

  describe(';bs (§2.1.3)', () => {
    it('the examples of §2.1.3', () => {
      expect(
        value(
          {
            headers: [
              ['Example-Header', 'value, with, lots'],
              ['Example-Header', 'of, commas'],
            ],
          },
          'example-header;bs',
        ),
      ).toBe(':dmFsdWUsIHdpdGgsIGxvdHM=:, :b2YsIGNvbW1hcw==:');
      expect(value({ headers: { 'Example-Header': 'value, with, lots, of, commas' } }, 'example-header;bs')).toBe(':dmFsdWUsIHdpdGgsIGxvdHMsIG9mLCBjb21tYXM=:');
      expect(
        value(
          {
            headers: [
              ['Example-Header', 'value, with, lots'],
              ['Example-Header', 'of, commas'],
            ],
          },
          'example-header',
        ),
      ).toBe('value, with, lots, of, commas');
    });

    it('wraps non-ASCII octets instead of refusing them', () => {
      // "é" as one ISO-8859-1 octet (how Headers and Node hand it over): 0xE9.
      expect(value({ headers: { a: ' caf\u00e9 ' } }, 'a;bs')).toBe(':Y2Fm6Q==:');
    });

    it('cannot be combined with sf or key', () => {
      expect(codeOf(() => values({ headers: { 'example-dict': 'a=1' } }, 'example-dict;bs;sf'))).toBe('ERR_COMPONENT_INVALID');
      expect(codeOf(() => values({ headers: { 'example-dict': 'a=1' } }, '"example-dict";key="a";bs'))).toBe('ERR_COMPONENT_INVALID');
    });
  });

  describe(';tr (§2.1.4)', () => {
    it('takes the value from trailers, separately from headers', () => {
      const m: MessageObject = { status: 200, headers: { Trailer: 'Expires', Expires: 'header-value' }, trailers: { Expires: 'Wed, 9 Nov 2022 07:28:00 GMT' } };
      expect(value(m, '@status')).toBe('200');
      expect(value(m, 'trailer')).toBe('Expires');
      expect(value(m, 'expires;tr')).toBe('Wed, 9 Nov 2022 07:28:00 GMT');
      expect(value(m, 'expires')).toBe('header-value');
      expect(codeOf(() => values({ status: 200, headers: {} }, 'expires;tr'))).toBe('ERR_COMPONENT_MISSING');
    });
  });

  it('flags must be Boolean true and unknown parameters are unsupported', () => {
    expect(codeOf(() => values(fields, 'date;sf=?0'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => values(fields, 'date;foo'))).toBe('ERR_COMPONENT_UNSUPPORTED');
    expect(codeOf(() => values(fields, '"date";name="x"'))).toBe('ERR_COMPONENT_INVALID');
  });
});

describe('request components in a response (RFC 9421 §2.4)', () => {
  const request: MessageObject = {
    method: 'POST',
    url: 'https://example.com/foo?param=Value&Pet=dog',
    headers: { 'Content-Digest': 'sha-512=:req:', 'Content-Type': 'application/json' },
  };
  const response: MessageObject = { status: 503, headers: { 'Content-Digest': 'sha-512=:res:', 'Content-Type': 'application/json' } };

  it('req takes derived components and fields from the related request', () => {
    expect(value(response, '@status', request)).toBe('503');
    expect(value(response, 'content-digest', request)).toBe('sha-512=:res:');
    expect(value(response, '"@authority";req', request)).toBe('example.com');
    expect(value(response, '"@method";req', request)).toBe('POST');
    expect(value(response, '"@path";req', request)).toBe('/foo');
    expect(value(response, '"@query";req', request)).toBe('?param=Value&Pet=dog');
    expect(value(response, '"content-digest";req', request)).toBe('sha-512=:req:');
    expect(value(response, '"@query-param";name="Pet";req', request)).toBe('dog');
  });

  it('req on a request is invalid; req without the request is missing; @status;req is invalid', () => {
    expect(codeOf(() => values(request, '"@authority";req'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => values(response, '"@authority";req'))).toBe('ERR_COMPONENT_MISSING');
    expect(codeOf(() => values(response, '"@status";req', request))).toBe('ERR_COMPONENT_INVALID');
  });

  it('a WHATWG Response with a WHATWG Request', () => {
    const res = new Response('x', { status: 201, headers: { 'X-A': 'b' } });
    const req = new Request('https://Example.com:443/p?q', { method: 'PUT' });
    const m = toHttpMessage(res, { request: req });
    expect(componentValues(m, parseComponentIdentifier('@status'))).toEqual(['201']);
    expect(componentValues(m, parseComponentIdentifier('"@target-uri";req'))).toEqual(['https://example.com/p?q']);
    expect(componentValues(m, parseComponentIdentifier('"@method";req'))).toEqual(['PUT']);
    expect(componentValues(m, parseComponentIdentifier('x-a'))).toEqual(['b']);
  });
});
