/**
 * The signing fast path (src/profile/sign/fast.ts) against the general path
 * (src/profile/sign/general.ts): for every request and options the fast path takes,
 * it must give byte for byte what the general path gives (Ed25519 is deterministic,
 * so with one time and one nonce the signatures agree too); for everything else it
 * must decline, and signRequest must then give the general path's answer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importSigningKey } from '../../src/crypto/keys/signing';
import type { SigningKey } from '../../src/crypto/types';
import { signRequest } from '../../src/profile/sign-request';
import { signFast } from '../../src/profile/sign/fast';
import { signGeneral } from '../../src/profile/sign/general';
import type { SignRequestOptions } from '../../src/profile/types';
import { at, keyPair, T0 } from './helpers';

let key: SigningKey;
const signingKey = async (): Promise<SigningKey> => (key ??= await importSigningKey((await keyPair()).privateJwk));

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));
const port = fc.option(fc.integer({ min: 1, max: 70_000 }), { nil: undefined });
const path = fc.stringMatching(/^(\/[A-Za-z0-9._~%-]{0,8}){0,3}(\?[a-z0-9=&]{0,12})?$/);
const origin = fc
  .record({ scheme: fc.constantFrom('https', 'http'), host, port, slash: fc.boolean() })
  .map(({ scheme, host, port, slash }) => `${scheme}://${host}${port === undefined ? '' : `:${port}`}${slash ? '/' : ''}`);
const nonce = fc.oneof(fc.constant(undefined), fc.constant(false as const), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/));

async function bothPaths(request: unknown, options: SignRequestOptions): Promise<{ fast: unknown; general: unknown }> {
  const k = await signingKey();
  let general: unknown;
  try {
    general = await signGeneral(request as never, options, k);
  } catch (error) {
    general = { threw: (error as { code?: string; name: string }).code ?? (error as Error).name };
  }
  let fast: unknown;
  try {
    fast = await signFast(request, options, k);
  } catch (error) {
    fast = { threw: (error as { code?: string; name: string }).code ?? (error as Error).name };
  }
  return { fast, general };
}

describe('signFast gives what the general path gives', () => {
  it('random requests and options it takes (Request, plain objects with Headers or records, no headers)', async () => {
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          url: fc.tuple(origin, path).map(([o, p]) => o.replace(/\/$/, '') + (p === '' ? '/' : p)),
          shape: fc.constantFrom('request', 'record', 'headers', 'none'),
          agent: fc.oneof(
            origin,
            origin.map((url) => ({ url })),
            origin.map((url) => url.replace(/\/$/, '') + '/.well-known/http-message-signatures-directory'),
          ),
          nonce,
          includeAlg: fc.option(fc.boolean(), { nil: undefined }),
          validitySeconds: fc.option(fc.integer({ min: 1, max: 200_000 }), { nil: undefined }),
          allowLongValidity: fc.option(fc.boolean(), { nil: undefined }),
          seconds: fc.integer({ min: 0, max: 4_000_000_000 }),
          label: fc.constantFrom(undefined, 'sig1'),
        }),
        async (c) => {
          let request: unknown;
          try {
            request =
              c.shape === 'request'
                ? new Request(c.url, { headers: { 'user-agent': 'test' } })
                : c.shape === 'record'
                  ? { method: 'GET', url: c.url, headers: { 'User-Agent': 'test', Accept: ['a', 'b'] } }
                  : c.shape === 'headers'
                    ? { url: c.url, headers: new Headers({ accept: '*/*' }) }
                    : { url: c.url };
          } catch {
            return; // a URL the Request constructor refuses
          }
          const options: SignRequestOptions = {
            key: await signingKey(),
            now: at(c.seconds * 1000),
            signatureAgent: c.agent,
            ...(c.nonce === undefined ? { nonce: 'fixed-for-comparison' } : { nonce: c.nonce }),
            ...(c.includeAlg === undefined ? {} : { includeAlg: c.includeAlg }),
            ...(c.validitySeconds === undefined ? {} : { validitySeconds: c.validitySeconds }),
            ...(c.allowLongValidity === undefined ? {} : { allowLongValidity: c.allowLongValidity }),
            ...(c.label === undefined ? {} : { label: c.label }),
          };
          const { fast, general } = await bothPaths(request, options);
          if (fast === undefined) return;
          taken++;
          expect(fast).toEqual(general);
        },
      ),
      { numRuns: 400 },
    );
    // The generators are for the fast path: most cases must take it.
    expect(taken).toBeGreaterThan(100);
  });

  it("label: 'sig1' spelled out is the fast path's own label", async () => {
    const k = await signingKey();
    const request = new Request('https://example.com/x');
    const options = { key: k, signatureAgent: 'https://agent.example', now: at(T0), nonce: 'n' };
    const asked = signFast(request, { ...options, label: 'sig1' }, k);
    expect(asked).toBeDefined();
    expect(await asked).toEqual(await signFast(request, options, k));
  });

  it('its own random nonce: the same fields as the general path with that nonce', async () => {
    const k = await signingKey();
    const request = new Request('https://example.com/x?y=1');
    const fast = (await signFast(request, { key: k, signatureAgent: 'https://agent.example', now: at(T0) }, k))!;
    const nonceValue = /;nonce="([^"]+)"/.exec(fast['signature-input'])![1]!;
    expect(nonceValue).toMatch(/^[A-Za-z0-9_-]{86}$/);
    const general = await signGeneral(request, { key: k, signatureAgent: 'https://agent.example', now: at(T0), nonce: nonceValue }, k);
    expect(fast).toEqual(general);
  });
});

