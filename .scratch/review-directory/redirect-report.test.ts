/**
 * With maxRedirects > 0, an unusable body reached through a redirect to the www twin is
 * reported against the www host (never admitted, so the report is dropped: outbound.ts:218),
 * so the host-level back-off never starts and URL cycling on one host is not bounded.
 */
import { describe, expect, it } from 'vitest';
import { DirectoryClient } from '../../src/directory';
import type { SignatureAgentMember } from '../../src/index';

const m = (url: string): SignatureAgentMember => ({ key: 'sig1', url, type: 'jwks_uri', scheme: 'https', index: 0 });

describe('host back-off and redirects', () => {
  for (const redirect of [false, true]) {
    it(`unusable bodies ${redirect ? 'behind a redirect to www.' : 'served directly'}`, async () => {
      let t = 1_700_000_000_000;
      let sent = 0;
      const fetch = async (url: string): Promise<Response> => {
        sent++;
        if (redirect && !url.startsWith('https://www.')) return new Response(null, { status: 302, headers: { location: url.replace('https://', 'https://www.') } });
        return new Response('{"not":"a directory"}', { status: 200, headers: { 'content-type': 'application/json' } });
      };
      const client = new DirectoryClient({ fetch, now: () => t, limits: { maxRedirects: 1 } });
      for (let i = 0; i < 30; i++) {
        await client.resolve(m(`https://cycler.com/u${i}`)).catch(() => undefined);
        t += 1000;
      }
      console.log(redirect ? 'with redirect:' : 'direct:       ', 'requests sent for 30 URLs on one host =', sent);
      expect(sent).toBeLessThanOrEqual(2 * (redirect ? 2 : 1) + 4);
    });
  }
});
