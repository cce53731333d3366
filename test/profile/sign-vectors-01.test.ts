/**
 * signRequest against the appendix vectors of draft-ietf-webbotauth-httpsig-protocol-01
 * (vectors/draft-ietf-webbotauth-httpsig-protocol-01/, transcribed there with their source).
 *
 * Version B of the draft (commit be12662) keys the `Signature-Agent` member to the signature's
 * label (`sig2` under `sig2`), as its text requires: botsig's signer reproduces those vectors,
 * byte for byte for Ed25519 (deterministic), field for field for RSA-PSS (randomised: its
 * signature is checked by verifying it). Version A (commit 5a71ee1) puts member `agent2` under
 * label `sig2`, against the label-keying MUST; botsig never signs that shape. The legacy
 * sf-string vectors are the earlier drafts' form, which signers MUST NOT send any more.
 *
 * The vectors' member value is the bare origin `https://signature-agent.test`; botsig sends an
 * origin as its well-known URL unless told that the value is the JWK Set URL itself
 * (`type: 'jwks_uri'`), which is how these vectors are reproduced.
 */
import { describe, expect, it } from 'vitest';
import { signRequest, verifyRequest } from '../../src/index';
import type { Jwk } from '../../src/index';
import { importVerifyingKey } from '../../src/httpsig';
import file from '../../vectors/draft-ietf-webbotauth-httpsig-protocol-01/vectors.json';
import rfc9421 from '../../vectors/rfc9421.json';

interface DraftVector {
  readonly id: string;
  readonly key: string;
  readonly alg: 'ed25519' | 'rsa-pss-sha512';
  readonly deterministic: boolean;
  readonly request: { readonly method: string; readonly url: string; readonly headers: Record<string, string> };
}

const vectors = (file as unknown as { draft: DraftVector[] }).draft;
const byId = (id: string): DraftVector => {
  const v = vectors.find((x) => x.id === id);
  if (v === undefined) throw new Error(`no vector ${id}`);
  return v;
};

function privateJwk(id: string): Jwk {
  const key = (rfc9421 as unknown as { keys: Array<{ id: string; jwk: Jwk }> }).keys.find((k) => k.id === id);
  if (key === undefined) throw new Error(`no key ${id}`);
  return key.jwk;
}

/** The parameters of the vector's Signature-Input, as signRequest options. */
function paramsOf(v: DraftVector): { created: number; expires: number; nonce: string } {
  const input = v.request.headers['signature-input']!;
  const created = Number(/;created=(\d+)/.exec(input)![1]);
  const expires = Number(/;expires=(\d+)/.exec(input)![1]);
  const nonce = /;nonce="([^"]+)"/.exec(input)![1]!;
  return { created, expires, nonce };
}

async function signLike(v: DraftVector): Promise<Awaited<ReturnType<typeof signRequest>>> {
  const { method, url } = v.request;
  return signRequest(
    { method, url },
    {
      key: privateJwk(v.key),
      alg: v.alg,
      label: 'sig2',
      signatureAgent: { url: 'https://signature-agent.test', type: 'jwks_uri' },
      ...paramsOf(v),
      allowLongValidity: true,
    },
  );
}

describe('draft -01 appendix vectors, version B (member keyed to the label), signed by signRequest', () => {
  it('Ed25519 (ed25519-dictionary-sig2): Signature-Agent, Signature-Input and Signature byte for byte', async () => {
    const v = byId('ed25519-dictionary-sig2');
    const out = await signLike(v);
    expect(out['signature-agent']).toBe(v.request.headers['signature-agent']);
    expect(out['signature-input']).toBe(v.request.headers['signature-input']);
    expect(out.signature).toBe(v.request.headers.signature);
  });

  it('RSA-PSS (rsa-pss-dictionary-sig2): the same fields but the randomised signature, which verifies', async () => {
    const v = byId('rsa-pss-dictionary-sig2');
    const out = await signLike(v);
    expect(out['signature-agent']).toBe(v.request.headers['signature-agent']);
    expect(out['signature-input']).toBe(v.request.headers['signature-input']);
    expect(out.signature).not.toBe(v.request.headers.signature);
    const { created } = paramsOf(v);
    const result = await verifyRequest(
      { ...v.request, headers: { ...out } },
      {
        keys: [await importVerifyingKey(privateJwk(v.key), { alg: v.alg })],
        now: () => created * 1000,
        maxValiditySeconds: 3_153_600_000,
        allowTestKeys: true,
      },
    );
    expect(result.outcome, JSON.stringify(result.error)).toBe('verified');
  });
});

describe('the vectors botsig does not sign', () => {
  it('version A (member agent2 under label sig2): botsig keys its member to its label, so the same options give version B', async () => {
    const a = byId('ed25519-dictionary-agent2');
    const b = byId('ed25519-dictionary-sig2');
    const out = await signLike(a);
    expect(out['signature-agent']).toBe('sig2="https://signature-agent.test"');
    expect(out['signature-agent']).not.toBe(a.request.headers['signature-agent']);
    expect(out.signature).toBe(b.request.headers.signature);
  });

  it('legacy sf-string vectors: the signer sends the dictionary form only, and the whole field is never covered', async () => {
    const v = byId('ed25519-legacy-string');
    const out = await signLike(v);
    expect(out['signature-agent']).toMatch(/^sig2="/);
    expect(out['signature-input']).toContain('"signature-agent";key="sig2"');
    expect(out['signature-input']).not.toBe(v.request.headers['signature-input']);
  });
});
