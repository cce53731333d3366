/**
 * Interop on a POST with `content-digest` (issue 17), both directions, with
 * `http-message-signatures` 1.x (dhensby): it has no Content-Digest support of its own,
 * so the test computes the field with `node:crypto` (an oracle independent of botsig's
 * digest code) and checks botsig's field with it. Requests (Web Bot Auth profile, Ed25519)
 * and signed responses with `;req` components (RFC 9421 §2.4).
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createSigner, createVerifier, httpbis } from 'http-message-signatures';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest, verifyRequest, signResponse, verifyResponse, fullSigning } from '../../src/index';
import type { GeneratedKeyPair } from '../../src/index';

const URL_ = 'https://merchant.example/checkout?cart=7';
const BODY = '{"items":[{"sku":"tea","qty":2}],"total":"12.50","currency":"EUR"}';
const RESPONSE_BODY = '{"order":"A-1001","status":"accepted"}';

/** RFC 9530 §2 by hand: `<alg>=:<base64 digest>:` with node:crypto. */
function oracleDigest(body: string, alg: 'sha-256' | 'sha-512' = 'sha-256'): string {
  return `${alg}=:${createHash(alg === 'sha-256' ? 'sha256' : 'sha512')
    .update(body, 'utf8')
    .digest('base64')}:`;
}

interface Party {
  pair: GeneratedKeyPair;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

async function party(): Promise<Party> {
  const pair = await generateKeyPair('ed25519');
  const material = { kty: 'OKP', crv: 'Ed25519', x: pair.privateJwk.x as string };
  return {
    pair,
    privateKey: createPrivateKey({ key: { ...material, d: pair.privateJwk.d as string }, format: 'jwk' }),
    publicKey: createPublicKey({ key: material, format: 'jwk' }),
  };
}

let agent: Party;
let origin: Party;
beforeAll(async () => {
  agent = await party();
  origin = await party();
});

function lookup(p: Party) {
  return (params: { keyid?: string }) =>
    Promise.resolve(params.keyid === p.pair.thumbprint ? { id: p.pair.thumbprint, algs: ['ed25519'], verify: createVerifier(p.publicKey, 'ed25519') } : null);
}

describe('requests: POST with content-digest', () => {
  it('botsig signRequest({ contentDigest }) → http-message-signatures verifyMessage; the field is the oracle digest of the body', async () => {
    for (const alg of ['sha-256', 'sha-512'] as const) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      Object.assign(
        headers,
        await signRequest(
          { method: 'POST', url: URL_, headers, body: BODY },
          {
            extend: fullSigning,
            key: agent.pair.privateJwk,
            signatureAgent: 'https://agent.example/jwks.json',
            contentDigest: alg,
            components: ['@method', '@path'],
          },
        ),
      );
      expect(headers['content-digest']).toBe(oracleDigest(BODY, alg));
      const ok = await httpbis.verifyMessage(
        { keyLookup: lookup(agent), requiredFields: ['@authority', '@method', 'content-digest'], requiredParams: ['created', 'expires', 'keyid', 'tag'] },
        { method: 'POST', url: URL_, headers },
      );
      expect(ok, alg).toBe(true);
      // Its own negative control: a Content-Digest for another body fails there too.
      expect(
        await httpbis.verifyMessage({ keyLookup: lookup(agent) }, { method: 'POST', url: URL_, headers: { ...headers, 'content-digest': oracleDigest('{}') } }),
      ).toBe(false);
    }
  });

  it('http-message-signatures signMessage (content-digest from the oracle) → botsig verifyRequest with the body: verified, digest matched; another body: ERR_DIGEST_MISMATCH', async () => {
    const created = Math.floor(Date.now() / 1000);
    const request = { method: 'POST', url: URL_, headers: { 'content-type': 'application/json', 'content-digest': oracleDigest(BODY) } };
    const signed = await httpbis.signMessage(
      {
        key: createSigner(agent.privateKey, 'ed25519', agent.pair.thumbprint),
        name: 'sig1',
        fields: ['@method', '@authority', '@path', 'content-type', 'content-digest'],
        params: ['created', 'keyid', 'alg', 'expires', 'nonce', 'tag'],
        paramValues: {
          created: new Date(created * 1000),
          expires: new Date((created + 300) * 1000),
          nonce: randomBytes(32).toString('base64url'),
          tag: 'web-bot-auth',
        },
      },
      request,
    );
    const headers = signed.headers as Record<string, string>;
    const options = { keys: [agent.pair.publicJwk], requireContentDigest: true };
    const result = await verifyRequest({ ...request, headers, body: BODY }, options);
    expect(result.error).toBeUndefined();
    expect(result.outcome).toBe('verified');
    expect(result.contentDigest).toEqual({ status: 'matched', algorithms: ['sha-256'] });
    const forged = await verifyRequest({ ...request, headers, body: BODY.replace('12.50', '0.01') }, { keys: [agent.pair.publicJwk] });
    expect(forged.outcome).toBe('invalid');
    expect(forged.error?.code).toBe('ERR_DIGEST_MISMATCH');
  });
});

