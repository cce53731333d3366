/**
 * Delegation through the DirectoryClient (SPEC 5.5, 4.4): directories with x5c,
 * AIA and x5u chains served on loopback (http and TLS), inline `data:`
 * directories, and end-to-end verification with verifyRequest.
 *
 * NETWORK RULE: every fetch goes through `loopbackOnly`, which records the URL
 * and refuses (without sending anything) any host other than 127.0.0.1, so a
 * defect in the URL guard can never reach another address.
 */
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySignatureHeaders, getCryptoProvider, setCryptoProvider, signRequest, verifyRequest, MemoryNonceStore } from '../../src/index';
import type { Jwk } from '../../src/index';
import { DirectoryClient, certificateDelegation, createDirectoryHandler } from '../../src/directory';
import type { CertificateDelegation, DirectoryClientKey, DirectoryClientOptions, FetchLike } from '../../src/directory';
import { importSigningKey, signMessage } from '../../src/httpsig';
import { createGuardedFetch } from '../../src/node/guarded-fetch';
import { agentKey, days, intermediateCa, KU, leafFor, mint, pemBundle, privateKeyPem, rootCa, withX5c, type AgentKey, type Cert } from '../helpers/certs';
import { closeAllLoopbackServers, startFetchHandlerServer, startLoopbackServer, type LoopbackServer } from '../helpers/loopback';
import { DIRECTORY_TYPE, member, send, TestClock, WELL_KNOWN } from './client-fixtures';
import { diagnosticCodes as codes } from '../helpers/errors';
import { countingProvider } from '../crypto/helpers';

// ---------------------------------------------------------------------------
// Network guard and servers

interface Recorder extends FetchLike {
  readonly urls: string[];
}

/** Records every URL and refuses anything but 127.0.0.1 before a packet is sent. */
function loopbackOnly(inner: FetchLike = (input, init) => globalThis.fetch(input, init)): Recorder {
  const urls: string[] = [];
  const f = (input: string, init: RequestInit): Promise<Response> => {
    urls.push(input);
    if (new URL(input).hostname !== '127.0.0.1') return Promise.reject(new Error(`test network rule: refused ${input}`));
    return inner(input, init);
  };
  return Object.assign(f, { urls });
}

interface Route {
  readonly status?: number;
  readonly type: string;
  readonly body: string | Uint8Array;
  readonly cacheControl?: string;
}

/** One loopback server whose routes the tests swap. */
function routed(clock: TestClock, routes: Map<string, Route>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const route = routes.get((req.url ?? '/').split('?')[0]!);
    if (route === undefined) return send(res, clock, 404, { 'content-type': 'text/plain' }, 'not found');
    send(res, clock, route.status ?? 200, { 'content-type': route.type, 'cache-control': route.cacheControl ?? 'max-age=3600' }, route.body);
  };
}

const clock = new TestClock();
const routes = new Map<string, Route>();
let http: LoopbackServer;

interface Pki {
  root: Cert;
  inter: Cert;
  key: AgentKey;
  leaf: Cert;
}
let pki: Pki;

beforeAll(async () => {
  http = await startLoopbackServer(routed(clock, routes));
  const root = await rootCa();
  const inter = await intermediateCa(root);
  const key = await agentKey('ed25519');
  const leaf = await leafFor(key, inter, { sanUri: 'https://sub.example.com' });
  pki = { root, inter, key, leaf };
});
afterAll(() => closeAllLoopbackServers());

function serveDirectory(...keys: Jwk[]): void {
  routes.set(WELL_KNOWN, { type: DIRECTORY_TYPE, body: JSON.stringify({ keys }) });
}

function client(options: DirectoryClientOptions = {}, fetch: Recorder = loopbackOnly()): DirectoryClient {
  return new DirectoryClient({ now: clock.now, allow: { http: true, loopback: true }, fetch, ...options });
}

const delegation = (): CertificateDelegation => certificateDelegation({ trustAnchors: [pki.root.pem] });

function onlyKey(keys: readonly DirectoryClientKey[]): DirectoryClientKey {
  expect(keys).toHaveLength(1);
  return keys[0]!;
}

