import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBotsigError, parseRawHttpMessage } from '../../src/httpsig';

function expectInvalid(text: string): void {
  let caught: unknown;
  try {
    parseRawHttpMessage(text);
  } catch (err) {
    caught = err;
  }
  expect(isBotsigError(caught), `expected ERR_MESSAGE_INVALID for ${JSON.stringify(text)}`).toBe(true);
  expect((caught as { code: string }).code).toBe('ERR_MESSAGE_INVALID');
}

describe('parseRawHttpMessage: requests (RFC 9112 §3)', () => {
  it('reads the RFC 9421 B.2 test-request: method, URL from Host + target, fields, body', () => {
    const text = [
      'POST /foo?param=Value&Pet=dog HTTP/1.1',
      'Host: example.com',
      'Date: Tue, 20 Apr 2021 02:07:55 GMT',
      'Content-Type: application/json',
      'Content-Length: 18',
      '',
      '{"hello": "world"}',
    ].join('\n');
    const msg = parseRawHttpMessage(text);
    expect(msg.method).toBe('POST');
    expect(msg.target).toBe('/foo?param=Value&Pet=dog');
    expect(msg.url).toBe('https://example.com/foo?param=Value&Pet=dog');
    expect(msg.version).toBe('HTTP/1.1');
    expect(msg.status).toBeUndefined();
    expect(msg.headers).toEqual([
      ['Host', 'example.com'],
      ['Date', 'Tue, 20 Apr 2021 02:07:55 GMT'],
      ['Content-Type', 'application/json'],
      ['Content-Length', '18'],
    ]);
    expect(msg.body).toBe('{"hello": "world"}');
  });

  it('treats CRLF and LF line endings alike, and keeps CRLF inside the body', () => {
    const lf = parseRawHttpMessage('GET /a HTTP/1.1\nHost: example.com\nX: 1\n\nline1\r\nline2');
    const crlf = parseRawHttpMessage('GET /a HTTP/1.1\r\nHost: example.com\r\nX: 1\r\n\r\nline1\r\nline2');
    expect(crlf).toEqual(lf);
    expect(crlf.body).toBe('line1\r\nline2');
  });

  it('uses the scheme option for the target URI (RFC 9421 §2.2.4 example over plain HTTP)', () => {
    const msg = parseRawHttpMessage('POST /path?param=value HTTP/1.1\nHost: www.example.com', { scheme: 'http' });
    expect(msg.url).toBe('http://www.example.com/path?param=value');
    expect(msg.body).toBeUndefined();
  });

  it('keeps an absolute-form target as the URL, whatever Host says (RFC 9112 §3.2.2)', () => {
    expect(parseRawHttpMessage('GET https://www.example.com/path?param=value HTTP/1.1').url).toBe('https://www.example.com/path?param=value');
    const withHost = parseRawHttpMessage('GET http://a.example/x HTTP/1.1\nHost: b.example\n\n');
    expect(withHost.url).toBe('http://a.example/x');
    expect(withHost.target).toBe('http://a.example/x');
  });

  it('handles CONNECT authority-form and OPTIONS asterisk-form targets (RFC 9421 §2.2.5)', () => {
    const connect = parseRawHttpMessage('CONNECT www.example.com:80 HTTP/1.1\nHost: www.example.com');
    expect(connect.url).toBe('https://www.example.com:80');
    expect(connect.target).toBe('www.example.com:80');
    const options = parseRawHttpMessage('OPTIONS * HTTP/1.1\nHost: www.example.com');
    expect(options.url).toBe('https://www.example.com');
    expect(options.target).toBe('*');
  });

  it('keeps repeated field lines apart, in order, with names as written', () => {
    const msg = parseRawHttpMessage('GET / HTTP/1.1\nHost: h.example\nAccept: application/json\naccept: */*\n\n');
    expect(msg.headers).toEqual([
      ['Host', 'h.example'],
      ['Accept', 'application/json'],
      ['accept', '*/*'],
    ]);
    expect(msg.body).toBe('');
  });

  it('strips OWS around field values, keeps inner whitespace and empty values (RFC 9421 §2.1)', () => {
    const msg = parseRawHttpMessage(
      'GET / HTTP/1.1\nHost: h.example\nX-OWS-Header:   Leading and trailing whitespace.  \t\nX-Empty-Header: \nExample-Dict:  a=1,    b=2\n\n',
    );
    expect(msg.headers.slice(1)).toEqual([
      ['X-OWS-Header', 'Leading and trailing whitespace.'],
      ['X-Empty-Header', ''],
      ['Example-Dict', 'a=1,    b=2'],
    ]);
  });

  it('keeps obs-fold continuation lines attached to their field, line break included (RFC 9112 §5.2)', () => {
    const lf = parseRawHttpMessage('GET / HTTP/1.1\nHost: h.example\nX-Obs-Fold-Header: Obsolete\n    line folding.\nNext: 1\n\n');
    expect(lf.headers).toEqual([
      ['Host', 'h.example'],
      ['X-Obs-Fold-Header', 'Obsolete\n    line folding.'],
      ['Next', '1'],
    ]);
    const crlf = parseRawHttpMessage('GET / HTTP/1.1\r\nHost: h.example\r\nX: a\r\n\tb\r\n c\r\n\r\n');
    expect(crlf.headers[1]).toEqual(['X', 'a\r\n\tb\r\n c']);
  });

  it('skips empty lines before the request line (RFC 9112 §2.2)', () => {
    expect(parseRawHttpMessage('\r\n\nGET / HTTP/1.1\nHost: h.example').url).toBe('https://h.example/');
  });
});

