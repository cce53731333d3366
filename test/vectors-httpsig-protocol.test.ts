/**
 * vectors/draft-ietf-webbotauth-httpsig-protocol-01/vectors.json through the public API:
 * the draft's appendix vectors (both stored versions), its signed directory response and
 * Directory Format example, the constructed ChatGPT- and Google-form requests, and one
 * negative vector per discovery rule. Directories are served by an injected fetch (no
 * network): what was fetched is recorded and checked.
 */
import { describe, expect, it } from 'vitest';
import { verifyRequest, MemoryNonceStore } from '../src/index';
import type { Jwk, VerifyRequestOptions } from '../src/index';
import { DirectoryClient, type FetchLike, parseDirectorySync, verifyDirectoryResponse } from '../src/directory';
import { importSigningKey, importVerifyingKey, createSignatureBase, signMessage, parseSignatureInput, toHttpMessage } from '../src/httpsig';
import file from '../vectors/draft-ietf-webbotauth-httpsig-protocol-01/vectors.json';
import rfc9421 from '../vectors/rfc9421.json';

interface Req {
  method: string;
  url: string;
  headers: Record<string, string>;
}
interface Served {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}
interface Expect {
  outcome: string;
  agent?: string;
  code?: string;
  compat?: string;
  member?: string;
  diagnostics?: string[];
  now?: number;
  fetched?: string[];
  options?: Partial<VerifyRequestOptions>;
  withOptions?: { options: Partial<VerifyRequestOptions>; outcome: string; agent?: string };
}
interface Vector {
  id: string;
  key: string;
  alg?: string;
  deterministic?: boolean;
  request: Req;
  signatureBase: string[];
  directory?: Record<string, Served>;
  expect: Expect;
}

const WELL_KNOWN = 'https://signature-agent.test/.well-known/http-message-signatures-directory';
const DIRECTORY_TYPE = 'application/http-message-signatures-directory+json';
const draft = file.draft as unknown as Vector[];
const constructed = file.constructed as unknown as Vector[];
const negative = file.negative as unknown as Vector[];
const signedResponse = file.signedDirectoryResponse;

function privateKey(id: string): Jwk {
  if (id === 'rfc8037-ed25519') return file.keys['rfc8037-ed25519'] as Jwk;
  const k = rfc9421.keys.find((x) => x.id === id);
  if (k === undefined) throw new Error(`no key ${id}`);
  return k.jwk as Jwk;
}

function publicOf(jwk: Jwk): Jwk {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, kid: _kid, ...pub } = jwk as Record<string, unknown>;
  return pub as Jwk;
}

/** A fetch serving `routes` exactly (anything else 404), recording every URL asked. */
function served(routes: Record<string, Served>): { fetch: FetchLike; urls: string[] } {
  const urls: string[] = [];
  const fetch: FetchLike = (url) => {
    urls.push(url);
    const r = routes[url];
    if (r === undefined) return Promise.resolve(new Response('not found', { status: 404 }));
    return Promise.resolve(new Response(r.body ?? null, { status: r.status, headers: { 'cache-control': 'max-age=300', ...(r.headers ?? {}) } }));
  };
  return { fetch, urls };
}

function client(fetch: FetchLike, nowS: number): DirectoryClient {
  return new DirectoryClient({ fetch, now: () => nowS * 1000, allow: { hosts: ['signature-agent.test', 'chatgpt.com', 'agent.bot.goog', 'keys.example'] } });
}

async function verify(v: Vector, routes: Record<string, Served>, nowS: number, extra: Partial<VerifyRequestOptions> = {}) {
  const { fetch, urls } = served(routes);
  const result = await verifyRequest(v.request, {
    directory: client(fetch, nowS),
    now: () => nowS * 1000,
    nonce: { store: new MemoryNonceStore() },
    allowTestKeys: true,
    ...extra,
  });
  return { result, urls };
}

/** The draft's directory: its signed directory response for the Ed25519 key; the RSA-PSS key in a second (unsigned) set. */
function draftDirectory(v: Vector): Record<string, Served> {
  if (v.alg === 'ed25519') {
    return {
      [WELL_KNOWN]: { status: 200, headers: { 'content-type': DIRECTORY_TYPE, ...signedResponse.response.headers }, body: signedResponse.response.body },
    };
  }
  const rsa = publicOf(privateKey('test-key-rsa-pss'));
  return { [WELL_KNOWN]: { status: 200, headers: { 'content-type': DIRECTORY_TYPE }, body: JSON.stringify({ keys: [rsa] }) } };
}

