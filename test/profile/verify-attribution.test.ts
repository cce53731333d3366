/**
 * Attribution of key material the verifier did not fetch itself
 * (draft-ietf-webbotauth-httpsig-protocol-01, "Redistributed Key Material", "When No URL Is
 * Available"): a resolver's key is attributed to the covered member's URL only with a valid,
 * unexpired directory response signature for that key at that URL; static keys and unproven
 * resolver keys are identified by their thumbprint.
 */
import { describe, expect, it } from 'vitest';
import { createContentDigest, generateKeyPair, applySignatureHeaders, MemoryNonceStore, signRequest, verifyRequest } from '../../src/index';
import type { Jwk, NonceStore, SigningKey, VerifyingKey, DirectoryResponseProof, ResolvedKey } from '../../src/index';
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
async function proof(
  a: Agent,
  url: string,
  opts: { created?: number; expires?: number | null; body?: string } = {},
): Promise<DirectoryResponseProof & { headers: Record<string, string> }> {
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

/**
 * A request whose Signature-Agent is written as given (forms botsig's signer no longer sends:
 * several members, an inline directory), signed at the RFC 9421 level covering `agentComponent`.
 */
async function signedAt(a: Agent, signatureAgent: string, agentComponent: string) {
  const req = { method: 'GET', url: 'https://origin.example/page', headers: { 'signature-agent': signatureAgent } as Record<string, string> };
  const signed = await signMessage(req, {
    key: a.signing,
    label: 'sig1',
    components: ['@authority', agentComponent],
    params: { created: NOW, expires: NOW + 300, keyid: a.verifying.thumbprint, alg: 'ed25519', tag: 'web-bot-auth' },
  });
  Object.assign(req.headers, signed.headers);
  return req;
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

describe('what a resolver answers, and edges of the proof', () => {
  const warning = (message: string) => ({
    level: 'warning',
    code: 'agent-unproven',
    message: `the resolver's key is identified by its thumbprint: ${message} (draft-ietf-webbotauth-httpsig-protocol-01, Redistributed Key Material)`,
  });

  it('a proof that is not an object is no proof: with an agent named, that is said; without one, nothing is', async () => {
    const a = await agent();
    const req = await request(a, JWKS);
    for (const bad of [null, 'proof', 42]) {
      const named = await verifyWith(req, { key: a.publicJwk, agent: JWKS, proof: bad as unknown as DirectoryResponseProof });
      expect(named.outcome, String(bad)).toBe('verified');
      expect(named.agent).toBe(a.verifying.thumbprint);
      expect(named.diagnostics).toEqual([warning('it names an agent without a directory response signature to prove it')]);
      const bare = await verifyWith(req, { key: a.publicJwk, proof: bad as unknown as DirectoryResponseProof });
      expect(bare.outcome, String(bad)).toBe('verified');
      expect(bare.agent).toBe(a.verifying.thumbprint);
      expect(bare.diagnostics).toEqual([]);
    }
  });

  it('a proof whose URL is not a string, or that cannot be read, proves nothing', async () => {
    const a = await agent();
    const req = await request(a, JWKS);
    const noUrl = await verifyWith(req, { key: a.publicJwk, proof: { ...(await proof(a, JWKS)), url: 42 as unknown as string } });
    expect(noUrl.diagnostics).toEqual([warning('its proof has no URL')]);
    const unreadable = await verifyWith(req, { key: a.publicJwk, proof: { url: JWKS, headers: 5 as unknown as Record<string, string>, body: '' } });
    expect(unreadable.outcome).toBe('verified');
    expect(unreadable.diagnostics).toEqual([warning('its proof cannot be read')]);
  });

  it('a proof signed by another key: the message names the first error found', async () => {
    const a = await agent();
    const other = await agent();
    const r = await verifyWith(await request(a, JWKS), { key: a.publicJwk, proof: await proof(other, JWKS) });
    const message = r.diagnostics.find((d) => d.code === 'agent-unproven')?.message;
    expect(message).toMatch(/^the resolver's key is identified by its thumbprint: no valid directory response signature proves the key \([a-z-]+\) \(draft/);
  });

  it('a proof expiring this very second still proves the key; one that expired a second ago does not', async () => {
    const a = await agent();
    const req = await request(a, JWKS);
    const edge = await verifyWith(req, { key: a.publicJwk, proof: await proof(a, JWKS, { created: NOW - 60, expires: NOW }) });
    expect(edge.agent).toBe(JWKS);
    expect(edge.diagnostics).toEqual([]);
  });

  it("an agent named with a query or fragment is the proof's URL without them; an agent that is no URL is not", async () => {
    const a = await agent();
    const req = await request(a, JWKS);
    const withQuery = await verifyWith(req, { key: a.publicJwk, agent: `${JWKS}?rev=9#top`, proof: await proof(a, JWKS) });
    expect(withQuery.agent).toBe(JWKS);
    const noUrl = await verifyWith(req, { key: a.publicJwk, agent: 'not a url', proof: await proof(a, JWKS) });
    expect(noUrl.agent).toBe(a.verifying.thumbprint);
    expect(noUrl.diagnostics).toEqual([warning('the agent it names is not the URL of its proof')]);
  });

  it('a signature covering the whole Signature-Agent field: a proof for any of its members attributes the key to that member', async () => {
    const a = await agent();
    const FIRST = 'https://first.example/jwks.json';
    const req = await signedAt(a, `sig1="${FIRST}", other="${JWKS}"`, 'signature-agent');
    const second = await verifyWith(req, { key: a.publicJwk, proof: await proof(a, JWKS) });
    expect(second.outcome).toBe('verified');
    expect(second.agent).toBe(JWKS);
    const first = await verifyWith(req, { key: a.publicJwk, proof: await proof(a, FIRST) });
    expect(first.agent).toBe(FIRST);
  });

  it('a member without a URL (an inline directory of the earlier drafts) is named by no proof', async () => {
    const a = await agent();
    const inline = `data:application/http-message-signatures-directory+json;base64,${btoa(JSON.stringify({ keys: [a.publicJwk] }))}`;
    const req = await signedAt(a, `sig1="${inline}";type=directory`, '"signature-agent";key="sig1"');
    const r = await verifyRequest(req, { now, typedSignatureAgent: true, resolveKey: async () => ({ key: a.publicJwk, proof: await proof(a, JWKS) }) });
    expect(r.outcome).toBe('verified');
    expect(r.agent).toBe(a.verifying.thumbprint);
    expect(r.diagnostics.filter((d) => d.code === 'agent-unproven')).toEqual([
      warning('its proof is for a URL that the Signature-Agent member this signature covers does not name'),
    ]);
  });
});

describe('why a proof proves nothing, in its own words', () => {
  const said = (r: Awaited<ReturnType<typeof verifyRequest>>): string | undefined =>
    r.diagnostics
      .find((d) => d.code === 'agent-unproven')
      ?.message.replace(
        /^the resolver's key is identified by its thumbprint: | \(draft-ietf-webbotauth-httpsig-protocol-01, Redistributed Key Material\)$/g,
        '',
      );

  it('the first error the check found is named, after any warning', async () => {
    const a = await agent();
    const other = await agent();
    const foreign = await proof(other, JWKS);
    // Before it, a signature of another tag: a warning (skipped), then the foreign key's error.
    const skipped = await signMessage(
      { status: 200, headers: { 'content-digest': foreign.headers['content-digest']! } },
      {
        key: a.signing,
        label: 'skipped',
        components: ['"@authority";req', 'content-digest'],
        params: { created: NOW - 60, expires: NOW + 600, keyid: a.verifying.thumbprint, tag: 'something-else' },
        request: { method: 'GET', url: JWKS },
      },
    );
    const headers = {
      'content-digest': foreign.headers['content-digest']!,
      'signature-input': `${skipped.headers['signature-input']}, ${foreign.headers['signature-input']}`,
      signature: `${skipped.headers.signature}, ${foreign.headers.signature}`,
    };
    const r = await verifyWith(await request(a, JWKS), { key: a.publicJwk, proof: { url: JWKS, headers, body: foreign.body } });
    expect(r.outcome).toBe('verified');
    expect(said(r)).toBe('no valid directory response signature proves the key (response-signature-unknown-key)');
  });

  it('a check that found nothing to say names nothing', async () => {
    const a = await agent();
    const good = await proof(a, JWKS);
    const headers = { 'content-digest': good.headers['content-digest']!, 'signature-input': '', signature: '' };
    const r = await verifyWith(await request(a, JWKS), { key: a.publicJwk, proof: { url: JWKS, headers, body: good.body } });
    expect(r.outcome).toBe('verified');
    expect(said(r)).toBe('no valid directory response signature proves the key');
  });
});

describe("a resolver key's nonce is scoped by the signature's keyid, which the attribution does not move", () => {
  // [seconds after NOW, whether the resolver answers with the proof] for the first use and the replay.
  const cases = [
    {
      name: 'recorded while the proof held, replayed after it expired',
      uses: [
        [0, true],
        [150, true],
      ],
    },
    {
      name: 'recorded without a proof, replayed with one',
      uses: [
        [0, false],
        [50, true],
      ],
    },
  ] as const;
  for (const { name, uses } of cases) {
    it(name, async () => {
      const a = await agent();
      const req = await request(a, JWKS);
      const p = await proof(a, JWKS, { created: NOW - 60, expires: NOW + 100 });
      let t = NOW;
      let withProof = false;
      const options = (store = new MemoryNonceStore()) => ({
        now: () => t * 1000,
        nonce: { policy: 'required' as const, store },
        resolveKey: (): ResolvedKey => (withProof ? { key: a.publicJwk, proof: p } : { key: a.publicJwk }),
      });
      const shared = options();
      const agents: (string | undefined)[] = [];
      for (const [after, proven] of uses) {
        [t, withProof] = [NOW + after, proven];
        // The agent each use is attributed to on its own (a store of its own): they differ.
        agents.push((await verifyRequest(req, options())).agent);
      }
      expect(agents[0]).not.toBe(agents[1]);
      expect(agents).toContain(JWKS);
      [t, withProof] = [NOW + uses[0][0], uses[0][1]];
      expect((await verifyRequest(req, shared)).outcome).toBe('verified');
      [t, withProof] = [NOW + uses[1][0], uses[1][1]];
      expect((await verifyRequest(req, shared)).signatures[0]!.error?.code).toBe('ERR_NONCE_REPLAYED');
    });
  }
});

describe('the identity a nonce is recorded under', () => {
  /** A store that records the scope of every check and holds nothing. */
  function recording(): { store: NonceStore; scopes: string[] } {
    const scopes: string[] = [];
    return { scopes, store: { checkAndRecord: (scope: string) => (scopes.push(scope), true) } };
  }

  it('a directory key: the agent (the covered member URL); a resolver key with a proof: the keyid, not the URL it is attributed to', async () => {
    const a = await agent();
    const req = await request(a, JWKS);
    const jwks = JSON.stringify({ keys: [a.publicJwk] });
    const { DirectoryClient } = await import('../../src/directory');
    const directory = new DirectoryClient({
      now,
      fetch: async () => new Response(jwks, { status: 200, headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=600' } }),
    });
    const fromDirectory = recording();
    const viaDirectory = await verifyRequest(req, { now, directory, nonce: { policy: 'required', store: fromDirectory.store } });
    expect([viaDirectory.outcome, viaDirectory.agent, fromDirectory.scopes]).toEqual(['verified', JWKS, [JWKS]]);
    const fromResolver = recording();
    const p = await proof(a, JWKS);
    const viaResolver = await verifyRequest(req, {
      now,
      resolveKey: () => ({ key: a.publicJwk, proof: p }),
      nonce: { policy: 'required', store: fromResolver.store },
    });
    expect([viaResolver.outcome, viaResolver.agent, fromResolver.scopes]).toEqual(['verified', JWKS, [a.verifying.thumbprint]]);
  });
});
