/**
 * Property tests over the profile: any request botsig signs verifies, and no
 * garbage in the three signature headers makes verifyRequest throw or say verified.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyRequest, MemoryNonceStore } from '../../src/index';
import type { VerifyRequestOptions } from '../../src/index';
import type { MessageObject } from '../../src/httpsig';
import { importSigningKeySync, signRequestSync } from '../../src/sync';
import { at, FakeDirectory, keyPair, T0 } from './helpers';

const NOW = T0 + 11_000;

const lower = 'abcdefghijklmnopqrstuvwxyz';
const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/).filter((s) => !s.endsWith('-'));
const host = fc
  .array(label, { minLength: 1, maxLength: 3 })
  .chain((labels) => fc.constantFrom(...lower.split('')).map((tld) => [...labels, `x${tld}`].join('.')));
const port = fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined });
const segment = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{0,12}$/).filter((s) => s !== '.' && s !== '..');
const path = fc.array(segment, { maxLength: 4 }).map((segs) => '/' + segs.join('/'));
const query = fc.option(
  fc
    .array(fc.tuple(fc.stringMatching(/^[a-z0-9]{1,6}$/), fc.stringMatching(/^[A-Za-z0-9._~-]{0,8}$/)), { maxLength: 4 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  { nil: undefined },
);
const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'PROPFIND');
const fieldName = fc.stringMatching(/^x-[a-z0-9-]{1,12}$/);
// Visible ASCII with inner spaces; outer whitespace is not part of a field value (RFC 9110 §5.5).
const fieldValue = fc.stringMatching(/^[!-~]([ !-~]{0,30}[!-~])?$/);
const extraHeaders = fc.uniqueArray(fc.tuple(fieldName, fieldValue), { maxLength: 4, selector: ([n]) => n });

describe('property: sign then verify is always verified (SPEC 5.1, 5.3)', () => {
  it('random method, host, port, path, query and covered extra headers', async () => {
    const { privateJwk, publicJwk } = await keyPair();
    const key = importSigningKeySync(privateJwk);
    const options: VerifyRequestOptions = { keys: [publicJwk], now: at(NOW), nonce: { store: new MemoryNonceStore() } };
    await fc.assert(
      fc.asyncProperty(
        method,
        host,
        port,
        path,
        query,
        extraHeaders,
        fc.subarray(['@method', '@path', '@query', '@target-uri']),
        fc.boolean(),
        async (m, h, p, pth, q, extras, derived, withAgent) => {
          const url = `https://${h}${p === undefined ? '' : `:${p}`}${pth}${q === undefined ? '' : `?${q}`}`;
          const headers: Record<string, string> = Object.fromEntries(extras);
          const req: MessageObject = { method: m, url, headers };
          const signed = signRequestSync(req, {
            key,
            now: at(NOW),
            components: [...derived, ...extras.map(([n]) => n)],
            signatureAgent: withAgent ? 'https://agent.example' : 'https://agent.example/jwks.json',
          });
          const result = await verifyRequest({ ...req, headers: { ...headers, ...signed } }, options);
          expect(result.outcome, `${m} ${url} ${JSON.stringify(result.signatures[0]?.error)}`).toBe('verified');
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('property: header garbage never throws and is never verified (SPEC 5.3 rule 1)', () => {
  const sfish = fc.string({
    unit: fc.constantFrom(
      ...'sig12=():;,"*@-_ ./\\?abcdefkeyidcreatedexpirestag'.split(''),
      ':',
      '"',
      'web-bot-auth',
      'signature-agent',
      '@authority',
      'key=',
      '\t',
      'é',
      '\u0000',
    ),
    maxLength: 80,
  });
  const garbage = fc.oneof(fc.string({ maxLength: 60 }), sfish, fc.string({ unit: 'binary', maxLength: 40 }));
  const directory = new FakeDirectory({});

  it('random Signature / Signature-Input / Signature-Agent values, alone or mixed with a valid signature', async () => {
    const { privateJwk, publicJwk } = await keyPair();
    const valid = signRequestSync({ url: 'https://example.com/' }, { key: privateJwk, now: at(NOW), signatureAgent: 'https://agent.example' });
    const options: VerifyRequestOptions = { keys: [publicJwk], directory, now: at(NOW), nonce: { policy: 'none' } };
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          signature: fc.option(fc.oneof(garbage, fc.constant(valid.signature)), { nil: undefined }),
          'signature-input': fc.option(garbage, { nil: undefined }),
          'signature-agent': fc.option(fc.oneof(garbage, fc.constant(valid['signature-agent']!)), { nil: undefined }),
        }),
        async (fields) => {
          const headers: Array<[string, string]> = [];
          for (const [name, value] of Object.entries(fields)) if (value !== undefined) headers.push([name, value]);
          const result = await verifyRequest({ method: 'GET', url: 'https://example.com/', headers }, options);
          expect(result.outcome).not.toBe('verified');
          for (const s of result.signatures) expect(s.outcome).not.toBe('verified');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('one character of a valid Signature-Input changed: never throws, verified only if the structure is unchanged', async () => {
    const { privateJwk, publicJwk } = await keyPair();
    const valid = signRequestSync({ url: 'https://example.com/' }, { key: privateJwk, now: at(NOW), signatureAgent: 'https://agent.example' });
    const options: VerifyRequestOptions = { keys: [publicJwk], now: at(NOW), nonce: { policy: 'none' } };
    const input = valid['signature-input'];
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: input.length - 1 }), fc.string({ minLength: 1, maxLength: 1 }), async (i, c) => {
        const mutated = input.slice(0, i) + c + input.slice(i + 1);
        const result = await verifyRequest({ url: 'https://example.com/', headers: { ...valid, 'signature-input': mutated } }, options);
        if (result.outcome === 'verified') {
          // Only a change that the parser normalises away (e.g. optional whitespace) may still verify.
          expect(mutated === input || /^\s*$/.test(c)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
