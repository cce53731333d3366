/**
 * Pins for the URL guard of the DirectoryClient (src/directory/client/fetch.ts) that the
 * mutation run showed unpinned (issue 20): the refusal of each part of a URL (scheme, user,
 * password, an empty host), the port rule and its three ways in (allow.ports, an allow-listed
 * host, a loopback host under allow.loopback), which hosts count as loopback, and the host a
 * trailing dot leaves. Network rule: every client gets a fetch that records and refuses.
 */
import { describe, expect, it } from 'vitest';
import { isBotsigError } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import type { DirectoryClientOptions } from '../../src/directory';
import { rawMember } from '../directory/client-fixtures';

/** A fetch that records the URL and refuses (nothing is sent). */
function refusing(): ((url: string) => Promise<Response>) & { calls: string[] } {
  const calls: string[] = [];
  const fn = ((url: string) => {
    calls.push(url);
    return Promise.reject(new TypeError('recording fetch: refused (nothing was sent)'));
  }) as ((url: string) => Promise<Response>) & { calls: string[] };
  fn.calls = calls;
  return fn;
}

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (error) {
    if (isBotsigError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a rejection');
}

function client(extra: Omit<DirectoryClientOptions, 'fetch'> = {}): { c: DirectoryClient; fetch: ReturnType<typeof refusing> } {
  const fetch = refusing();
  return { c: new DirectoryClient({ fetch, ...extra }), fetch };
}

describe('what a URL may carry', () => {
  it.each([
    ['https://user@agent.example/jwks', 'a user name alone'],
    ['https://:pw@agent.example/jwks', 'a password alone'],
  ])('%s (%s) is ERR_URL_INVALID, not fetched', async (url) => {
    const { c, fetch } = client();
    expect(await failure(c.resolve(rawMember(url, 'jwks_uri')))).toEqual({ code: 'ERR_URL_INVALID', message: 'URLs with userinfo are refused' });
    expect(fetch.calls).toEqual([]);
  });

  it('a scheme other than http(s) and http without allow.http say why', async () => {
    const { c, fetch } = client();
    expect(await failure(c.resolve(rawMember('ftp://agent.example/jwks', 'jwks_uri')))).toEqual({
      code: 'ERR_URL_INVALID',
      message: 'only https (and, when allowed, http) URLs can be fetched',
    });
    expect(await failure(c.resolve(rawMember('http://agent.example/jwks', 'jwks_uri')))).toEqual({
      code: 'ERR_URL_BLOCKED',
      message: 'http URLs are refused; set allow.http for local use',
    });
    expect(fetch.calls).toEqual([]);
  });

  it('http with allow.http is fetched', async () => {
    const { c, fetch } = client({ allow: { http: true } });
    expect((await failure(c.resolve(rawMember('http://agent.example/jwks', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(fetch.calls).toEqual(['http://agent.example/jwks']);
  });

  it('a host of only a dot is no host', async () => {
    const { c, fetch } = client();
    expect(await failure(c.resolve(rawMember('https://./jwks', 'jwks_uri')))).toEqual({ code: 'ERR_URL_INVALID', message: 'URL has no host' });
    expect(fetch.calls).toEqual([]);
  });

  it('a blocked host says why', async () => {
    const { c } = client();
    expect((await failure(c.resolve(rawMember('https://10.0.0.1/jwks', 'jwks_uri')))).message).toBe(
      'the host is a loopback, private, link-local or reserved address or a local-only name; see the allow option',
    );
  });
});

describe('ports: only the default one, unless opened', () => {
  it('a port not opened says which', async () => {
    const { c, fetch } = client({ allow: { ports: [8080] } });
    expect(await failure(c.resolve(rawMember('https://agent.example:8443/jwks', 'jwks_uri')))).toEqual({
      code: 'ERR_URL_BLOCKED',
      message: 'port 8443 is not fetched; see allow.ports',
    });
    expect((await failure(c.resolve(rawMember('https://agent.example:8080/jwks', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(fetch.calls).toEqual(['https://agent.example:8080/jwks']);
  });

  it('an allow-listed host may use any port, written with or without a trailing dot', async () => {
    const { c, fetch } = client({ allow: { hosts: ['internal.example'] } });
    expect((await failure(c.resolve(rawMember('https://internal.example.:8443/jwks', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_FETCH');
    expect((await failure(c.resolve(rawMember('https://internal.example:8444/jwks', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(fetch.calls).toEqual(['https://internal.example.:8443/jwks', 'https://internal.example:8444/jwks']);
  });

  it('under allow.loopback, loopback hosts may use any port; other hosts may not', async () => {
    const { c, fetch } = client({ allow: { loopback: true, http: true } });
    const open = ['http://localhost:8080/j', 'http://a.localhost:8080/j', 'http://[::1]:8080/j', 'http://127.0.0.1:8080/j', 'http://127.10.20.30:8080/j'];
    for (const url of open) expect((await failure(c.resolve(rawMember(url, 'jwks_uri')))).code, url).toBe('ERR_DIRECTORY_FETCH');
    expect(fetch.calls).toEqual(open);
    for (const url of ['https://agent.example:8443/j', 'https://127.0.0.1.example:8443/j', 'https://localhost.example:8443/j']) {
      expect((await failure(c.resolve(rawMember(url, 'jwks_uri')))).code, url).toBe('ERR_URL_BLOCKED');
    }
    expect(fetch.calls).toEqual(open);
  });

  it('an allow-listed loopback host needs neither allow.loopback nor allow.ports for its port', async () => {
    const { c, fetch } = client({ allow: { hosts: ['127.0.0.1'], http: true } });
    expect((await failure(c.resolve(rawMember('http://127.0.0.1:8080/j', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(fetch.calls).toEqual(['http://127.0.0.1:8080/j']);
  });
});

describe('the host an exchange is admitted for', () => {
  it('"h.example." and "h.example" are one host for the back-off', async () => {
    const { c, fetch } = client();
    await failure(c.resolve(rawMember('https://h.example./a', 'jwks_uri')));
    await failure(c.resolve(rawMember('https://h.example./b', 'jwks_uri')));
    expect(await failure(c.resolve(rawMember('https://h.example/c', 'jwks_uri')))).toMatchObject({ code: 'ERR_DISCOVERY_LIMITED' });
    expect(fetch.calls).toHaveLength(2);
  });

  it('loopback hosts under allow.loopback are trusted: no back-off', async () => {
    const { c, fetch } = client({ allow: { loopback: true, http: true } });
    for (const host of ['localhost', 'a.localhost', '[::1]', '127.0.0.1', '127.10.20.30']) {
      for (let i = 0; i < 4; i++) expect((await failure(c.resolve(rawMember(`http://${host}/${i}`, 'jwks_uri')))).code, host).toBe('ERR_DIRECTORY_FETCH');
    }
    expect(fetch.calls).toHaveLength(20);
  });
});

describe('how long a URL may be', () => {
  it('a Signature-Agent value over 2,048 characters is refused before anything is sent; one at the limit is fetched', async () => {
    const { c, fetch } = client();
    const base = 'https://agent.example/';
    const long = base + 'a'.repeat(2049 - base.length);
    expect(await failure(c.resolve(rawMember(long, 'jwks_uri')))).toEqual({
      code: 'ERR_URL_INVALID',
      message: 'Signature-Agent value is longer than 2048 characters; not fetched',
    });
    expect(fetch.calls).toEqual([]);
    const atLimit = long.slice(0, -1);
    expect((await failure(c.resolve(rawMember(atLimit, 'jwks_uri')))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(fetch.calls).toEqual([atLimit]);
  });
});