describe('parseRawHttpMessage: responses (RFC 9112 §4)', () => {
  it('reads a status line with a reason phrase, and one without', () => {
    const msg = parseRawHttpMessage('HTTP/1.1 503 Service Unavailable\nContent-Length: 2\n\n{}');
    expect(msg.status).toBe(503);
    expect(msg.reason).toBe('Service Unavailable');
    expect(msg.method).toBeUndefined();
    expect(msg.url).toBeUndefined();
    expect(msg.body).toBe('{}');
    const bare = parseRawHttpMessage('HTTP/1.1 204\n\n');
    expect(bare.status).toBe(204);
    expect(bare.reason).toBe('');
  });

  it('decodes chunked content and returns trailer fields (RFC 9421 §2.1.4 example)', () => {
    const text = [
      'HTTP/1.1 200 OK',
      'Content-Type: text/plain',
      'Transfer-Encoding: chunked',
      'Trailer: Expires',
      '',
      '4',
      'HTTP',
      '7',
      'Message',
      'a',
      'Signatures',
      '0',
      'Expires: Wed, 9 Nov 2022 07:28:00 GMT',
    ].join('\n');
    const msg = parseRawHttpMessage(text);
    expect(msg.body).toBe('HTTPMessageSignatures');
    expect(msg.trailers).toEqual([['Expires', 'Wed, 9 Nov 2022 07:28:00 GMT']]);
  });

  it('accepts chunk extensions and CRLF framing; no trailers leaves trailers out', () => {
    const msg = parseRawHttpMessage('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\n\r\n');
    expect(msg.body).toBe('abc');
    expect(msg.trailers).toBeUndefined();
  });

  it('does not decode when chunked is not the last transfer coding', () => {
    const msg = parseRawHttpMessage('HTTP/1.1 200 OK\nTransfer-Encoding: chunked, gzip\n\n3\nabc\n0\n');
    expect(msg.body).toBe('3\nabc\n0\n');
  });
});

