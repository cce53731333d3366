/**
 * botsig/playwright with a real browser: Debian chromium (/usr/bin/chromium, or BOTSIG_CHROMIUM_PATH)
 * driven by playwright-core. A page on loopback origin A loads subresources
 * (img, script, fetch) from loopback origin B; both origins verify every request.
 * NETWORK RULE: only 127.0.0.1 servers started here; chromium's resolver maps
 * every other host name to NOTFOUND and background networking is off.
 */
import type { IncomingMessage } from 'node:http';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { signBrowserContext } from '../../src/playwright';
import type { PlaywrightRoutable, PlaywrightSigningOptions } from '../../src/playwright';
import { generateKeyPair, verifyRequest, MemoryNonceStore } from '../../src/index';
import type { Jwk, VerificationResult, VerifyRequestOptions } from '../../src/index';
import { closeAllLoopbackServers, startLoopbackServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';
// Every suite here needs Chromium: skipped locally without it, failing under CI.
import { chromiumExecutable, describeWithChromium as describe } from '../helpers/optional';

const AGENT = 'https://crawler.example';
const WAIT_MS = 10_000;
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
];

// Compile-time: Playwright's own types fit the structural ones botsig accepts.
const acceptsPage = (page: Page): PlaywrightRoutable => page;
const acceptsContext = (context: BrowserContext): PlaywrightRoutable => context;
void acceptsPage;
void acceptsContext;

let browser: Browser;
let privateJwk: Jwk;
let publicJwk: Jwk;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  ({ privateJwk, publicJwk } = await generateKeyPair('ed25519'));
  browser = await chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS, timeout: 30_000 });
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
  await closeAllLoopbackServers();
});
afterAll(async () => {
  await browser?.close();
});

interface Seen {
  readonly path: string;
  readonly signed: boolean;
  readonly signatureInput: string | undefined;
  readonly result: VerificationResult;
}

type Route = (req: IncomingMessage) => { status?: number; type?: string; headers?: Record<string, string>; body?: string };

async function origin(route: Route): Promise<LoopbackServer & { seen: Seen[] }> {
  const seen: Seen[] = [];
  const options: VerifyRequestOptions = { keys: [publicJwk], allowInsecure: true, nonce: { store: new MemoryNonceStore() } };
  const server = await startLoopbackServer(async (req, res) => {
    const result = await verifyRequest(
      { method: req.method ?? 'GET', url: `http://${req.headers.host ?? ''}${req.url ?? '/'}`, headers: req.headers },
      options,
    );
    const raw = req.headers['signature-input'];
    const signatureInput = Array.isArray(raw) ? raw.join(', ') : raw;
    seen.push({ path: req.url ?? '/', signed: signatureInput !== undefined || req.headers.signature !== undefined, signatureInput, result });
    const answer = route(req);
    res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'text/plain', ...answer.headers });
    res.end(answer.body ?? '');
  });
  return Object.assign(server, { seen });
}

/** Origin B: an image, a script and a CORS-enabled JSON endpoint. */
function thirdParty(): Promise<LoopbackServer & { seen: Seen[] }> {
  return origin((req) => {
    if (req.url === '/img.svg') return { type: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>' };
    if (req.url === '/script.js') return { type: 'text/javascript', body: 'window.bLoaded = true;' };
    if (req.url === '/data') return { type: 'application/json', headers: { 'access-control-allow-origin': '*' }, body: '{"b":true}' };
    return { status: 404 };
  });
}

/** Origin A: a page that loads its own script and B's image, script and data; the title says when all is done. */
function firstParty(b: LoopbackServer): Promise<LoopbackServer & { seen: Seen[] }> {
  return origin((req) => {
    if (req.url === '/') {
      return {
        type: 'text/html',
        body: `<!doctype html><html><head><link rel="icon" href="data:,"><script src="/own.js"></script></head><body>
<img src="${b.origin}/img.svg"><script src="${b.origin}/script.js"></script>
<script>
Promise.all([fetch('/own-data').then((r) => r.text()), fetch('${b.origin}/data').then((r) => r.json())])
  .then(([own, data]) => { document.title = 'done ' + own + ' ' + data.b + ' ' + window.aLoaded + ' ' + window.bLoaded; })
  .catch((e) => { document.title = 'failed ' + e; });
</script></body></html>`,
      };
    }
    if (req.url === '/own.js') return { type: 'text/javascript', body: 'window.aLoaded = true;' };
    if (req.url === '/own-data') return { body: 'mine' };
    return { status: 404 };
  });
}

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  contexts.push(context);
  return { context, page: await context.newPage() };
}

