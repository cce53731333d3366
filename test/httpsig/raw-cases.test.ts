/**
 * Pins for `parseRawHttpMessage` (src/httpsig/raw.ts) that the mutation run showed
 * unpinned (issue 20). The parser turns RFC 9421 / Web Bot Auth message text into the
 * message whose components (RFC 9421 §2) are signed and verified, so each rule of the
 * HTTP/1.1 syntax it follows (RFC 9112 start line, field lines, chunked framing; RFC
 * 9110 tokens and field characters) decides which bytes a signature base is built from.
 * Refusals are ERR_MESSAGE_INVALID and name the line they are about (the CLI shows them).
 */
import { describe, expect, it } from 'vitest';
import { isBotsigError, parseRawHttpMessage } from '../../src/httpsig';

/** The refusal of `text`: its code and message, or 'accepted'. */
function refusal(text: string, scheme?: 'http' | 'https'): { code: string; message: string } | 'accepted' {
  try {
    parseRawHttpMessage(text, scheme === undefined ? undefined : { scheme });
  } catch (err) {
    if (!isBotsigError(err)) throw err;
    return { code: err.code, message: err.message };
  }
  return 'accepted';
}

function refused(text: string, message: string): void {
  expect(refusal(text)).toEqual({ code: 'ERR_MESSAGE_INVALID', message: `raw HTTP message: ${message}` });
}

const CHUNKED = 'HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n';

describe('refusals name the line they are about (lines counted from 1, empty ones too)', () => {
  it('start line, after skipped empty lines (RFC 9112 §2.2)', () => {
    refused('GARBAGE', 'start line is not a request or status line (line 1)');
    // A start line that begins with SP is neither (RFC 9112 §2.2: no whitespace before it).
    refused(' GET / HTTP/1.1\nHost: h', 'start line is not a request or status line (line 1)');
    refused('\n\r\nGARBAGE', 'start line is not a request or status line (line 3)');
    refused('\n\nGET / HTTP/1.1 x', 'request line is malformed (line 3)');
    refused('\nHTTP/1.1 20 OK', 'status line is malformed (line 2)');
    refused('\n\n', 'no start line');
    refused('', 'no start line');
  });

  it('field lines, continuation lines counted as lines of their own', () => {
    refused('GET / HTTP/1.1\nHost: h\nNoColon', 'field line without a name and colon (line 3)');
    refused('GET / HTTP/1.1\nHost: h\n: v', 'field line without a name and colon (line 3)');
    refused('GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\tc\r\nBad Name: v', 'field name is not a token (line 6)');
    refused('\nGET / HTTP/1.1\n folded', 'continuation line without a field before it (line 3)');
    refused('GET / HTTP/1.1\nHost: h\nX: a\u0001', 'control character in a field line (line 3)');
  });

  it('chunked framing: size lines, data lines and trailers (RFC 9112 §7.1)', () => {
    // Line 4 is the first size line, line 5 its data, line 6 the next size line.
    refused(CHUNKED + 'zz\n', 'chunk size is not hexadecimal (line 4)');
    refused(CHUNKED + '3\nabc\nzz\n', 'chunk size is not hexadecimal (line 6)');
    refused(CHUNKED + '3\r\nabc\r\n4\r\nabc', 'chunk is shorter than its size (line 6)');
    refused(CHUNKED + '3\nabc\n2\nabcd\n0\n', 'chunk data is not followed by a line break (line 6)');
    refused(CHUNKED + '3\nabc\n', 'chunked content ends before the last chunk (line 5)');
    refused(CHUNKED + '3\nabc\n0\nT: 1\nBad\n', 'field line without a name and colon (line 8)');
    refused(CHUNKED + '0\n\nmore', 'text after the end of the chunked message');
  });
});