function dataUrl(...keys: Jwk[]): string {
  return `data:${DIRECTORY_TYPE};base64,${Buffer.from(JSON.stringify({ keys })).toString('base64')}`;
}

// ---------------------------------------------------------------------------

describe('keys of a fetched directory with an x5c chain (SPEC 5.5 rule 1)', () => {
  it('are marked delegated, with the chain; the agent stays the directory URL', async () => {
    serveDirectory(withX5c(pki.key, pki.leaf, pki.inter));
    const r = await client({ delegation: delegation() }).resolve(member(http.origin));
    expect(r.url).toBe(`${http.origin}${WELL_KNOWN}`);
    const k = onlyKey(r.keys);
    expect(k.proof).toBe('delegated');
    expect(k.chain).toEqual(['CN=sub.example.com', 'O=botsig tests,CN=Test Intermediate CA', 'O=botsig tests,CN=Test Root CA']);
    expect(k.delegation).toMatchObject({ via: 'x5c', anchor: 'O=botsig tests,CN=Test Root CA', subject: 'https://sub.example.com/', subjectSource: 'san-uri' });
    expect(k.agent).toBeUndefined();
    // SPEC 5.4 summary counts response signatures only.
    expect(r.proof).toBe('unsigned');
  });

  it('published by createDirectoryHandler (x5c on the private JWK) and signed (SPEC 5.4): delegated and signed, with requireProof and requireDelegation', async () => {
    const handler = createDirectoryHandler({ keys: [{ ...pki.key.privateJwk, x5c: [pki.leaf.b64, pki.inter.b64] }], now: clock.now });
    const srv = await startFetchHandlerServer(handler);
    const r = await client({ delegation: delegation(), requireProof: true, requireDelegation: true }).resolve(member(srv.origin));
    const k = onlyKey(r.keys);
    expect(k.proof).toBe('delegated');
    expect(k.signedAt).toBeTypeOf('number');
    expect(r.proof).toBe('signed');
  });

  it('without delegation configured, x5c is ignored and the key is an ordinary one', async () => {
    serveDirectory(withX5c(pki.key, pki.leaf, pki.inter));
    const k = onlyKey((await client().resolve(member(http.origin))).keys);
    expect(k.proof).toBe('unsigned');
    expect(k.delegation).toBeUndefined();
  });

  it('a failing chain keeps the key with a warning, or drops it with requireDelegation', async () => {
    const expired = await leafFor(pki.key, pki.inter, { notBefore: new Date(clock.t - days(10)), notAfter: new Date(clock.t - days(1)) });
    serveDirectory(withX5c(pki.key, expired, pki.inter));
    const lax = await client({ delegation: delegation() }).resolve(member(http.origin));
    expect(onlyKey(lax.keys).proof).toBe('unsigned');
    const warning = lax.diagnostics.find((d) => d.code === 'delegation-expired');
    expect(warning).toMatchObject({ level: 'warning', at: 'keys[0]' });
    expect(warning?.message).toMatch(/certificate 0 \(the leaf\) of the chain expired.*kept with its directory proof/);

    const strict = await client({ delegation: delegation(), requireDelegation: true }).resolve(member(http.origin));
    expect(strict.keys).toEqual([]);
    expect(strict.diagnostics.find((d) => d.code === 'delegation-expired')).toMatchObject({ level: 'error' });
  });

  it('requireDelegation also leaves out keys that carry no chain', async () => {
    const plain = await agentKey('ed25519');
    serveDirectory(plain.publicJwk, withX5c(pki.key, pki.leaf, pki.inter));
    const r = await client({ delegation: delegation(), requireDelegation: true }).resolve(member(http.origin));
    expect(onlyKey(r.keys).thumbprint).toBe(pki.key.thumbprint);
    expect(r.diagnostics.find((d) => d.code === 'delegation-no-chain')).toMatchObject({ level: 'error', at: 'keys[0]' });
  });

  it('when the chain expires while the directory is cached, the key falls back (or goes, with requireDelegation)', async () => {
    const c = new TestClock();
    const short = await leafFor(pki.key, pki.inter, { notBefore: new Date(c.t - days(1)), notAfter: new Date(c.t + 600_000) });
    serveDirectory(withX5c(pki.key, short, pki.inter));
    const lax = new DirectoryClient({ now: c.now, allow: { http: true, loopback: true }, fetch: loopbackOnly(), delegation: delegation() });
    const strict = new DirectoryClient({
      now: c.now,
      allow: { http: true, loopback: true },
      fetch: loopbackOnly(),
      delegation: delegation(),
      requireDelegation: true,
    });
    expect(onlyKey((await lax.resolve(member(http.origin))).keys).proof).toBe('delegated');
    expect(onlyKey((await strict.resolve(member(http.origin))).keys).proof).toBe('delegated');
    const fetchesBefore = http.count(WELL_KNOWN);
    c.advance(1200); // past notAfter + 60 s skew, well inside max-age=3600
    const after = await lax.resolve(member(http.origin));
    expect(onlyKey(after.keys).proof).toBe('unsigned');
    expect(after.diagnostics.find((d) => d.code === 'delegation-expired')).toMatchObject({ level: 'warning' });
    const gone = await strict.resolve(member(http.origin));
    expect(gone.keys).toEqual([]);
    expect(gone.diagnostics.find((d) => d.code === 'delegation-expired')).toMatchObject({ level: 'error' });
    expect(http.count(WELL_KNOWN), 'no refetch was needed').toBe(fetchesBefore);
  });
});

