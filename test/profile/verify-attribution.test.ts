/**
 * Attribution of key material the verifier did not fetch itself
 * (draft-ietf-webbotauth-httpsig-protocol-01, "Redistributed Key Material", "When No URL Is
 * Available"): a resolver's key is attributed to the covered member's URL only with a valid,
 * unexpired directory response signature for that key at that URL; static keys and unproven
 * resolver keys are identified by their thumbprint.
 */
import { describe, expect, it } from 'vitest';
import { createContentDigest, generateKeyPair, applySignatureHeaders, signRequest, verifyRequest } from '../../src/index';
import type { Jwk, SigningKey, VerifyingKey, DirectoryResponseProof, ResolvedKey } from '../../src/index';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';

const NOW = 1_767_225_600;
const now = (): number => NOW * 1000;
const JWKS = 'https://keys.example/bots/jwks.json';
const WELL_KNOWN = 'https://agent.example/.well-known/http-message-signatures-directory';

interface Agent {
  signing: SigningKey;
  verifying: VerifyingKey;
  privateJwk: Jwk;
  publicJwk: Jwk;
}

async function agent(): Promise<Agent> {
  const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
  return { signing: await importSigningKey(privateJwk), verifying: await importVerifyingKey(publicJwk), privateJwk, publicJwk };
}

async function request(a: Agent, signatureAgent: string | { url: string; type: 'directory' }) {
  const req = { method: 'GET', url: 'https://origin.example/page', headers: {} as Record<string, string> };
  applySignatureHeaders(req.headers, await signRequest(req, { key: a.privateJwk, signatureAgent, now }));
  return req;
}

/** The directory response a redistributor fetched from `url`, signed by the key it lists. */
async function proof(a: Agent, url: string, opts: { created?: number; expires?: number | null; body?: string } = {}): Promise<DirectoryResponseProof> {
  const body = JSON.stringify({ keys: [{ ...a.publicJwk, kid: a.verifying.thumbprint }] });
  const headers: Record<string, string> = { 'content-digest': await createContentDigest(body, ['sha-256']) };
  const params: Record<string, string | number> = { created: opts.created ?? NOW - 3600 };
  if (opts.expires !== null) params.expires = opts.expires ?? NOW + 86_400;
  params.keyid = a.verifying.thumbprint;
  params.tag = 'http-message-signatures-directory';
  const out = await signMessage(
    { status: 200, headers },
    { key: a.signing, label: 'binding', components: ['"@authority";req', 'content-digest'], params, request: { method: 'GET', url } },
  );
  return { url, headers: { ...headers, ...out.headers }, body: opts.body ?? body };
}

async function verifyWith(req: Parameters<typeof verifyRequest>[0], answer: ResolvedKey) {
  return verifyRequest(req, { now, resolveKey: () => answer });
}

const unproven = (r: Awaited<ReturnType<typeof verifyRequest>>): string | undefined => r.diagnostics.find((d) => d.code === 'agent-unproven')?.message;

describe('a resolver key with a directory response proof is attributed to the covered URL', () => {
  it('a valid, unexpired proof for the member URL: the agent is that URL (normalised, query dropped)', async () => {
    const a = await agent();
    const req = await request(a, `${JWKS}?rev=3`);
    const r = await verifyWith(req, { key: a.publicJwk, proof: await proof(a, `${JWKS}?rev=3`) });
    expect(r.outcome).toBe('verified');
    expect(r.agent).toBe(JWKS);
    expect(r.signatures[0]!.keySource).toBe('resolver');
    expect(unproven(r)).toBeUndefined();
    // With agent given, it must be that URL.
    const named = await verifyWith(req, { key: a.publicJwk, agent: JWKS, proof: await proof(a, `${JWKS}?rev=3`) });
    expect(named.agent).toBe(JWKS);
  });

  it('a bare origin member (deployed dialect) is attributed with a proof from its well-known URL', async () => {
    const a = await agent();
    const req = await request(a, { url: 'https://agent.example', type: 'directory' });
    const r = await verifyWith(req, { key: a.verifying, proof: await proof(a, WELL_KNOWN) });
    expect(r.outcome).toBe('verified');
    expect(r.agent).toBe(WELL_KNOWN);
  });
});

describe('without a valid proof the agent is the thumbprint, and a diagnostic says why', () => {
  it.each([
    ['no proof, an agent named', async (a: Agent) => ({ key: a.publicJwk, agent: JWKS }), /without a directory response signature/],
    ['a proof from another URL', async (a: Agent) => ({ key: a.publicJwk, proof: await proof(a, 'https://keys.example/other.json') }), /does not name/],
    [
      'an agent that is not the proof URL',
      async (a: Agent) => ({ key: a.publicJwk, agent: 'https://else.example/', proof: await proof(a, JWKS) }),
      /not the URL of its proof/,
    ],
    [
      'an expired proof',
      async (a: Agent) => ({ key: a.publicJwk, proof: await proof(a, JWKS, { created: NOW - 7200, expires: NOW - 1 }) }),
      /response-signature-expired|expired/,
    ],
    [
      'a proof created in the future (one second)',
      async (a: Agent) => ({ key: a.publicJwk, proof: await proof(a, JWKS, { created: NOW + 1 }) }),
      /response-signature-created-future/,
    ],
    ['a proof without expires', async (a: Agent) => ({ key: a.publicJwk, proof: await proof(a, JWKS, { expires: null }) }), /no expires/],
    [
      'a proof whose body was swapped',
      async (a: Agent) => ({ key: a.publicJwk, proof: await proof(a, JWKS, { body: '{"keys":[]}' }) }),
      /content-digest-mismatch/,
    ],
    ['a proof that is not a URL', async (a: Agent) => ({ key: a.publicJwk, proof: { url: 'not a url', headers: {}, body: '' } }), /not an absolute URL/],
  ] as const)('%s', async (_name, make, why) => {
    const a = await agent();
    const req = await request(a, JWKS);
    const r = await verifyWith(req, await make(a));
    expect(r.outcome, 'the key still verifies the signature').toBe('verified');
    expect(r.agent).toBe(a.verifying.thumbprint);
    expect(unproven(r)).toMatch(why);
  });

  it('a proof signed by another key proves nothing for this one', async () => {
    const a = await agent();
    const other = await agent();
    const req = await request(a, JWKS);
    const foreign = await proof(other, JWKS);
    const r = await verifyWith(req, { key: a.publicJwk, proof: foreign });
    expect(r.agent).toBe(a.verifying.thumbprint);
    expect(unproven(r)).toMatch(/no valid directory response signature/);
  });

  it('static keys are identified by their thumbprint, whatever the request claims', async () => {
    const a = await agent();
    const req = await request(a, JWKS);
    const r = await verifyRequest(req, { now, keys: [a.publicJwk] });
    expect(r.outcome).toBe('verified');
    expect(r.agent).toBe(a.verifying.thumbprint);
    expect(r.signatures[0]!.keySource).toBe('static');
  });
});