async function loadSite(page: Page, a: LoopbackServer): Promise<void> {
  await page.goto(`${a.origin}/`, { timeout: WAIT_MS });
  await page.waitForFunction(() => document.title.startsWith('done') || document.title.startsWith('failed'), null, { timeout: WAIT_MS });
  expect(await page.title()).toBe('done mine true true true');
}

function options(extra: Partial<PlaywrightSigningOptions> = {}): PlaywrightSigningOptions {
  return { key: privateJwk, signatureAgent: AGENT, ...extra };
}

function describeSeen(s: Seen): string {
  return `${s.path}: ${s.result.outcome} ${JSON.stringify(s.result.error)}`;
}

describe('signBrowserContext: each request signed for its own authority (SPEC 5.1)', () => {
  it('origins = [A]: A sees every request signed and verified; third-party B sees no signature', async () => {
    const b = await thirdParty();
    const a = await firstParty(b);
    const { context, page } = await newPage();
    await signBrowserContext(context, options({ origins: [a.origin] }));
    await loadSite(page, a);

    expect(a.seen.map((s) => s.path).sort()).toEqual(['/', '/own-data', '/own.js']);
    for (const s of a.seen) expect(s.result.outcome, describeSeen(s)).toBe('verified');
    expect(b.seen.map((s) => s.path).sort()).toEqual(['/data', '/img.svg', '/script.js']);
    for (const s of b.seen) {
      expect(s.signed, s.path).toBe(false);
      expect(s.result.error?.code).toBe('ERR_NO_SIGNATURE');
    }
  });

  it('no origins filter: A and B see every request signed for their own authority, each with its own nonce', async () => {
    const b = await thirdParty();
    const a = await firstParty(b);
    const { context, page } = await newPage();
    await signBrowserContext(context, options());
    await loadSite(page, a);

    const all = [...a.seen, ...b.seen];
    expect(all).toHaveLength(6);
    for (const s of all) {
      expect(s.result.outcome, describeSeen(s)).toBe('verified');
      expect(s.result.signatures[0]!.signatureAgent?.url, 'the origin is sent as its well-known directory URL').toBe(
        `${AGENT}/.well-known/http-message-signatures-directory`,
      );
    }
    expect(new Set(all.map((s) => s.result.signatures[0]!.params.nonce)).size).toBe(6);
  });

  it('a predicate for origins, on a Page rather than a BrowserContext', async () => {
    const b = await thirdParty();
    const a = await firstParty(b);
    const { page } = await newPage();
    const bPort = String(b.port);
    await signBrowserContext(page, options({ origins: (url) => url.port === bPort }));
    await loadSite(page, a);
    for (const s of a.seen) expect(s.signed, s.path).toBe(false);
    for (const s of b.seen) expect(s.result.outcome, describeSeen(s)).toBe('verified');
  });

  it('routes registered earlier still run and see the signature headers (route.fallback)', async () => {
    const b = await thirdParty();
    const a = await firstParty(b);
    const { context, page } = await newPage();
    const observed: Array<string | undefined> = [];
    await context.route('**/*', async (route, request) => {
      observed.push(request.headers()['signature-input']);
      await route.continue();
    });
    await signBrowserContext(context, options({ origins: [a.origin] }));
    await loadSite(page, a);
    expect(observed).toHaveLength(6);
    expect(observed.filter((v) => v !== undefined)).toHaveLength(3);
    for (const s of a.seen) expect(s.result.outcome, describeSeen(s)).toBe('verified');
  });

  it('the returned function removes the route: later requests are unsigned', async () => {
    const a = await origin(() => ({ body: 'plain' }));
    const { context, page } = await newPage();
    const stop = await signBrowserContext(context, options());
    await page.goto(`${a.origin}/one`, { timeout: WAIT_MS });
    await stop();
    await stop();
    await page.goto(`${a.origin}/two`, { timeout: WAIT_MS });
    const byPath = new Map(a.seen.map((s) => [s.path, s]));
    expect(byPath.get('/one')!.result.outcome).toBe('verified');
    expect(byPath.get('/two')!.signed).toBe(false);
  });

  it('a request that cannot be signed as configured (content-digest absent on a GET) goes out unsigned and is reported to onError', async () => {
    const a = await origin(() => ({ body: 'plain' }));
    const { context, page } = await newPage();
    const errors: Array<[string, string]> = [];
    await signBrowserContext(
      context,
      options({ components: ['content-digest'], onError: (error, url) => errors.push([(error as { code: string }).code, url]) }),
    );
    await page.goto(`${a.origin}/`, { timeout: WAIT_MS });
    expect(errors).toEqual([['ERR_COMPONENT_MISSING', `${a.origin}/`]]);
    expect(a.seen.map((s) => s.signed)).toEqual([false]);
  });

  it('checks its arguments', async () => {
    await expect(signBrowserContext({} as PlaywrightRoutable, options())).rejects.toThrow(TypeError);
    const { context } = await newPage();
    await expect(signBrowserContext(context, options({ origins: ['https://example.com/path'] }))).rejects.toThrow(TypeError);
    await expect(signBrowserContext(context, options({ origins: ['ftp://example.com'] }))).rejects.toThrow(TypeError);
    await expect(signBrowserContext(context, options({ components: ['bad name'] }))).rejects.toMatchObject({ code: 'ERR_COMPONENT_INVALID' });
    await expect(signBrowserContext(context, options({ key: { kty: 'OKP', crv: 'Ed25519', x: 'AAAA', d: 'AAAA' } }))).rejects.toMatchObject({
      code: 'ERR_KEY_INVALID',
    });
  });
});