describe('AIA CA Issuers through the guarded fetch (SPEC 5.5 rule 2, 4.4)', () => {
  it('fetches the issuer named by the leaf (loopback, application/pkix-cert) and reuses it while fresh', async () => {
    const leaf = await leafFor(pki.key, pki.inter, { aia: `${http.origin}/ca/inter.cer` });
    routes.set('/ca/inter.cer', { type: 'application/pkix-cert', body: pki.inter.der });
    serveDirectory(withX5c(pki.key, leaf));
    const c = client({ delegation: delegation() });
    const k = onlyKey((await c.resolve(member(http.origin))).keys);
    expect(k.proof).toBe('delegated');
    expect(k.delegation?.via).toBe('aia');
    expect(k.chain).toHaveLength(3);
    const hits = http.count('/ca/inter.cer');
    expect(hits).toBeGreaterThanOrEqual(1);
    // Another key with the same AIA URI, in another directory resolution: served from memory.
    c.forget(member(http.origin));
    await c.resolve(member(http.origin));
    expect(http.count('/ca/inter.cer')).toBe(hits);
  });

  it('an AIA URI pointing to a private address is refused before any request (ERR_URL_BLOCKED → aia-blocked)', async () => {
    for (const target of [
      'http://10.0.0.7/inter.cer',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00::1]/inter.cer',
      'http://192.168.1.1/ca.cer',
      'http://localhost.internal/ca.cer',
    ]) {
      const leaf = await leafFor(pki.key, pki.inter, { aia: target });
      serveDirectory(withX5c(pki.key, leaf));
      const rec = loopbackOnly();
      const r = await client({ delegation: delegation() }, rec).resolve(member(http.origin));
      expect(onlyKey(r.keys).proof, target).toBe('unsigned');
      const d = r.diagnostics.find((x) => x.code === 'delegation-aia-blocked');
      expect(d?.message, target).toMatch(/refused by the URL rules \(ERR_URL_BLOCKED\)/);
      expect(rec.urls, `${target} must never be requested`).toEqual([`${http.origin}${WELL_KNOWN}`]);
    }
  });

  it('one directory may make the client fetch at most 8 certificate URLs', async () => {
    const jwks: Jwk[] = [];
    for (let i = 0; i < 10; i++) {
      const k = await agentKey('ed25519');
      routes.set(`/ca/budget-${i}.cer`, { type: 'application/pkix-cert', body: pki.inter.der });
      jwks.push(withX5c(k, await leafFor(k, pki.inter, { aia: `${http.origin}/ca/budget-${i}.cer` })));
    }
    serveDirectory(...jwks);
    const r = await client({ delegation: delegation() }).resolve(member(http.origin));
    expect(r.keys.filter((k) => k.proof === 'delegated')).toHaveLength(8);
    const refused = r.diagnostics.filter((d) => d.code === 'delegation-fetch-failed');
    expect(refused).toHaveLength(2);
    expect(refused[0]?.message).toMatch(/more than 8 certificate URLs/);
    let fetched = 0;
    for (let i = 0; i < 10; i++) fetched += http.count(`/ca/budget-${i}.cer`);
    expect(fetched).toBe(8);
  });

  it('a leaf without AIA whose issuer is not an anchor: missing-aia', async () => {
    serveDirectory(withX5c(pki.key, pki.leaf));
    const r = await client({ delegation: delegation(), requireDelegation: true }).resolve(member(http.origin));
    expect(r.keys).toEqual([]);
    expect(codes(r.diagnostics)).toContain('delegation-missing-aia');
  });

  it('an AIA URI that answers 404 is fetch-failed; with forms excluding aia the chain is untrusted-root', async () => {
    const leaf = await leafFor(pki.key, pki.inter, { aia: `${http.origin}/ca/missing.cer` });
    serveDirectory(withX5c(pki.key, leaf));
    const r = await client({ delegation: delegation() }).resolve(member(http.origin));
    expect(codes(r.diagnostics)).toContain('delegation-fetch-failed');
    const noAia = await client({ delegation: certificateDelegation({ trustAnchors: [pki.root.pem], forms: ['x5c'] }) }).resolve(member(http.origin));
    expect(codes(noAia.diagnostics)).toContain('delegation-untrusted-root');
    expect(http.count('/ca/missing.cer')).toBe(1);
  });
});