describe('signFast declines what it does not cover, and signRequest then takes the general path', () => {
  const declined: Array<[string, unknown, Partial<SignRequestOptions>]> = [
    ['extra components', { url: 'https://example.com/' }, { components: ['@method'] }],
    ['replaceComponents', { url: 'https://example.com/' }, { components: ['@target-uri'], replaceComponents: true }],
    ['a label other than sig1', { url: 'https://example.com/' }, { label: 'sig2' }],
    [
      'sig1 on a request that already carries sig1',
      { url: 'https://example.com/', headers: { 'signature-input': 'sig1=();created=1', signature: 'sig1=:AAAA:' } },
      { label: 'sig1' },
    ],
    ['another tag', { url: 'https://example.com/' }, { tag: 'other' }],
    ['an explicit created', { url: 'https://example.com/' }, { created: T0 / 1000 }],
    ['an explicit expires', { url: 'https://example.com/' }, { expires: T0 / 1000 + 60 }],
    ['a nonce that needs escaping', { url: 'https://example.com/' }, { nonce: 'a"b' }],
    ['a member type', { url: 'https://example.com/' }, { signatureAgent: { url: 'https://agent.example/jwks.json', type: 'jwks_uri' } }],
    ['a member with a path', { url: 'https://example.com/' }, { signatureAgent: 'https://agent.example/dir' }],
    [
      'a well-known URL with a query',
      { url: 'https://example.com/' },
      { signatureAgent: 'https://agent.example/.well-known/http-message-signatures-directory?v=1' },
    ],
    ["the earlier drafts' bare origin", { url: 'https://example.com/' }, { signatureAgent: { url: 'https://agent.example', type: 'directory' } }],
    ['an upper-case member host', { url: 'https://example.com/' }, { signatureAgent: 'https://Agent.example' }],
    ['an IDN member host', { url: 'https://example.com/' }, { signatureAgent: 'https://bücher.example' }],
    ['a port beyond 65535', { url: 'https://example.com/' }, { signatureAgent: 'https://agent.example:70000' }],
    ['a request that already carries a signature', { url: 'https://example.com/', headers: { Signature: 'sig1=:AAAA:' } }, {}],
    ['a request with a Signature-Agent', { url: 'https://example.com/', headers: new Headers({ 'signature-agent': 'a="https://x.example"' }) }, {}],
    ['header pairs', { url: 'https://example.com/', headers: [['accept', '*/*']] }, {}],
    ['a response', { status: 200, headers: {} }, {}],
    ['a relative URL', { url: '/relative' }, {}],
    ['a validity above 24 h', { url: 'https://example.com/' }, { validitySeconds: 90_000 }],
    ['content-digest', { url: 'https://example.com/', body: 'x' }, { contentDigest: 'sha-256' }],
  ];
  for (const [what, request, extra] of declined) {
    it(what, async () => {
      const k = await signingKey();
      const options = { key: k, now: at(T0), nonce: 'n', signatureAgent: 'https://agent.example', ...extra } as SignRequestOptions;
      expect(signFast(request, options, k)).toBeUndefined();
      let viaSignRequest: unknown;
      let viaGeneral: unknown;
      try {
        viaSignRequest = await signRequest(request as never, options);
      } catch (error) {
        viaSignRequest = { threw: (error as { code?: string }).code ?? (error as Error).name };
      }
      try {
        viaGeneral = await signGeneral(request as never, options, k);
      } catch (error) {
        viaGeneral = { threw: (error as { code?: string }).code ?? (error as Error).name };
      }
      expect(viaSignRequest).toEqual(viaGeneral);
    });
  }
});
