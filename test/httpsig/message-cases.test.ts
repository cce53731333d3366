/**
 * Pins for message conversion (src/httpsig/message.ts) that the mutation run showed
 * unpinned (issue 20): what makes an HttpMessage, the TypeErrors of wrong shapes (each
 * saying what was wrong), and the optional members, which are absent rather than
 * `undefined` (the types are checked with exactOptionalPropertyTypes). `target` is the
 * request-target of the request line (RFC 9112 §3.2, RFC 9421 §2.2.5), a request's only.
 */
import { describe, expect, it } from 'vitest';
import { componentValues, parseComponentIdentifier, isHttpMessage, toHttpMessage } from '../../src/httpsig';
import type { MessageInput } from '../../src/httpsig';
import { toReceivedMessage } from '../../src/httpsig/message';

function typeError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return err instanceof TypeError ? err.message : `not a TypeError: ${String(err)}`;
  }
  return 'accepted';
}

describe('isHttpMessage: an object with kind "request" or "response" and a Map of headers', () => {
  it('true for both kinds', () => {
    expect(isHttpMessage({ kind: 'request', headers: new Map() })).toBe(true);
    expect(isHttpMessage({ kind: 'response', headers: new Map() })).toBe(true);
  });

  it('false for anything else', () => {
    for (const v of [
      null,
      undefined,
      'request',
      1,
      {},
      { kind: 'other', headers: new Map() },
      { kind: 'request' },
      { kind: 'request', headers: {} },
      { kind: 'response', headers: [['a', 'b']] },
      { status: 200, headers: new Map() },
      Object.assign(() => undefined, { kind: 'request', headers: new Map() }),
    ]) {
      expect(isHttpMessage(v), typeof v).toBe(false);
    }
  });
});

describe('toHttpMessage: wrong shapes are TypeErrors that say what was wrong', () => {
  for (const convert of [toHttpMessage, toReceivedMessage]) {
    it(convert.name, () => {
      for (const bad of [null, undefined, 'https://example.com/', 200]) {
        expect(typeError(() => convert(bad as unknown as MessageInput))).toBe('message must be a Request, Response or message object');
      }
      expect(typeError(() => convert({ status: '200' } as unknown as MessageInput))).toBe('message status must be a number');
      expect(typeError(() => convert({ method: 1 } as unknown as MessageInput))).toBe('message method must be a string');
      expect(typeError(() => convert({ url: 1 } as unknown as MessageInput))).toBe('message url must be a string');
      expect(typeError(() => convert({ target: 1 } as unknown as MessageInput))).toBe('message target must be a string');
    });
  }

  it('options.request that is a response', () => {
    expect(typeError(() => toHttpMessage({ status: 200 }, { request: { status: 204 } }))).toBe('options.request must be a request');
  });
});

describe('optional members are absent, not undefined', () => {
  it('a bare request: GET, no url, target or trailers', () => {
    for (const convert of [toHttpMessage, toReceivedMessage]) {
      expect(convert({})).toStrictEqual({ kind: 'request', method: 'GET', headers: new Map() });
      expect(convert({ headers: null, trailers: null } as unknown as MessageInput)).toStrictEqual({ kind: 'request', method: 'GET', headers: new Map() });
    }
  });

  it('an empty url (a constructed Response has url "") is no url', () => {
    expect(toHttpMessage({ status: 200, url: '' })).toStrictEqual({ kind: 'response', status: 200, headers: new Map() });
    expect(toHttpMessage(new Response(null, { status: 204 }))).toStrictEqual({ kind: 'response', status: 204, headers: new Map() });
  });

  it('RFC 9112 §3.2: target is kept for a request, and has no place in a response', () => {
    const request = toHttpMessage({ method: 'OPTIONS', url: 'https://example.com/', target: '*' });
    expect(request.target).toBe('*');
    expect(componentValues(request, parseComponentIdentifier('@request-target'))).toEqual(['*']);
    expect(toHttpMessage({ status: 200, target: '*' })).toStrictEqual({ kind: 'response', status: 200, headers: new Map() });
    expect(toHttpMessage({ url: 'https://example.com/a?b' })).toStrictEqual({
      kind: 'request',
      method: 'GET',
      url: 'https://example.com/a?b',
      headers: new Map(),
    });
  });

  it('trailers are converted when given, with names lowercased (RFC 9421 §2.1.3 ;tr)', () => {
    const m = toHttpMessage({ status: 200, trailers: [['Expires', 'x']] });
    expect(m).toStrictEqual({ kind: 'response', status: 200, headers: new Map(), trailers: new Map([['expires', ['x']]]) });
  });
});

describe('RFC 9421 §2.4: options.request is attached to a response', () => {
  it('a response converted from an object gets it; the request is converted too', () => {
    const m = toHttpMessage({ status: 200 }, { request: { method: 'POST', url: 'https://example.com/' } });
    expect(m).toStrictEqual({
      kind: 'response',
      status: 200,
      headers: new Map(),
      request: { kind: 'request', method: 'POST', url: 'https://example.com/', headers: new Map() },
    });
  });
});