describe('responses: signed with ;req components and content-digest (RFC 9421 §2.4)', () => {
  const COMPONENTS = ['"@status"', '"content-digest"', '"content-type"', '"@method";req', '"@authority";req', '"@path";req'];

  it('botsig signResponse → http-message-signatures verifyMessage(response, request)', async () => {
    const request = { method: 'POST', url: URL_, headers: { 'content-type': 'application/json' } };
    const response = { status: 201, headers: { 'content-type': 'application/json' }, body: RESPONSE_BODY };
    const signed = await signResponse(response, { key: origin.pair.privateJwk, request, components: COMPONENTS });
    expect(signed['content-digest']).toBe(oracleDigest(RESPONSE_BODY));
    const headers = { ...response.headers, ...signed };
    const ok = await httpbis.verifyMessage(
      { keyLookup: lookup(origin), requiredFields: ['@status', 'content-digest', '@method'] },
      { status: 201, headers },
      request,
    );
    expect(ok).toBe(true);
    // Bound to the request: as the answer to a GET it fails there too.
    expect(await httpbis.verifyMessage({ keyLookup: lookup(origin) }, { status: 201, headers }, { ...request, method: 'GET' })).toBe(false);
  });

  it('http-message-signatures signMessage(response, request) → botsig verifyResponse with the body: verified, digest matched; another body: invalid', async () => {
    const request = { method: 'POST', url: URL_, headers: { 'content-type': 'application/json' } };
    const response = { status: 201, headers: { 'content-type': 'application/json', 'content-digest': oracleDigest(RESPONSE_BODY, 'sha-512') } };
    const signed = await httpbis.signMessage(
      {
        key: createSigner(origin.privateKey, 'ed25519', origin.pair.thumbprint),
        name: 'sig1',
        fields: ['@status', 'content-digest', 'content-type', '@method;req', '@authority;req', '@path;req'],
        params: ['created', 'keyid', 'alg', 'expires'],
      },
      response,
      request,
    );
    const headers = signed.headers as Record<string, string>;
    const result = await verifyResponse({ status: 201, headers, body: RESPONSE_BODY }, { request, keys: [origin.pair.publicJwk], requireContentDigest: true });
    expect(result.error).toBeUndefined();
    expect(result.outcome).toBe('verified');
    expect(result.contentDigest).toEqual({ status: 'matched', algorithms: ['sha-512'] });
    const forged = await verifyResponse(
      { status: 201, headers, body: RESPONSE_BODY.replace('accepted', 'refused') },
      { request, keys: [origin.pair.publicJwk] },
    );
    expect(forged.error?.code).toBe('ERR_DIGEST_MISMATCH');
  });
});