describe('start line (RFC 9112 §2.3, §3, §4)', () => {
  it('HTTP-version is "HTTP/" DIGIT "." DIGIT, or HTTP/2 and HTTP/3 as some documents print them', () => {
    for (const v of ['HTTP/1.1', 'HTTP/1.0', 'HTTP/0.9', 'HTTP/9.9', 'HTTP/2', 'HTTP/3']) {
      expect(parseRawHttpMessage(`GET / ${v}\nHost: h`).version).toBe(v);
      expect(parseRawHttpMessage(`${v} 200 OK`).version).toBe(v);
    }
    for (const v of [
      'HTTP/',
      'HTTP/a',
      'HTTP/:',
      'HTTP//',
      'HTTP/11',
      'HTTP/1.',
      'HTTP/1,1',
      'HTTP/1.a',
      'HTTP/1./',
      'HTTP/1.:',
      'HTTP/:.1',
      'HTTP//.1',
      'HTTP/1.10',
      'HTTP/12.1',
      'HTTX/1.1',
    ]) {
      expect(refusal(`GET / ${v}\nHost: h`), v).toMatchObject({ code: 'ERR_MESSAGE_INVALID' });
    }
    for (const v of ['HTTP/', 'HTTP/a', 'HTTP/:', 'HTTP/11', 'HTTP/1.', 'HTTP/1,1', 'HTTP/1./', 'HTTP/1.:', 'HTTP/:.1', 'HTTP/1.10']) {
      expect(refusal(`${v} 200 OK`), v).toMatchObject({ code: 'ERR_MESSAGE_INVALID' });
    }
  });

  it('status-code is three digits, 100 to 999; the reason phrase may hold HTAB and obs-text, not controls', () => {
    expect(parseRawHttpMessage('HTTP/1.1 100 Continue').status).toBe(100);
    expect(parseRawHttpMessage('HTTP/1.1 999 x').status).toBe(999);
    const odd = parseRawHttpMessage('HTTP/1.1 200 O\tK \u00e9');
    expect(odd.reason).toBe('O\tK \u00e9');
    // "200 " with an empty reason phrase after the SP.
    expect(parseRawHttpMessage('HTTP/1.1 200 \n\n').reason).toBe('');
    for (const bad of ['HTTP/1.1 200 O\u0001K', 'HTTP/1.1 200 OK\u007f', 'HTTP/1.1 2000 OK', 'HTTP/1.1 20', 'HTTP/1.1 +20 OK']) {
      expect(refusal(bad), bad).toEqual({ code: 'ERR_MESSAGE_INVALID', message: 'raw HTTP message: status line is malformed (line 1)' });
    }
  });

  it('method is a token (RFC 9110 §9.1, §5.6.2): every tchar passes, anything else does not', () => {
    const tchars = "!#$%&'*+-.^_`|~09azAZ";
    expect(parseRawHttpMessage(`${tchars} / HTTP/1.1\nHost: h`).method).toBe(tchars);
    for (const m of ['G"T', 'G(T', 'G,T', 'G/T', 'G:T', 'G@T', 'G[T', 'G{T', 'G\u007fT', 'G\u00e9T', 'G\u0100T']) {
      expect(refusal(`${m} / HTTP/1.1\nHost: h`), m).toEqual({ code: 'ERR_MESSAGE_INVALID', message: 'raw HTTP message: request line is malformed (line 1)' });
    }
  });

  it('request-target is visible ASCII (RFC 9112 §3.2): no HTAB, controls, DEL or non-ASCII, and not empty', () => {
    expect(parseRawHttpMessage('GET /!~ HTTP/1.1\nHost: h').url).toBe('https://h/!~');
    for (const t of ['/a\tb', '/a\u0001', '/a\u007f', '/\u00e9', '']) {
      expect(refusal(`GET ${t} HTTP/1.1\nHost: h`), JSON.stringify(t)).toEqual({
        code: 'ERR_MESSAGE_INVALID',
        message: 'raw HTTP message: request line is malformed (line 1)',
      });
    }
  });
});

