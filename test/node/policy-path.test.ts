/**
 * A policy routes by `request.path`, which is set even when the request named no
 * valid authority (a malformed `Host`): the README's custom-policy example used
 * `new URL(request.url)`, which threw on `''` and answered 500.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createNodeMiddleware } from '../../src/node';

function get(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('PolicyRequest.path', () => {
  it('is the request path with a valid Host, and still the path with a malformed one', async () => {
    const seen: Array<{ url: string; path: string }> = [];
    const verify = createNodeMiddleware({
      keys: [],
      mode: 'enforce',
      allowInsecure: true,
      authorities: ['origin.example'],
      policy: (_result, request, fallback) => {
        seen.push({ url: request.url, path: request.path });
        if (request.path.startsWith('/public/')) return undefined;
        return fallback;
      },
    });
    const server = createServer((req, res) => void verify(req, res, () => res.end('ok')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      expect(await get(port, '/public/a?x=1', 'origin.example')).toBe(200);
      expect(await get(port, '/public/b', 'bad host!')).toBe(200);
      expect(await get(port, '/private', 'bad host!')).toBe(403);
    } finally {
      server.close();
    }
    expect(seen[0]).toEqual({ url: 'http://origin.example/public/a?x=1', path: '/public/a' });
    expect(seen[1]).toEqual({ url: '', path: '/public/b' });
    expect(seen[2]!.path).toBe('/private');
  });
});
