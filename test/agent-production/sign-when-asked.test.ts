/**
 * Signing only where asked: the memory of origins that asked (bounded in count and
 * time) and the test for a response that asks.
 */
import { describe, expect, it } from 'vitest';
import { AskedOrigins, asksForSignature, checkSignWhen, originOf } from '../../src/adapters/sign-when-asked';

describe('AskedOrigins', () => {
  it('remembers an origin for rememberSeconds, then forgets it', () => {
    let now = 1_000_000;
    const asked = new AskedOrigins({ rememberSeconds: 60 }, () => now);
    expect(asked.has('https://a.example')).toBe(false);
    asked.remember('https://a.example');
    expect(asked.has('https://a.example')).toBe(true);
    now += 59_999;
    expect(asked.has('https://a.example')).toBe(true);
    now += 1;
    expect(asked.has('https://a.example')).toBe(false);
    expect(asked.size).toBe(0);
    asked.remember('https://a.example');
    now += 30_000;
    asked.remember('https://a.example'); // asked again: the deadline moves
    now += 45_000;
    expect(asked.has('https://a.example')).toBe(true);
  });

  it('keeps at most maxOrigins, forgetting the least recently asked', () => {
    const asked = new AskedOrigins({ maxOrigins: 3 }, () => 0);
    for (let i = 0; i < 1000; i++) asked.remember(`https://h${i}.example`);
    expect(asked.size).toBe(3);
    expect(asked.has('https://h999.example')).toBe(true);
    expect(asked.has('https://h996.example')).toBe(false);
  });

  it('refuses malformed options', () => {
    expect(() => new AskedOrigins({ maxOrigins: 0 })).toThrow(RangeError);
    expect(() => new AskedOrigins({ rememberSeconds: 1.5 })).toThrow(RangeError);
    expect(() => new AskedOrigins(null as never)).toThrow(TypeError);
    expect(checkSignWhen(undefined)).toBe('always');
    expect(checkSignWhen('asked')).toBe('asked');
    expect(() => checkSignWhen('sometimes')).toThrow(TypeError);
  });
});

describe('asksForSignature', () => {
  const h = (fields: Record<string, string>) => (name: string) => fields[name] ?? null;
  it('is true for 401, 403 and 429 (without a real Retry-After) that carry Accept-Signature', () => {
    const accept = { 'accept-signature': 'sig1=("@authority");tag="web-bot-auth"' };
    for (const status of [401, 403, 429]) expect(asksForSignature(status, h(accept)), String(status)).toBe(true);
    expect(asksForSignature(429, h({ ...accept, 'retry-after': '0' }))).toBe(true);
    expect(asksForSignature(429, h({ ...accept, 'retry-after': '30' }))).toBe(false);
    for (const status of [200, 302, 400, 404, 500]) expect(asksForSignature(status, h(accept)), String(status)).toBe(false);
    expect(asksForSignature(401, h({}))).toBe(false);
    expect(asksForSignature(401, h({ 'accept-signature': '  ' }))).toBe(false);
  });
  it('originOf', () => {
    expect(originOf('https://a.example:8443/x?y')).toBe('https://a.example:8443');
    expect(originOf('not a url')).toBeUndefined();
  });
});