// ---------------------------------------------------------------------------
// TLS on loopback: x5u (RFC 7517 §4.6 asks for TLS) and an http AIA without allow.http

describe('over TLS on loopback (x5u, and an http AIA URI without allow.http)', () => {
  let tlsRoot: Cert;
  let origin: string;
  const tlsRoutes = new Map<string, Route>();
  let close: () => Promise<void>;

  beforeAll(async () => {
    tlsRoot = await rootCa('CN=Loopback TLS Root');
    const serverCert = await mint({ name: 'CN=127.0.0.1', issuer: tlsRoot, sanIp: '127.0.0.1' });
    const server = createHttpsServer({ key: await privateKeyPem(serverCert), cert: serverCert.pem }, routed(clock, tlsRoutes));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close());

  function tlsClient(options: DirectoryClientOptions = {}, rec = loopbackOnly(createGuardedFetch({ allow: { loopback: true }, ca: tlsRoot.pem }))) {
    return { rec, c: new DirectoryClient({ now: clock.now, allow: { loopback: true }, fetch: rec, delegation: delegation(), ...options }) };
  }

  it('x5u: the PEM chain is fetched from the URL, leaf first, then checked', async () => {
    tlsRoutes.set('/chain/sub.pem', { type: 'application/pem-certificate-chain', body: pemBundle(pki.leaf, pki.inter) });
    tlsRoutes.set(WELL_KNOWN, { type: DIRECTORY_TYPE, body: JSON.stringify({ keys: [{ ...pki.key.publicJwk, x5u: `${origin}/chain/sub.pem` }] }) });
    const { c, rec } = tlsClient();
    const k = onlyKey((await c.resolve(member(origin))).keys);
    expect(k.proof).toBe('delegated');
    expect(k.delegation?.via).toBe('x5u');
    expect(rec.urls).toEqual([`${origin}${WELL_KNOWN}`, `${origin}/chain/sub.pem`]);
  });

  it('an http AIA URI is fetched even without allow.http (the certificate authenticates itself); x5u stays https-only', async () => {
    const leaf = await leafFor(pki.key, pki.inter, { aia: `${http.origin}/ca/inter.cer` });
    routes.set('/ca/inter.cer', { type: 'application/pkix-cert', body: pki.inter.der });
    tlsRoutes.set(WELL_KNOWN, { type: DIRECTORY_TYPE, body: JSON.stringify({ keys: [withX5c(pki.key, leaf)] }) });
    const rec = loopbackOnly((input, init) =>
      input.startsWith('https:') ? createGuardedFetch({ allow: { loopback: true }, ca: tlsRoot.pem })(input, init) : globalThis.fetch(input, init),
    );
    const { c } = tlsClient({}, rec);
    const k = onlyKey((await c.resolve(member(origin))).keys);
    expect(k.delegation?.via).toBe('aia');
    expect(rec.urls).toContain(`${http.origin}/ca/inter.cer`);
  });

  it('verifyRequest end to end: a request signed with the delegated key verifies, and the key carries its chain', async () => {
    tlsRoutes.set(WELL_KNOWN, { type: DIRECTORY_TYPE, body: JSON.stringify({ keys: [withX5c(pki.key, pki.leaf, pki.inter)] }) });
    const { c } = tlsClient({ requireDelegation: true });
    const req = { method: 'GET', url: 'https://origin.example/resource', headers: {} as Record<string, string> };
    applySignatureHeaders(req.headers, await signRequest(req, { key: pki.key.privateJwk, signatureAgent: origin, now: clock.now }));
    const result = await verifyRequest(req, { directory: c, now: clock.now, nonce: { store: new MemoryNonceStore() } });
    expect(result.outcome).toBe('verified');
    expect(result.agent).toBe(`${origin}${WELL_KNOWN}`);
    expect(onlyKey((await c.resolve(member(origin))).keys).proof).toBe('delegated');
  });
});

// ---------------------------------------------------------------------------

describe('inline data: directories (SPEC 5.5 rule 5, SPEC 2.3)', () => {
  // An inline data: directory is an earlier draft's member (draft -01 signers send none): the
  // request is signed at the HTTP Message Signatures level, and verified with typedSignatureAgent.
  async function signedWith(key: AgentKey, agent: string) {
    const headers: Record<string, string> = { 'signature-agent': `sig1="${agent}"` };
    const req = { method: 'GET', url: 'https://origin.example/resource', headers };
    const signing = await importSigningKey(key.privateJwk);
    const created = Math.floor(clock.now() / 1000);
    const signed = await signMessage(req, {
      key: signing,
      label: 'sig1',
      components: ['@authority', '"signature-agent";key="sig1"'],
      params: { created, expires: created + 300, keyid: signing.thumbprint, tag: 'web-bot-auth' },
    });
    headers['signature-input'] = signed.headers['signature-input'];
    headers.signature = signed.headers.signature;
    return req;
  }
  const verifyTyped = (req: Parameters<typeof verifyRequest>[0], directory: DirectoryClient) =>
    verifyRequest(req, { directory, now: clock.now, nonce: { store: new MemoryNonceStore() }, typedSignatureAgent: true });

  it('without typedSignatureAgent an inline data: member is ignored (draft -01: https only)', async () => {
    const req = await signedWith(pki.key, dataUrl(withX5c(pki.key, pki.leaf, pki.inter)));
    const result = await verifyRequest(req, { directory: client({ delegation: delegation() }), now: clock.now, nonce: { store: new MemoryNonceStore() } });
    expect(result.outcome).toBe('unverified');
    expect(result.signatures[0]?.error?.code).toBe('ERR_SIGNATURE_AGENT_INVALID');
    expect(result.diagnostics.map((d) => d.code)).toContain('scheme-unsupported');
  });

  it('a key whose x5c chain reaches an anchor verifies end to end; the agent is the subject the anchor vouches for', async () => {
    const rec = loopbackOnly();
    const c = client({ delegation: delegation() }, rec);
    const req = await signedWith(pki.key, dataUrl(withX5c(pki.key, pki.leaf, pki.inter)));
    const result = await verifyTyped(req, c);
    expect(result.outcome).toBe('verified');
    expect(result.agent).toBe('https://sub.example.com/');
    expect(result.signatures[0]?.keySource).toBe('directory');
    expect(rec.urls, 'nothing fetched for a complete x5c').toEqual([]);
    const r = await c.resolve(member(dataUrl(withX5c(pki.key, pki.leaf, pki.inter))));
    expect(r.url).toBe('https://sub.example.com/');
    const k = onlyKey(r.keys);
    expect(k).toMatchObject({ proof: 'delegated', agent: 'https://sub.example.com/' });
    // The chain bounds the key's validity.
    expect(k.exp).toBe(k.delegation?.notAfter);
  });

  it('with a leaf-only x5c, the issuer comes from the AIA URI on loopback', async () => {
    const leaf = await leafFor(pki.key, pki.inter, { aia: `${http.origin}/ca/inter.cer`, sanDns: 'crawler.example' });
    routes.set('/ca/inter.cer', { type: 'application/pkix-cert', body: pki.inter.der });
    const req = await signedWith(pki.key, dataUrl(withX5c(pki.key, leaf)));
    const result = await verifyTyped(req, client({ delegation: delegation() }));
    expect(result.outcome).toBe('verified');
    expect(result.agent).toBe('crawler.example');
  });

  it('a bad chain leaves the signature unverified with ERR_DELEGATION_INVALID and the reason', async () => {
    const other = await rootCa('CN=Untrusted Root');
    const cases: Array<[string, Jwk, RegExp]> = [
      [
        'expired',
        withX5c(pki.key, await leafFor(pki.key, pki.inter, { notBefore: new Date(clock.t - days(9)), notAfter: new Date(clock.t - days(2)) }), pki.inter),
        /expired/,
      ],
      ['untrusted root', withX5c(pki.key, await leafFor(pki.key, other), other), /not a trust anchor/],
      ['wrong key', withX5c(pki.key, await leafFor(await agentKey('ed25519'), pki.inter), pki.inter), /another key/],
      ['no chain', pki.key.publicJwk, /carries no certificate chain/],
    ];
    for (const [name, jwk, message] of cases) {
      const req = await signedWith(pki.key, dataUrl(jwk));
      const result = await verifyTyped(req, client({ delegation: delegation() }));
      expect(result.outcome, name).toBe('unverified');
      expect(result.signatures[0]?.error?.code, name).toBe('ERR_DELEGATION_INVALID');
      expect(result.signatures[0]?.error?.message, name).toMatch(message);
    }
  });

  it('without delegation configured inline directories stay refused; with it, a chainless key beside a delegated one is left out', async () => {
    await expect(client().resolve(member(dataUrl(withX5c(pki.key, pki.leaf, pki.inter))))).rejects.toMatchObject({ code: 'ERR_DELEGATION_INVALID' });
    const plain = await agentKey('ed25519');
    const r = await client({ delegation: delegation() }).resolve(member(dataUrl(withX5c(pki.key, pki.leaf, pki.inter), plain.publicJwk)));
    expect(r.keys.map((k) => [k.proof, k.agent])).toEqual([['delegated', 'https://sub.example.com/']]);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'delegation-no-chain', at: 'keys[1]' }));
    // Only chainless keys: refused, with the reason.
    await expect(client({ delegation: delegation() }).resolve(member(dataUrl(plain.publicJwk)))).rejects.toMatchObject({
      code: 'ERR_DELEGATION_INVALID',
      message: expect.stringMatching(/no certificate chain/),
    });
  });

  it("a key nothing vouches for is left out before any key import (a stranger's header costs no key work)", async () => {
    const [plain, other] = [await agentKey('ed25519'), await agentKey('ed25519')];
    const original = getCryptoProvider();
    const provider = countingProvider(original);
    setCryptoProvider(provider);
    try {
      const c = client({ delegation: delegation() });
      await expect(c.resolve(member(dataUrl(plain.publicJwk, other.publicJwk)))).rejects.toMatchObject({
        code: 'ERR_DELEGATION_INVALID',
        message: expect.stringMatching(/and 1 more inline key\(s\) refused/),
      });
      expect(provider.imports.verify).toBe(0);
    } finally {
      setCryptoProvider(original);
    }
  });

  it('an inline key past its own exp is left out, as a fetched one is, though its chain is valid', async () => {
    const expired = { ...withX5c(pki.key, pki.leaf, pki.inter), exp: Math.floor(clock.t / 1000) - 3600 };
    const r = await client({ delegation: delegation() }).resolve(member(dataUrl(expired)));
    expect(r.keys).toEqual([]);
    expect(codes(r.diagnostics)).toContain('key-outside-validity');
  });

  it('requireProof keeps delegated inline keys (the chain is their proof)', async () => {
    const r = await client({ delegation: delegation(), requireProof: true }).resolve(member(dataUrl(withX5c(pki.key, pki.leaf, pki.inter))));
    expect(onlyKey(r.keys).proof).toBe('delegated');
  });

  it('a permanent refusal is remembered; a failed AIA fetch is tried again', async () => {
    const c = client({ delegation: delegation() });
    const flaky = await leafFor(pki.key, pki.inter, { aia: `${http.origin}/ca/flaky.cer` });
    const m = member(dataUrl(withX5c(pki.key, flaky)));
    await expect(c.resolve(m)).rejects.toMatchObject({ code: 'ERR_DELEGATION_INVALID' });
    expect(http.count('/ca/flaky.cer')).toBe(1);
    routes.set('/ca/flaky.cer', { type: 'application/pkix-cert', body: pki.inter.der });
    expect(onlyKey((await c.resolve(m)).keys).proof).toBe('delegated');
    expect(http.count('/ca/flaky.cer')).toBe(2);

    // Broken chain after a fetch the server forbids caching: the second resolve answers from the remembered refusal.
    const unrelated = await rootCa('CN=Unrelated');
    routes.set('/ca/unrelated.cer', { type: 'application/pkix-cert', body: unrelated.der, cacheControl: 'no-store' });
    const broken = member(dataUrl(withX5c(pki.key, await leafFor(pki.key, pki.inter, { aia: `${http.origin}/ca/unrelated.cer` }))));
    await expect(c.resolve(broken)).rejects.toMatchObject({
      code: 'ERR_DELEGATION_INVALID',
      message: expect.stringMatching(/not issued by the next certificate/),
    });
    await expect(c.resolve(broken)).rejects.toMatchObject({ code: 'ERR_DELEGATION_INVALID' });
    expect(http.count('/ca/unrelated.cer')).toBe(1);

    const wrong = member(dataUrl(withX5c(pki.key, await leafFor(await agentKey('ed25519'), pki.inter, { aia: `${http.origin}/ca/never.cer` }))));
    await expect(c.resolve(wrong)).rejects.toMatchObject({ code: 'ERR_DELEGATION_INVALID' });
    expect(http.count('/ca/never.cer'), 'wrong-key is decided before any fetch').toBe(0);
  });
});