describe('signBrowserContext: browser-followed redirects (documented Playwright behaviour)', () => {
  // Playwright calls the route handler only for the first request of a chain and
  // resends its header overrides on each hop (route.continue in types.d.ts).
  it('a same-origin hop carries the first signature again, which does not verify for the hop (it covers @target-uri), nonce or not', async () => {
    const a = await origin((req) => (req.url === '/old' ? { status: 302, headers: { location: '/new' } } : { type: 'text/html', body: 'landed' }));
    const first = await newPage();
    await signBrowserContext(first.context, options());
    await first.page.goto(`${a.origin}/old`, { timeout: WAIT_MS });
    expect(a.seen.map((s) => s.path)).toEqual(['/old', '/new']);
    expect(a.seen[1]!.signatureInput).toBe(a.seen[0]!.signatureInput);
    expect(a.seen[0]!.result.outcome).toBe('verified');
    expect(a.seen[1]!.result.signatures[0]!.error?.code).toBe('ERR_SIGNATURE_INVALID');

    a.seen.length = 0;
    const second = await newPage();
    await signBrowserContext(second.context, options({ nonce: false }));
    await second.page.goto(`${a.origin}/old`, { timeout: WAIT_MS });
    expect(a.seen.map((s) => [s.path, s.result.outcome])).toEqual([
      ['/old', 'verified'],
      ['/new', 'invalid'],
    ]);
  });

  it('a hop to another authority carries a signature made for the first one, which does not verify there', async () => {
    const b = await origin(() => ({ type: 'text/html', body: 'b' }));
    const a = await origin(() => ({ status: 302, headers: { location: `${b.origin}/landing` } }));
    const { context, page } = await newPage();
    await signBrowserContext(context, options());
    await page.goto(`${a.origin}/`, { timeout: WAIT_MS });
    expect(a.seen[0]!.result.outcome).toBe('verified');
    expect(b.seen[0]!.signatureInput).toBe(a.seen[0]!.signatureInput);
    expect(b.seen[0]!.result.outcome).toBe('invalid');
    expect(b.seen[0]!.result.signatures[0]!.error?.code).toBe('ERR_SIGNATURE_INVALID');
  });

  it('a redirect to another site carries the first request’s signature, which verifies for that request alone (@method and @target-uri covered)', async () => {
    // B records the headers the browser resends on the hop it follows by itself.
    let forwarded: IncomingMessage['headers'] | undefined;
    const b = await startLoopbackServer((req, res) => {
      forwarded = req.headers;
      res.end('caught');
    });
    const a = await origin((req) => (req.url === '/out' ? { status: 302, headers: { location: `${b.origin}/catch` } } : { body: 'plain' }));
    const { context, page } = await newPage();
    await signBrowserContext(context, options({ origins: [a.origin] }));
    await page.goto(`${a.origin}/out`, { timeout: WAIT_MS });
    expect(forwarded?.['signature-input']).toBeDefined();
    const replay = (method: string, path: string) =>
      verifyRequest({ method, url: `${a.origin}${path}`, headers: forwarded! }, { keys: [publicJwk], allowInsecure: true, nonce: { policy: 'none' } });
    // B replaying what it received to A, for another request: refused.
    for (const [method, path] of [
      ['POST', '/api/anything'],
      ['GET', '/account'],
      ['POST', '/out'],
    ] as const) {
      const result = await replay(method, path);
      expect([method, path, result.outcome, result.error?.code]).toEqual([method, path, 'invalid', 'ERR_SIGNATURE_INVALID']);
    }
    const same = await replay('GET', '/out');
    expect(same.outcome).toBe('verified');
    expect(same.signatures[0]!.covered).toEqual(['"@authority"', '"signature-agent";key="sig1"', '"@method"', '"@target-uri"']);
  });
});
