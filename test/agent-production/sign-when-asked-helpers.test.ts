/**
 * `signWhen: 'asked'` in the browser and crawler helpers, with the real things: a
 * CheerioCrawler (Crawlee retries the challenged request, and the retry is signed) and
 * headless Chromium through Playwright (signed from the next navigation on), against a
 * loopback origin that answers unsigned requests with 401 and `Accept-Signature`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheerioCrawler, Configuration, log } from '@crawlee/cheerio';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, verifyRequest, MemoryNonceStore } from '../../src/index';
import type { Jwk } from '../../src/index';
import { signBrowserContext } from '../../src/playwright';
import { createSigningHook } from '../../src/crawlee';
import { closeAllLoopbackServers, startLoopbackServer, type LoopbackServer } from '../helpers/loopback';
import { chromiumExecutable, describeWithChromium } from '../helpers/optional';

const AGENT = 'https://crawler.example';
let privateJwk: Jwk;
let publicJwk: Jwk;
let storageDir: string;

beforeAll(async () => {
  ({ privateJwk, publicJwk } = await generateKeyPair('ed25519'));
  storageDir = await mkdtemp(join(tmpdir(), 'botsig-asked-'));
  log.setLevel(log.LEVELS.ERROR);
});
afterAll(async () => {
  await closeAllLoopbackServers();
  await rm(storageDir, { recursive: true, force: true });
});

/** Unsigned → 401 with Accept-Signature; signed → verified (200) or not (403). Records what it saw. */
async function askingOrigin(): Promise<LoopbackServer & { hits: Array<[string, boolean, string]> }> {
  const hits: Array<[string, boolean, string]> = [];
  const store = new MemoryNonceStore();
  const server = await startLoopbackServer(async (req, res) => {
    const signed = req.headers['signature'] !== undefined;
    const result = await verifyRequest(
      { method: req.method ?? 'GET', url: `http://${req.headers.host ?? ''}${req.url ?? '/'}`, headers: req.headers },
      { keys: [publicJwk], allowInsecure: true, nonce: { store } },
    );
    hits.push([req.url ?? '/', signed, result.outcome]);
    if (!signed) {
      res.writeHead(401, { 'content-type': 'text/html', 'accept-signature': 'sig1=("@authority");tag="web-bot-auth"' });
      return void res.end('<html><body>sign please</body></html>');
    }
    res.writeHead(result.outcome === 'verified' ? 200 : 403, { 'content-type': 'text/html' });
    res.end(`<html><body>${result.outcome}</body></html>`);
  });
  return Object.assign(server, { hits });
}

describe("createSigningHook({ signWhen: 'asked' }) with CheerioCrawler", () => {
  it('the first request goes unsigned, Crawlee retries the 401 signed, and the origin is signed from then on', async () => {
    const site = await askingOrigin();
    const hook = createSigningHook({ key: privateJwk, signatureAgent: AGENT, signWhen: 'asked' });
    const handled: string[] = [];
    const config = new Configuration({
      persistStorage: false,
      purgeOnStart: true,
      storageClientOptions: { localDataDirectory: storageDir, persistStorage: false, writeMetadata: false },
    });
    const crawler = new CheerioCrawler(
      {
        preNavigationHooks: [hook],
        postNavigationHooks: [hook.afterNavigation],
        maxRequestRetries: 2,
        maxConcurrency: 1,
        requestHandlerTimeoutSecs: 10,
        navigationTimeoutSecs: 10,
        async requestHandler({ request, body }) {
          handled.push(`${new URL(request.url).pathname} ${String(body).includes('verified') ? 'verified' : 'other'}`);
        },
        failedRequestHandler({ request }) {
          handled.push(`failed ${request.url}`);
        },
      },
      config,
    );
    await crawler.run([site.origin + '/a']);
    await crawler.run([site.origin + '/b']);
    expect(handled).toEqual(['/a verified', '/b verified']);
    expect(site.hits).toEqual([
      ['/a', false, 'unverified'],
      ['/a', true, 'verified'],
      ['/b', true, 'verified'],
    ]);
  }, 60_000);
});

describeWithChromium("signBrowserContext({ signWhen: 'asked' }) in headless Chromium", () => {
  let browser: Browser | undefined;
  afterAll(async () => browser?.close());

  it('a page that was asked is signed from the next navigation on; an origin that never asks never is', async () => {
    const site = await askingOrigin();
    const quiet = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'x-signed': String(req.headers['signature'] !== undefined) });
      res.end('<html></html>');
    });
    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: ['--no-sandbox', '--disable-gpu'], headless: true });
    const context = await browser.newContext();
    const stop = await signBrowserContext(context, { key: privateJwk, signatureAgent: AGENT, signWhen: 'asked' });
    const page = await context.newPage();
    expect((await page.goto(site.origin + '/one'))?.status()).toBe(401);
    expect((await page.goto(site.origin + '/two'))?.status()).toBe(200);
    expect((await page.goto(site.origin + '/three'))?.status()).toBe(200);
    const q = await page.goto(quiet.origin + '/');
    expect(q?.headers()['x-signed']).toBe('false');
    expect(site.hits.filter(([path]) => path !== '/favicon.ico')).toEqual([
      ['/one', false, 'unverified'],
      ['/two', true, 'verified'],
      ['/three', true, 'verified'],
    ]);
    await stop();
  }, 60_000);
});