describe('configuration', () => {
  it('validates delegation options up front (TypeError)', () => {
    expect(() => new DirectoryClient({ requireDelegation: true })).toThrow(/requireDelegation needs delegation/);
    expect(() => certificateDelegation({ trustAnchors: [] })).toThrow(TypeError);
    expect(() => certificateDelegation({ trustAnchors: ['not a certificate'] })).toThrow(TypeError);
    expect(() => certificateDelegation({ trustAnchors: [pki.root.pem], maxChainLength: 99 })).toThrow(TypeError);
  });

  it('delegation takes what certificateDelegation() returns; the bare options say how to migrate', () => {
    const bare = { trustAnchors: [pki.root.pem] } as unknown as CertificateDelegation;
    expect(() => new DirectoryClient({ delegation: bare })).toThrow(/certificateDelegation\(\{ trustAnchors, ... \}\) from 'botsig\/directory'/);
    for (const bad of [null, 42, 'x', {}, { check: () => undefined }, { preload: () => undefined }]) {
      expect(() => new DirectoryClient({ delegation: bad as unknown as CertificateDelegation })).toThrow(/delegation must be what certificateDelegation\(\)/);
    }
    // A preload that throws or answers without a promise does not break the client (failures show per key).
    for (const preload of [
      () => Promise.reject(new Error('x')),
      (): never => {
        throw new Error('x');
      },
      () => 42,
    ]) {
      expect(
        () => new DirectoryClient({ delegation: { check: async () => ({ ok: false }) as never, preload } as unknown as CertificateDelegation }),
      ).not.toThrow();
    }
    // Another object with both methods is taken as it is (a delegation scheme of the caller's own).
    expect(() => new DirectoryClient({ delegation: { check: async () => ({ ok: false }) as never, preload: async () => undefined } })).not.toThrow();
  });

  it('an anchor that has the shape of DER but does not parse is reported on the keys it affects', async () => {
    serveDirectory(withX5c(pki.key, pki.leaf, pki.inter));
    const r = await client({ delegation: certificateDelegation({ trustAnchors: [new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01])] }) }).resolve(
      member(http.origin),
    );
    expect(onlyKey(r.keys).proof).toBe('unsigned');
    expect(r.diagnostics.find((d) => d.code === 'delegation-unavailable')?.message).toMatch(/misconfigured/);
  });
});