describe('parseRawHttpMessage: hostile and malformed input', () => {
  it.each([
    ['empty text', ''],
    ['only empty lines', '\n\r\n'],
    ['no spaces in the start line', 'GARBAGE'],
    ['request line with two spaces', 'GET  / HTTP/1.1\nHost: h'],
    ['request line with a fourth part', 'GET / HTTP/1.1 extra\nHost: h'],
    ['method that is not a token', 'G(T / HTTP/1.1\nHost: h'],
    ['bad version', 'GET / HTTP/one\nHost: h'],
    ['status code of two digits', 'HTTP/1.1 20 OK'],
    ['status code with letters', 'HTTP/1.1 2x0 OK'],
    ['status code starting with 0', 'HTTP/1.1 099 OK'],
    ['status line without SP before the reason', 'HTTP/1.1 200OK'],
    ['field line without a colon', 'GET / HTTP/1.1\nHost: h\nNoColon'],
    ['field line with an empty name', 'GET / HTTP/1.1\nHost: h\n: v'],
    ['whitespace between name and colon', 'GET / HTTP/1.1\nHost : h'],
    ['continuation line before any field', 'GET / HTTP/1.1\n folded\nHost: h'],
    ['control character in a value', 'GET / HTTP/1.1\nHost: h\nX: a\u0000b'],
    ['lone CR in a value', 'GET / HTTP/1.1\nHost: h\nX: a\rb'],
    ['origin-form without Host', 'GET /a HTTP/1.1\nAccept: */*'],
    ['two Host fields', 'GET /a HTTP/1.1\nHost: a.example\nHost: b.example'],
    ['Host with a path', 'GET /a HTTP/1.1\nHost: a.example/x'],
    ['Host with userinfo', 'GET /a HTTP/1.1\nHost: u@a.example'],
    ['empty Host', 'GET /a HTTP/1.1\nHost: '],
    ['target in no known form', 'GET a/b HTTP/1.1\nHost: h'],
    ['asterisk-form with GET', 'GET * HTTP/1.1\nHost: h'],
    ['CONNECT target with a path', 'CONNECT h.example/x HTTP/1.1\nHost: h'],
    ['chunk size not hexadecimal', 'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\nzz\n'],
    ['chunk shorter than its size', 'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\nff\nabc\n0\n'],
    ['chunked content without the last chunk', 'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n'],
    ['chunk data without a line break after it', 'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabcd\n0\n'],
    ['huge chunk size', 'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\nfffffffff\n'],
    ['text after the chunked message', 'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n0\n\nmore'],
  ])('refuses %s with ERR_MESSAGE_INVALID', (_name, text) => {
    expectInvalid(text);
  });

  it('never puts field values in error messages', () => {
    let thrown: unknown;
    try {
      parseRawHttpMessage('GET / HTTP/1.1\nHost: secret-host.example\nHost: other-secret.example');
    } catch (err) {
      thrown = err;
    }
    // Two Host fields are refused (RFC 9112 §3.2), and the refusal names no value.
    expect(isBotsigError(thrown) && thrown.code).toBe('ERR_MESSAGE_INVALID');
    expect(String((thrown as Error).message)).not.toContain('secret');
  });

  it('throws TypeError for misuse', () => {
    expect(() => parseRawHttpMessage(42 as unknown as string)).toThrow(TypeError);
    expect(() => parseRawHttpMessage('GET / HTTP/1.1\nHost: h', { scheme: 'ftp' as 'http' })).toThrow(TypeError);
  });

  it('property: any text either parses or fails with ERR_MESSAGE_INVALID only', () => {
    const alphabet = fc.constantFrom('G', 'E', 'T', 'P', 'H', '/', ' ', ':', '\r', '\n', '\t', '1', '0', '.', 'a', '*', ';', 'x', '\u0000', 'é');
    const prefix = fc.constantFrom('', 'GET / HTTP/1.1\n', 'HTTP/1.1 200 OK\n', 'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n', 'GET / HTTP/1.1\nHost: h\n');
    fc.assert(
      fc.property(
        prefix,
        fc.array(alphabet, { maxLength: 80 }).map((a) => a.join('')),
        fc.string({ maxLength: 40 }),
        (p, body, tail) => {
          try {
            parseRawHttpMessage(p + body + tail);
          } catch (err) {
            if (!isBotsigError(err) || err.code !== 'ERR_MESSAGE_INVALID') throw err;
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('parseRawHttpMessage: round trip (property)', () => {
  const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,12}$/);
  const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
  const host = fc
    .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }))
    .map(([labels, port]) => labels.join('.') + (port === undefined ? '' : ':' + port));
  const path = fc.stringMatching(/^(\/[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,8}){1,3}(\?[A-Za-z0-9._~%!$&'()*+,;=:@/?-]{0,12})?$/);
  // A field value with no leading/trailing whitespace and no control characters.
  const value = fc.oneof(fc.constant(''), fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e\t]{0,20}[\x21-\x7e])?$/));
  const fieldName = token.filter((n) => n.toLowerCase() !== 'host' && n.toLowerCase() !== 'transfer-encoding');
  const fields = fc.array(fc.tuple(fieldName, value), { maxLength: 6 });
  const body = fc.option(fc.string({ maxLength: 30 }), { nil: undefined });

  it('serialising a request and parsing it back gives the same parts, with LF or CRLF', () => {
    fc.assert(
      fc.property(token, host, path, fields, body, fc.boolean(), fc.constantFrom<'http' | 'https'>('http', 'https'), (method, h, p, fs, b, crlf, scheme) => {
        const eol = crlf ? '\r\n' : '\n';
        const all: Array<[string, string]> = [['Host', h], ...fs];
        let text = `${method} ${p} HTTP/1.1${eol}` + all.map(([n, v]) => `${n}: ${v}`).join(eol);
        if (b !== undefined) text += eol + eol + b;
        const msg = parseRawHttpMessage(text, { scheme });
        expect(msg.method).toBe(method);
        expect(msg.target).toBe(p);
        expect(msg.url).toBe(`${scheme}://${h}${p}`);
        expect(msg.headers).toEqual(all);
        expect(msg.body).toBe(b);
      }),
      { numRuns: 500 },
    );
  });

  it('chunked framing round-trips any content split into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 5 }), fields, (chunks, trailers) => {
        const text =
          'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n' +
          chunks.map((c) => c.length.toString(16) + '\r\n' + c + '\r\n').join('') +
          '0\n' +
          trailers.map(([n, v]) => `${n}: ${v}\n`).join('');
        const msg = parseRawHttpMessage(text);
        expect(msg.body).toBe(chunks.join(''));
        expect(msg.trailers ?? []).toEqual(trailers);
      }),
      { numRuns: 300 },
    );
  });
});