describe('draft -01 appendix vectors (both stored versions), verified as documented', () => {
  const o = file.verifyOptions;
  for (const v of draft) {
    it(`${v.id}: the printed base is the base botsig builds`, () => {
      const message = toHttpMessage(v.request);
      const [input] = parseSignatureInput(v.request.headers['signature-input']!).values();
      expect(createSignatureBase(message, input!)).toBe(v.signatureBase.join('\n'));
    });

    it(`${v.id}: verified through discovery at the fixed clock, with maxValiditySeconds and allowTestKeys (verifyOptions)`, async () => {
      const { result, urls } = await verify(v, draftDirectory(v), o.now, { maxValiditySeconds: o.maxValiditySeconds });
      expect(result.outcome, JSON.stringify(result.signatures[0]?.error)).toBe('verified');
      expect(result.agent).toBe(v.expect.agent);
      expect(result.signatures[0]!.signatureAgent?.compat).toBe(v.expect.compat);
      if (v.expect.member !== undefined) expect(result.signatures[0]!.signatureAgent?.key).toBe(v.expect.member);
      expect(urls).toEqual([WELL_KNOWN]);
      // Without the documented options: the public example key is refused, and the dictionary vectors' far-future expires too.
      const noTestKeys = await verify(v, draftDirectory(v), o.now, { allowTestKeys: false, maxValiditySeconds: o.maxValiditySeconds });
      expect(noTestKeys.result.signatures[0]?.error?.code).toBe('ERR_KEY_TEST_KEY');
      const defaultValidity = await verify(v, draftDirectory(v), o.now);
      expect(defaultValidity.result.outcome).toBe(v.id.includes('legacy') ? 'verified' : 'invalid');
      if (!v.id.includes('legacy')) expect(defaultValidity.result.signatures[0]?.error?.code).toBe('ERR_VALIDITY_TOO_LONG');
    });

    if (v.deterministic === true) {
      it(`${v.id}: reproduced byte for byte by signing the same input`, async () => {
        const [input] = parseSignatureInput(v.request.headers['signature-input']!).values();
        const sk = await importSigningKey(privateKey(v.key));
        const headers = { 'signature-agent': v.request.headers['signature-agent']! };
        const out = await signMessage(
          { method: v.request.method, url: v.request.url, headers },
          { key: sk, label: 'sig2', components: input!.components, params: Object.fromEntries([...input!.params].map(([k, item]) => [k, item])) },
        );
        expect(out.headers.signature).toBe(v.request.headers.signature);
      });
    }
  }

  it('the two stored versions differ only in the dictionary member key (agent2 or sig2) and its signature', () => {
    const agent2 = draft.filter((v) => v.id.endsWith('-agent2'));
    const sig2 = draft.filter((v) => v.id.endsWith('-sig2'));
    expect(agent2).toHaveLength(2);
    expect(sig2).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      expect(agent2[i]!.request.headers['signature-input']!.replace('"agent2"', '"sig2"')).toBe(sig2[i]!.request.headers['signature-input']);
    }
  });
});