describe("a stranger's directory costs its size, not keys × the size of the CA certificates they share", () => {
  /** A distinguished name of `n` RDNs (CN=<tag><i>): a certificate within the size limits that is slow to parse. */
  const longName = (tag: string, n: number): string => Array.from({ length: n }, (_, i) => `CN=${tag}${i}`).join(',');

  /** CPU time to resolve a directory of 64 keys whose leaves chain, through AIA, to the stranger's own CAs W ← Z ← Y ← X. */
  async function resolveCpuMs(rdns: number): Promise<number> {
    const clock = new TestClock();
    const routes = new Map<string, Uint8Array>();
    const server = await startLoopbackServer((req: IncomingMessage, res: ServerResponse) => {
      const body = routes.get(req.url ?? '/');
      if (body === undefined) return send(res, clock, 404, { 'content-type': 'text/plain' }, 'nf');
      send(res, clock, 200, { 'content-type': req.url === WELL_KNOWN ? DIRECTORY_TYPE : 'application/pkix-cert', 'cache-control': 'max-age=3600' }, body);
    });
    const o = server.origin;
    const ca = { alg: 'ed25519' as const, ca: { cA: true }, keyUsage: KU.keyCertSign };
    const name = (tag: string): string => (rdns === 0 ? `CN=${tag}` : longName(tag, rdns));
    const W = await mint({ ...ca, name: name('w') });
    const Z = await mint({ ...ca, name: name('z'), issuer: W, aia: `${o}/w` });
    const Y = await mint({ ...ca, name: name('y'), issuer: Z, aia: `${o}/z` });
    const X = await mint({ ...ca, name: 'CN=X', issuer: Y, aia: `${o}/y` });
    for (const [path, c] of [
      ['/w', W],
      ['/z', Z],
      ['/y', Y],
      ['/x', X],
    ] as Array<[string, Cert]>)
      routes.set(path, c.der);
    const keys: Jwk[] = [];
    for (let i = 0; i < 64; i++) {
      const k = await agentKey('ed25519');
      keys.push({ ...k.publicJwk, x5c: [(await leafFor(k, X, { name: 'CN=l', aia: `${o}/x` })).b64] });
    }
    routes.set(WELL_KNOWN, new TextEncoder().encode(JSON.stringify({ keys })));
    const client = new DirectoryClient({
      now: clock.now,
      allow: { http: true, loopback: true },
      delegation: certificateDelegation({ trustAnchors: [(await rootCa(`CN=Operator Root ${rdns}`)).pem] }),
    });
    await client.resolve(member(`${o}/warm-up`)).catch(() => undefined);
    const before = process.cpuUsage();
    const resolved = await client.resolve(member(o));
    const used = process.cpuUsage(before);
    // Kept without a delegation (the chain reaches no anchor of this verifier).
    expect(resolved.keys).toHaveLength(64);
    expect(resolved.keys.every((k) => k.delegation === undefined)).toBe(true);
    return (used.user + used.system) / 1000;
  }

  it('CA certificates with names of 450 RDNs (about 13 KB each) are parsed once per directory, not once per key', async () => {
    const short = await resolveCpuMs(0);
    const long = await resolveCpuMs(450);
    // Parsed once each, the three long names add about as much as the 64 keys' own checks; parsed for every key, 20 times that.
    expect(long / short, `short names ${short.toFixed(0)} ms, long names ${long.toFixed(0)} ms of CPU`).toBeLessThan(4);
  });
});
