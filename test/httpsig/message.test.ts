import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isHttpMessage, toHttpMessage } from '../../src/httpsig';
import { messageTarget, parseTargetUri } from '../../src/httpsig/message';

// The reference: what the WHATWG URL parser makes of a URL (RFC 9421 §2.2 components).
function reference(url: string) {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.host === '') return undefined;
  const href = u.href.split('#')[0]!;
  const q = href.indexOf('?');
  return {
    scheme: u.protocol.slice(0, -1),
    authority: u.host,
    path: u.pathname || '/',
    query: q >= 0 ? href.slice(q + 1) : undefined,
    href,
  };
}

describe('toHttpMessage', () => {
  it('plain request objects: lowercased names, separate lines, GET by default', () => {
    const m = toHttpMessage({ url: 'https://example.com/', headers: { Accept: ['a', 'b'], 'X-N': 'v', 'x-n': 'w', skip: undefined } });
    expect(m.kind).toBe('request');
    expect(m.method).toBe('GET');
    expect(m.headers.get('accept')).toEqual(['a', 'b']);
    expect(m.headers.get('x-n')).toEqual(['v', 'w']);
    expect(m.headers.has('skip')).toBe(false);
  });

  it('pairs, Map and Headers are accepted', () => {
    expect(
      toHttpMessage({
        headers: [
          ['A', '1'],
          ['a', '2'],
        ],
      }).headers.get('a'),
    ).toEqual(['1', '2']);
    expect(toHttpMessage({ headers: new Map([['A', '1']]) }).headers.get('a')).toEqual(['1']);
    const h = new Headers([
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['X', 'y'],
    ]);
    const m = toHttpMessage({ headers: h });
    expect(m.headers.get('set-cookie')).toEqual(['a=1', 'b=2']);
    expect(m.headers.get('x')).toEqual(['y']);
  });

  it('WHATWG Request and Response', () => {
    const req = toHttpMessage(new Request('https://example.com/a?b', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'x' }));
    expect(req).toMatchObject({ kind: 'request', method: 'POST', url: 'https://example.com/a?b' });
    expect(req.headers.get('content-type')).toEqual(['text/plain']);
    const res = toHttpMessage(new Response(null, { status: 204 }));
    expect(res).toMatchObject({ kind: 'response', status: 204 });
    expect(res.url).toBeUndefined();
  });

  it('status makes a response; request option attaches the request to responses only', () => {
    const res = toHttpMessage({ status: 200, trailers: { Expires: 'x' } }, { request: { url: 'https://e.example/' } });
    expect(res.kind).toBe('response');
    expect(res.trailers?.get('expires')).toEqual(['x']);
    expect(res.request?.url).toBe('https://e.example/');
    expect(toHttpMessage({ url: 'https://e.example/' }, { request: { url: 'https://x.example/' } }).request).toBeUndefined();
  });

  it('an HttpMessage passes through; with a request it is copied, not mutated', () => {
    const m = toHttpMessage({ status: 200 });
    expect(isHttpMessage(m)).toBe(true);
    expect(toHttpMessage(m)).toBe(m);
    const withReq = toHttpMessage(m, { request: { url: 'https://e.example/' } });
    expect(withReq).not.toBe(m);
    expect(m.request).toBeUndefined();
    expect(withReq.request?.kind).toBe('request');
  });

  it('wrong shapes are TypeErrors (programmer misuse)', () => {
    expect(() => toHttpMessage(null as never)).toThrow(TypeError);
    expect(() => toHttpMessage({ method: 1 } as never)).toThrow(TypeError);
    expect(() => toHttpMessage({ url: 1 } as never)).toThrow(TypeError);
    expect(() => toHttpMessage({ headers: { a: {} } } as never)).toThrow(TypeError);
    expect(() => toHttpMessage({ headers: [['a']] } as never)).toThrow(TypeError);
    expect(() => toHttpMessage({ status: 200 }, { request: { status: 200 } })).toThrow(TypeError);
  });

  it('the target URI is parsed once per message and re-parsed if the URL changes', () => {
    const m = toHttpMessage({ url: 'https://example.com/a' });
    const t = messageTarget(m);
    expect(messageTarget(m)).toBe(t);
    m.url = 'https://example.com/b';
    expect(messageTarget(m).path).toBe('/b');
  });

  it('the parse held on a message is invisible: no own key, copies and comparisons do not see it; a frozen message is parsed each time', () => {
    const m = toHttpMessage({ url: 'https://example.com/a' });
    const keys = Reflect.ownKeys(m);
    const before = { ...m };
    messageTarget(m);
    expect(Reflect.ownKeys(m)).toEqual(keys);
    expect({ ...m }).toStrictEqual(before);
    const copy = { ...m, url: 'https://example.com/c' };
    expect(messageTarget(copy).path).toBe('/c');
    expect(messageTarget(m).path).toBe('/a');
    const frozen = Object.freeze(toHttpMessage({ url: 'https://example.com/f' }));
    expect(messageTarget(frozen).path).toBe('/f');
    expect(messageTarget(frozen)).not.toBe(messageTarget(frozen));
  });
});

describe('parseTargetUri agrees with the WHATWG URL parser', () => {
  const cases = [
    'https://example.com',
    'https://example.com/',
    'https://example.com:443/x',
    'http://example.com:80',
    'http://example.com:8080/a/b?c=d&e#f',
    'https://EXAMPLE.com/',
    'https://example.com/./a/../b',
    'https://example.com/%2e/x',
    'https://example.com/a b',
    "https://example.com/it's?it's",
    'https://example.com/?q="x"',
    'https://example.com?#',
    'https://example.com/?',
    'https://127.0.0.1/',
    'https://0x7f.1/',
    'https://a.b1/',
    'https://example.com./',
    'https://user:pw@example.com/',
    'https://example.com:/',
    'https://example.com:0443/',
    'https://example.com:99999/',
    'https://bücher.example/',
    'https://example.com/a\\b',
    'https://example.com/\u00e9?\u00e9',
    'https://example.com/a|b?c|d',
    'https://example.com/{x}?{y}',
    'ftp://example.com/x',
    'mailto:x@example.com',
    'https://',
    'not a url',
  ];
  for (const url of cases) {
    it(JSON.stringify(url), () => {
      expect(parseTargetUri(url)).toEqual(reference(url));
    });
  }

  it('fast-check: random http(s) URLs', () => {
    const chars = fc.constantFrom(...'abcXYZ09-._~!$&\'()*+,;=:@/%?#[]{}|\\^` "<>\u00e9\t'.split(''));
    const part = fc.array(chars, { maxLength: 12 }).map((a) => a.join(''));
    const host = fc.constantFrom('example.com', 'EXAMPLE.com', 'a.b', 'a..b', '127.0.0.1', 'x1', 'h-1.example', 'example.com.', 'xn--bcher-kva.example');
    const port = fc.constantFrom('', ':80', ':443', ':8080', ':', ':0', ':080');
    const scheme = fc.constantFrom('http', 'https', 'HTTPS');
    fc.assert(
      fc.property(scheme, host, port, part, part, (s, h, p, path, rest) => {
        const url = `${s}://${h}${p}/${path}${rest}`;
        expect(parseTargetUri(url)).toEqual(reference(url));
      }),
      { numRuns: 3000 },
    );
  });
});
