/**
 * The signer (src/profile/sign/plan.ts) reads a request object directly only when its headers
 * are a plain record or a Headers: headers given as a Map of pairs (an iterable of pairs,
 * which HeaderInput allows) are read as a message (`fullSigning`, sign/full.ts), and the signatures
 * already there are kept (RFC 9421 §4.3: a new signature is added beside them).
 */
import { describe, expect, it } from 'vitest';
import { signRequest, fullSigning } from '../../src/index';
import { keyPair } from '../profile/helpers';

const EXISTING_INPUT = 'sig1=("@authority");created=1';
const EXISTING_SIGNATURE = 'sig1=:AAAA:';

describe('requests read as a message: other header shapes', () => {
  it('a Map holding a signature already: the new one is added beside it (label sig2), not put in its place', async () => {
    const k = await keyPair();
    const headers = new Map([
      ['signature-input', EXISTING_INPUT],
      ['signature', EXISTING_SIGNATURE],
    ]);
    const out = await signRequest(
      { url: 'https://example.com/', headers },
      { extend: fullSigning, key: k.privateJwk, signatureAgent: 'https://agent.example', created: 1000, expires: 1100, nonce: 'n' },
    );
    expect(out['signature-input']).toMatch(/^sig1=\("@authority"\);created=1, sig2=\("@authority" "signature-agent";key="sig2"\);created=1000;/);
    expect(out.signature).toMatch(/^sig1=:AAAA:, sig2=:[A-Za-z0-9+/=]+:$/);
  });

  it('an array of pairs likewise', async () => {
    const k = await keyPair();
    const headers: Array<[string, string]> = [
      ['signature-input', EXISTING_INPUT],
      ['signature', EXISTING_SIGNATURE],
    ];
    const out = await signRequest(
      { url: 'https://example.com/', headers },
      { extend: fullSigning, key: k.privateJwk, signatureAgent: 'https://agent.example', created: 1000, expires: 1100, nonce: 'n' },
    );
    expect(out.signature).toMatch(/^sig1=:AAAA:, sig2=:/);
  });

  it('a function, even one with a url, is not a request: TypeError', async () => {
    const k = await keyPair();
    const fn = Object.assign(() => undefined, { url: 'https://example.com/' });
    await expect(signRequest(fn as never, { extend: fullSigning, key: k.privateJwk, signatureAgent: 'https://agent.example' })).rejects.toThrow(
      new TypeError('message must be a Request, Response or message object'),
    );
  });
});