describe('draft -01 signed directory response', () => {
  it('proves its key at the authority it was fetched from; its base is the printed one', async () => {
    const key = await importVerifyingKey(publicOf(privateKey('test-key-ed25519')));
    const check = await verifyDirectoryResponse(
      { url: signedResponse.request.url, status: 200, headers: signedResponse.response.headers, body: signedResponse.response.body },
      { keys: new Map([[key.thumbprint, key]]), now: () => file.verifyOptions.now * 1000 },
    );
    expect([...check.proofs.keys()]).toEqual([signedResponse.expect.proves]);
    // Re-served under another authority, it proves nothing.
    const moved = await verifyDirectoryResponse(
      {
        url: 'https://copy.example/.well-known/http-message-signatures-directory',
        status: 200,
        headers: signedResponse.response.headers,
        body: signedResponse.response.body,
      },
      { keys: new Map([[key.thumbprint, key]]), now: () => file.verifyOptions.now * 1000 },
    );
    expect(moved.proofs.size).toBe(0);
  });

  it('the draft Ed25519 vectors resolve with that key proven (signed)', async () => {
    const v = draft.find((x) => x.id === 'ed25519-dictionary-sig2')!;
    const { fetch } = served(draftDirectory(v));
    const r = await client(fetch, file.verifyOptions.now).resolve({ url: 'https://signature-agent.test', type: 'directory', scheme: 'https', index: 0 });
    expect(r.proof).toBe('signed');
  });

  for (const d of file.directoryResponses) {
    it(`${d.id}`, async () => {
      const key = await importVerifyingKey(publicOf(privateKey('test-key-ed25519')));
      const check = await verifyDirectoryResponse(
        { url: d.response.url, status: 200, headers: d.response.headers, body: d.response.body },
        { keys: new Map([[key.thumbprint, key]]), now: () => d.now * 1000, clockSkewSeconds: 3600 },
      );
      if (d.expect.proves === null) {
        expect(check.proofs.size).toBe(0);
        expect(check.diagnostics.map((x) => x.code)).toEqual(d.expect.diagnostics);
      } else {
        expect([...check.proofs.keys()]).toEqual([d.expect.proves]);
        // Redistributed (a resolver's key): without expires the request is not attributed to the URL.
        const req = negative.find((x) => x.id === 'member-with-parameters')!.request;
        const r = await verifyRequest(req, {
          now: () => d.now * 1000,
          allowTestKeys: true,
          typedSignatureAgent: true,
          resolveKey: () => ({ key, proof: { url: d.response.url, headers: d.response.headers, body: d.response.body } }),
        });
        expect(r.outcome).toBe('verified');
        expect(r.agent).toBe(key.thumbprint);
        expect(r.diagnostics.find((x) => x.code === 'agent-unproven')?.message).toMatch(/no expires/);
      }
    });
  }

  it("the Directory Format example: its kid is not the key's thumbprint, so the key is dropped at the well-known URI and kept elsewhere", () => {
    const ex = file.directoryFormatExample;
    const atWellKnown = parseDirectorySync(ex.body, { url: WELL_KNOWN });
    expect(atWellKnown.keys).toHaveLength(ex.expect.atWellKnown.keys);
    expect(atWellKnown.diagnostics.map((d) => d.code)).toContain(ex.expect.atWellKnown.diagnostic);
    const elsewhere = parseDirectorySync(ex.body, { url: 'https://signature-agent.test/jwks.json' });
    expect(elsewhere.keys).toHaveLength(1);
    expect(elsewhere.keys[0]!.kid).toBe(ex.expect.atOtherUrl.kid);
    expect(elsewhere.keys[0]!.thumbprint).toBe('poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U');
  });
});

function checkVector(v: Vector): void {
  it(`${v.id}: the printed base is the base botsig builds, and signing again gives the printed signature`, async () => {
    const [input] = parseSignatureInput(v.request.headers['signature-input']!).values();
    expect(createSignatureBase(toHttpMessage(v.request), input!)).toBe(v.signatureBase.join('\n'));
    const sk = await importSigningKey(privateKey(v.key));
    const out = await signMessage(
      { method: v.request.method, url: v.request.url, headers: { 'signature-agent': v.request.headers['signature-agent']! } },
      { key: sk, label: input!.label, components: input!.components, params: Object.fromEntries(input!.params) },
    );
    expect(out.headers.signature).toBe(v.request.headers.signature);
  });

  it(`${v.id}: ${v.expect.outcome}${v.expect.code === undefined ? '' : ` (${v.expect.code})`}`, async () => {
    const e = v.expect;
    const { result, urls } = await verify(v, v.directory ?? {}, e.now!, e.options ?? {});
    expect(result.outcome, JSON.stringify(result.signatures[0]?.error)).toBe(e.outcome);
    if (e.agent !== undefined) expect(result.agent).toBe(e.agent);
    if (e.code !== undefined) expect(result.signatures[0]?.error?.code).toBe(e.code);
    if (e.compat !== undefined) expect(result.signatures[0]?.signatureAgent?.compat).toBe(e.compat);
    for (const d of e.diagnostics ?? []) expect(result.diagnostics.map((x) => x.code)).toContain(d);
    if (e.fetched !== undefined) expect(urls).toEqual(e.fetched);
    if (e.withOptions !== undefined) {
      const again = await verify(v, v.directory ?? {}, e.now!, e.withOptions.options);
      expect(again.result.outcome).toBe(e.withOptions.outcome);
      if (e.withOptions.agent !== undefined) expect(again.result.agent).toBe(e.withOptions.agent);
    }
  });
}

describe('constructed vectors: the forms deployed agents send verify with the defaults', () => {
  for (const v of constructed) checkVector(v);

  it('the bare origin and the well-known URL sent as is are one agent', () => {
    const ids = ['chatgpt-legacy-bare-origin', 'well-known-url-as-sent'];
    const agents = constructed.filter((v) => ids.includes(v.id)).map((v) => v.expect.agent);
    expect(new Set(agents).size).toBe(1);
  });
});

describe('negative vectors: one per discovery rule', () => {
  for (const v of negative) checkVector(v);
});