describe('field lines (RFC 9112 §5, RFC 9110 §5.5)', () => {
  it('a field name is a token: every tchar passes; non-ASCII or a separator does not', () => {
    const tchars = "!#$%&'*+-.^_`|~09azAZ";
    expect(parseRawHttpMessage(`GET / HTTP/1.1\nHost: h\n${tchars}: v`).headers[1]).toEqual([tchars, 'v']);
    for (const n of ['\u00e9', 'a\u0080', 'a(b', 'a"b', 'a\u007f']) {
      expect(refusal(`GET / HTTP/1.1\nHost: h\n${n}: v`), n).toMatchObject({ code: 'ERR_MESSAGE_INVALID' });
    }
  });

  it('a value may hold SP, HTAB, visible ASCII and obs-text; controls (0x00-0x1f but HTAB) and DEL are refused', () => {
    const visible = Array.from({ length: 0x7f - 0x21 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    const v = `a\tb ${visible}\u0080\u00ff\u0100`;
    expect(parseRawHttpMessage(`GET / HTTP/1.1\nHost: h\nX: ${v}`).headers[1]).toEqual(['X', v]);
    for (const c of ['\u0000', '\u0008', '\u000b', '\u001f', '\u007f']) {
      refused(`GET / HTTP/1.1\nHost: h\nX: a${c}b`, 'control character in a field line (line 3)');
    }
  });

  it('OWS before and after a value goes, also on a continuation line; an all-whitespace value is empty', () => {
    const msg = parseRawHttpMessage('GET / HTTP/1.1\nHost: h\nA: \t \nB:\tx y\t\nC: a\n b \t\nD:z\nE:z \t\nF:\tz');
    expect(msg.headers.slice(1)).toEqual([
      ['A', ''],
      ['B', 'x y'],
      ['C', 'a\n b'],
      ['D', 'z'],
      ['E', 'z'],
      ['F', 'z'],
    ]);
  });

  it('the fields end at the first empty line: a body is whatever follows, even field-like text', () => {
    const msg = parseRawHttpMessage('HTTP/1.1 200 OK\r\nA: 1\r\n\r\nB: 2\r\n\r\n');
    expect(msg.headers).toEqual([['A', '1']]);
    expect(msg.body).toBe('B: 2\r\n\r\n');
  });
});

describe('chunked transfer coding (RFC 9112 §7.1, RFC 9421 §2.1.4)', () => {
  it('chunk sizes are hexadecimal in either case, at most 8 digits (leading zeros count)', () => {
    const data = 'x'.repeat(0xaf);
    expect(parseRawHttpMessage(CHUNKED + `AF\n${data}\n0\n`).body).toBe(data);
    expect(parseRawHttpMessage(CHUNKED + `af\n${data}\n0\n`).body).toBe(data);
    expect(parseRawHttpMessage(CHUNKED + `0000000a\n0123456789\n0\n`).body).toBe('0123456789');
    expect(parseRawHttpMessage(CHUNKED + '9\n123456789\n00000000\n').body).toBe('123456789');
    refused(CHUNKED + '00000000a\n0123456789\n0\n', 'chunk size too large (line 4)');
    for (const s of ['g', 'G', '@', '`', '/', ':', '-1', ' 1', 'x1']) {
      refused(CHUNKED + `${s}\nabc\n0\n`, 'chunk size is not hexadecimal (line 4)');
    }
  });

  it('only whitespace and chunk extensions may follow the size', () => {
    expect(parseRawHttpMessage(CHUNKED + '3 \t;a=b\nabc\n0 ;c\n').body).toBe('abc');
    expect(parseRawHttpMessage(CHUNKED + '3\t\nabc\n0\n').body).toBe('abc');
    // The size itself is required: an empty line or a bare extension is not a last chunk.
    refused(CHUNKED + '3\nabc\n\n', 'chunk size is not hexadecimal (line 6)');
    refused(CHUNKED + '3\nabc\n;a=b\n\n', 'chunk size is not hexadecimal (line 6)');
    refused(CHUNKED + '3 x\nabc\n0\n', 'chunk size is not hexadecimal (line 4)');
    refused(CHUNKED + '3x\nabc\n0\n', 'chunk size is not hexadecimal (line 4)');
  });

  it('chunk data is taken by its size (line breaks inside included) and then needs CRLF or LF', () => {
    expect(parseRawHttpMessage(CHUNKED + '5\r\na\r\nb\n\r\n1\nc\n0\r\n').body).toBe('a\r\nb\nc');
    // A data error names the size line of its chunk.
    refused(CHUNKED + '3\nabc\r0\n', 'chunk data is not followed by a line break (line 4)');
    refused(CHUNKED + '3\nabc', 'chunk data is not followed by a line break (line 4)');
    expect(parseRawHttpMessage(CHUNKED + '3\nabc\n0').body).toBe('abc');
  });

  it('trailer fields follow the last chunk; an empty line may end them, nothing may come after it', () => {
    const msg = parseRawHttpMessage(CHUNKED + '1\na\n0\r\nT1: x\r\n y\r\nT2:  z \r\n\r\n');
    expect(msg.body).toBe('a');
    expect(msg.trailers).toEqual([
      ['T1', 'x\r\n y'],
      ['T2', 'z'],
    ]);
    expect(parseRawHttpMessage(CHUNKED + '0\n\n').trailers).toBeUndefined();
    refused(CHUNKED + '0\nT: 1\n\nx', 'text after the end of the chunked message');
  });

  it('chunked is decoded when it is the last transfer coding, name and coding in any case (RFC 9112 §6.1)', () => {
    const body = '3\nabc\n0\n';
    const chunked = (te: string): string | undefined => parseRawHttpMessage(`HTTP/1.1 200 OK\n${te}\n\n${body}`).body;
    expect(chunked('TRANSFER-ENCODING: CHUNKED')).toBe('abc');
    expect(chunked('Transfer-Encoding: gzip ,\tChunked ')).toBe('abc');
    expect(chunked('Transfer-Encoding: gzip\nTransfer-Encoding: chunked')).toBe('abc');
    // Empty list elements do not count (RFC 9110 §5.6.1), on one line or across field lines.
    expect(chunked('Transfer-Encoding: chunked,')).toBe('abc');
    expect(chunked('Transfer-Encoding: chunked, ,')).toBe('abc');
    expect(chunked('Transfer-Encoding: chunked\nTransfer-Encoding: ')).toBe('abc');
    // Not chunked: another coding last, a coding that only contains the word, another field.
    expect(chunked('Transfer-Encoding: chunked\nTransfer-Encoding: gzip')).toBe(body);
    expect(chunked('Transfer-Encoding: xchunked')).toBe(body);
    expect(chunked('Transfer-Encoding: chunkedx')).toBe(body);
    expect(chunked('Transfer-Encodinx: chunked')).toBe(body);
    expect(chunked('Transfer-Encodings: chunked')).toBe(body);
    expect(chunked('X-Transfer-Encoding: chunked')).toBe(body);
  });

  it('without an empty line there is no content: a chunked message then has no body and no trailers', () => {
    const msg = parseRawHttpMessage('HTTP/1.1 200 OK\nTransfer-Encoding: chunked');
    expect(msg.body).toBeUndefined();
    expect(msg.trailers).toBeUndefined();
  });
});

describe('target URI (RFC 9112 §3.2, §3.3; RFC 9421 §2.2.2 @target-uri)', () => {
  it('absolute-form: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) then "://" (RFC 3986 §3.1)', () => {
    for (const t of ['AZaz09+-.://x/y', 'z://h', 'Z://h', 'a://h', 'A://h', 'a1://h']) {
      expect(parseRawHttpMessage(`GET ${t} HTTP/1.1`).url, t).toBe(t);
    }
    // Not absolute-form, so an origin-form target needs Host and a leading "/".
    for (const t of ['1a://h', '+a://h', '://h', 'a:/h', 'a:h', 'a_b://h', 'a@b://h', 'a[b://h', 'a`b://h', 'a{b://h', 'a/b://h', 'a:b://h']) {
      expect(refusal(`GET ${t} HTTP/1.1\nHost: h`), t).toEqual({
        code: 'ERR_MESSAGE_INVALID',
        message: 'raw HTTP message: request target is not in origin, absolute, authority or asterisk form',
      });
    }
  });

  it('origin-form: the scheme option, Host and the target; Host is matched in any case, only by its exact name', () => {
    expect(parseRawHttpMessage('GET /p?q HTTP/1.1\nHOST: a.example:8080').url).toBe('https://a.example:8080/p?q');
    expect(parseRawHttpMessage('GET /p HTTP/1.1\nhost: a.example', { scheme: 'http' }).url).toBe('http://a.example/p');
    // Fields whose names only resemble Host are not a second Host.
    expect(parseRawHttpMessage('GET / HTTP/1.1\nHos1: x\nHost: a.example\nHosts: y\nX-Host: z').url).toBe('https://a.example/');
    refused('GET / HTTP/1.1\nHost: a\nhost: a', 'more than one Host field');
    refused('GET / HTTP/1.1\nHosts: a', 'request without Host and without an absolute-form target');
  });

  it('Host is a uri-host with an optional port: no whitespace, controls, non-ASCII, "/", "?", "#", "@" or "\\"', () => {
    expect(parseRawHttpMessage("GET / HTTP/1.1\nHost: !$&'()*+,;=-._~:[::1]").url).toBe("https://!$&'()*+,;=-._~:[::1]/");
    for (const h of ['a b', 'a\tb', 'a\u0080b', 'a\u00e9', 'a/b', 'a?b', 'a#b', 'a@b', 'a\\b']) {
      refused(`GET / HTTP/1.1\nHost: ${h}`, 'Host is not an authority');
    }
  });

  it('CONNECT takes an authority-form target, with the scheme option; only the method CONNECT, case-sensitive (RFC 9110 §9.1)', () => {
    expect(parseRawHttpMessage('CONNECT a.example:443 HTTP/1.1', { scheme: 'http' }).url).toBe('http://a.example:443');
    for (const t of ['a.example/x', 'a?b', 'a#b', 'u@a', 'a\\b']) refused(`CONNECT ${t} HTTP/1.1`, 'CONNECT target is not an authority');
    refused('connect a.example:443 HTTP/1.1\nHost: a.example', 'request target is not in origin, absolute, authority or asterisk form');
  });

  it('the asterisk-form is for OPTIONS only (case-sensitive) and gives scheme://Host', () => {
    expect(parseRawHttpMessage('OPTIONS * HTTP/1.1\nHost: a.example:8443', { scheme: 'http' }).url).toBe('http://a.example:8443');
    refused('options * HTTP/1.1\nHost: h', 'asterisk-form target is only for OPTIONS');
    refused('OPTIONS *x HTTP/1.1\nHost: h', 'request target is not in origin, absolute, authority or asterisk form');
  });

  it('a response has no target URI, and its Host or CONNECT-like text is not read as one', () => {
    const msg = parseRawHttpMessage('HTTP/1.1 200 OK\nHost: a\nHost: b');
    expect(msg.url).toBeUndefined();
    expect(msg.target).toBeUndefined();
    expect(msg.method).toBeUndefined();
  });
});

describe('misuse (TypeError)', () => {
  it('scheme is http or https; undefined options or scheme default to https', () => {
    expect(() => parseRawHttpMessage('GET / HTTP/1.1\nHost: h', { scheme: 'HTTPS' as 'https' })).toThrow("options.scheme must be 'http' or 'https'");
    expect(() => parseRawHttpMessage('GET / HTTP/1.1\nHost: h', { scheme: '' as 'https' })).toThrow(TypeError);
    expect(parseRawHttpMessage('GET / HTTP/1.1\nHost: h', {}).url).toBe('https://h/');
    expect(parseRawHttpMessage('GET / HTTP/1.1\nHost: h', { scheme: undefined } as never).url).toBe('https://h/');
    expect(() => parseRawHttpMessage(undefined as unknown as string)).toThrow('raw HTTP message must be a string');
  });
});
