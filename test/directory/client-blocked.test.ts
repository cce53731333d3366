/**
 * DirectoryClient URL guards (NOTES "Discovery": no requests to private,
 * loopback or link-local addresses). Network rule: nothing here may reach the
 * network even if the guard is broken, so every client gets a fetch that only
 * records the attempt and answers from a fixed route table.
 */
import { describe, expect, it } from 'vitest';
import { BotsigError } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import type { DirectoryClientOptions } from '../../src/directory';
import { DIRECTORY_TYPE, jwks, member, rawMember, recordingFetch, testKey, WELL_KNOWN } from './client-fixtures';
import { expectCode } from '../helpers/errors';

function guarded(fetch: ReturnType<typeof recordingFetch>, extra: DirectoryClientOptions = {}): DirectoryClient {
  return new DirectoryClient({ fetch, ...extra });
}

describe('blocked before anything is sent (ERR_URL_BLOCKED)', () => {
  const cases = [
    'https://127.0.0.1',
    'https://10.0.0.1',
    'https://172.16.5.4',
    'https://192.168.0.1',
    'https://100.64.0.1',
    'https://[::ffff:127.0.0.1]',
    'https://[::ffff:169.254.169.254]',
    'https://169.254.169.254',
    'https://2130706433',
    'https://0177.0.0.1',
    'https://0x7f.1',
    'https://127.1',
    'https://0.0.0.0',
    'https://[::]',
    'https://[::1]',
    'https://[fd00::1]',
    'https://[fe80::1]',
    'https://[64:ff9b::a9fe:a9fe]',
    'https://224.0.0.1',
    'https://localhost',
    'https://localhost.',
    'https://api.localhost',
    'https://metadata.google.internal',
    'https://printer.local',
    'https://intranet',
  ];
  it.each(cases)('%s', async (url) => {
    const fetch = recordingFetch();
    await expectCode(guarded(fetch).resolve(rawMember(url)), 'ERR_URL_BLOCKED');
    await expectCode(guarded(fetch).resolve(rawMember(`${url}/jwks.json`, 'jwks_uri')), 'ERR_URL_BLOCKED');
    await expectCode(guarded(fetch).resolve(rawMember(`${url}/bot`, 'cimd')), 'ERR_URL_BLOCKED');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('http://127.0.0.1 without the allow-list, and http at all without allow.http', async () => {
    const fetch = recordingFetch();
    await expectCode(guarded(fetch).resolve(member('http://127.0.0.1:8080')), 'ERR_URL_BLOCKED');
    await expectCode(guarded(fetch, { allow: { loopback: true } }).resolve(member('http://127.0.0.1:8080')), 'ERR_URL_BLOCKED');
    await expectCode(guarded(fetch).resolve(member('http://agent.example')), 'ERR_URL_BLOCKED');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('the same forms written in a real Signature-Agent header are blocked too', async () => {
    const fetch = recordingFetch();
    for (const url of ['https://2130706433', 'https://0177.0.0.1', 'https://[::ffff:127.0.0.1]', 'https://169.254.169.254']) {
      await expectCode(guarded(fetch).resolve(member(url)), 'ERR_URL_BLOCKED');
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  it('private networks stay closed under allow.loopback, and link-local stays closed under both', async () => {
    const fetch = recordingFetch();
    const c = guarded(fetch, { allow: { loopback: true, privateNetworks: true } });
    await expectCode(c.resolve(rawMember('https://169.254.169.254')), 'ERR_URL_BLOCKED');
    await expectCode(c.resolve(rawMember('https://[fe80::1]')), 'ERR_URL_BLOCKED');
    await expectCode(c.resolve(rawMember('https://0.0.0.0')), 'ERR_URL_BLOCKED');
    await expectCode(guarded(fetch, { allow: { loopback: true } }).resolve(rawMember('https://10.0.0.1')), 'ERR_URL_BLOCKED');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('userinfo and non-http schemes are ERR_URL_INVALID', async () => {
    const fetch = recordingFetch();
    await expectCode(guarded(fetch).resolve(rawMember('https://user:pw@agent.example/jwks.json', 'jwks_uri')), 'ERR_URL_INVALID');
    await expectCode(guarded(fetch).resolve(rawMember('ftp://agent.example/jwks.json', 'jwks_uri')), 'ERR_URL_INVALID');
    await expectCode(guarded(fetch).resolve(rawMember('not a url', 'jwks_uri')), 'ERR_URL_INVALID');
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('guards on URLs the client learns later', () => {
  it('a card whose jwks_uri names a blocked address: only the card is fetched', async () => {
    const card = { client_id: 'https://agent.example/bot', jwks_uri: 'https://169.254.169.254/latest/meta-data' };
    const fetch = recordingFetch({
      'https://agent.example/bot': () => new Response(JSON.stringify(card), { headers: { 'content-type': 'application/json' } }),
    });
    await expectCode(guarded(fetch).resolve(member('https://agent.example/bot', 'cimd')), 'ERR_URL_BLOCKED');
    expect(fetch.mock.calls.map((c) => c[0])).toEqual(['https://agent.example/bot']);
  });

  it('a redirect to another host (even a blocked one) is not requested', async () => {
    const fetch = recordingFetch({
      [`https://agent.example${WELL_KNOWN}`]: () => new Response(null, { status: 302, headers: { location: 'https://169.254.169.254/' } }),
    });
    await expectCode(guarded(fetch, { limits: { maxRedirects: 3 } }).resolve(member('https://agent.example')), 'ERR_DIRECTORY_FETCH');
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('an https → http downgrade is not followed, even on the same host', async () => {
    const fetch = recordingFetch({
      [`https://agent.example${WELL_KNOWN}`]: () => new Response(null, { status: 301, headers: { location: `http://agent.example${WELL_KNOWN}` } }),
    });
    await expectCode(guarded(fetch, { allow: { http: true }, limits: { maxRedirects: 3 } }).resolve(member('https://agent.example')), 'ERR_DIRECTORY_FETCH');
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('apex → www is followed with maxRedirects (NOTES "Discovery")', async () => {
    const a = await testKey();
    const fetch = recordingFetch({
      [`https://agent.example${WELL_KNOWN}`]: () => new Response(null, { status: 301, headers: { location: `https://www.agent.example${WELL_KNOWN}` } }),
      [`https://www.agent.example${WELL_KNOWN}`]: () => new Response(jwks(a), { headers: { 'content-type': DIRECTORY_TYPE } }),
    });
    const r = await guarded(fetch, { limits: { maxRedirects: 1 } }).resolve(member('https://agent.example'));
    expect(r.url).toBe(`https://agent.example${WELL_KNOWN}`);
    expect(r.keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
    expect(fetch).toHaveBeenCalledTimes(2);
    const init = fetch.mock.calls[0]![1]!;
    expect(init.redirect).toBe('manual');
    expect(init.signal).toBeInstanceOf(AbortSignal);
  });

  it('a DNS-level refusal from a guarded fetch (wrapped in TypeError, as undici does) surfaces as ERR_URL_BLOCKED', async () => {
    const fetch = recordingFetch({
      [`https://rebind.example${WELL_KNOWN}`]: () => {
        throw new TypeError('fetch failed', { cause: new BotsigError('ERR_URL_BLOCKED', 'resolved to a private address') });
      },
    });
    await expectCode(guarded(fetch).resolve(member('https://rebind.example')), 'ERR_URL_BLOCKED');
  });
});

describe('the allow-list', () => {
  it('allow.hosts opens exactly the hosts it names', async () => {
    const a = await testKey();
    const fetch = recordingFetch({
      [`https://10.0.0.1${WELL_KNOWN}`]: () => new Response(jwks(a), { headers: { 'content-type': DIRECTORY_TYPE } }),
    });
    const c = guarded(fetch, { allow: { hosts: ['10.0.0.1'] } });
    const r = await c.resolve(rawMember('https://10.0.0.1'));
    expect(r.keys).toHaveLength(1);
    await expectCode(c.resolve(rawMember('https://10.0.0.2')), 'ERR_URL_BLOCKED');
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('allow.hosts canonicalises IP forms ([::1] and ::1, 2130706433 and 127.0.0.1)', async () => {
    const fetch = recordingFetch();
    const c = guarded(fetch, { allow: { hosts: ['::1', '2130706433'] } });
    // Allowed, so the (recording, refusing) fetch is reached: a network error, not ERR_URL_BLOCKED.
    await expectCode(c.resolve(rawMember('https://[::1]')), 'ERR_DIRECTORY_FETCH');
    await expectCode(c.resolve(rawMember('https://127.0.0.1')), 'ERR_DIRECTORY_FETCH');
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});
