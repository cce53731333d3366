/**
 * Runtime matrix, browser: the isomorphic test files (test/runtimes/bundle.ts lists
 * them) run in headless Chromium — Debian's /usr/bin/chromium (or BOTSIG_CHROMIUM_PATH) driven by
 * playwright-core, never a downloaded browser. The bundle is served from a
 * loopback node:http server (127.0.0.1 is a secure context, so crypto.subtle is
 * there) and its `run()` is called in the page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { chromiumExecutable, describeWithChromium as describe } from '../helpers/optional';
import { buildRuntimeBundle, summarise, type MatrixResult } from './bundle';
import { MIN_TESTS } from './expectations';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const HTML = '<!doctype html><meta charset="utf-8"><title>botsig runtime matrix</title>';

let server: Server | undefined;
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((done) => (server === undefined ? done() : server.close(() => done())));
});

// Without the browser the launcher is skipped locally, but never under CI (.ci/run installs it).
describe('runtime matrix: headless Chromium', () => {
  it('runs the isomorphic suite with no failures', async () => {
    const bundle = await buildRuntimeBundle('browser');
    server = createServer((req, res) => {
      if (req.url === '/matrix.js') {
        res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
        res.end(bundle.code);
      } else {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(HTML);
      }
    });
    await new Promise<void>((ready) => server!.listen(0, '127.0.0.1', ready));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: ARGS, headless: true });
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'log' || m.type() === 'error' || m.type() === 'warning') console.log(`[chromium] ${m.text()}`);
    });
    await page.exposeFunction('__matrixProgress', (f: { file: string; passed: number; failed: number }) => {
      console.log(`[chromium] ${f.failed > 0 ? '✗' : '✓'} ${f.file}: ${f.passed} passed${f.failed > 0 ? `, ${f.failed} failed` : ''}`);
    });
    await page.goto(`${origin}/`);

    // A string, not a function: Vitest would rewrite `import()` inside a function for Node.
    const result = (await page.evaluate(`import('/matrix.js').then((m) => m.run({ onFile: (f) => void window.__matrixProgress(f) }))`)) as MatrixResult;

    console.log(summarise('chromium', result, bundle));
    expect(pageErrors, 'uncaught errors in the page').toEqual([]);
    expect(result.environment.hasProcess, 'the page has no `process` (so nothing under test relied on it)').toBe(false);
    expect(result.environment.hasBuffer, 'the page has no `Buffer`').toBe(false);
    expect(result.environment.webCryptoEd25519, 'Chromium 137+ implements Ed25519 in WebCrypto').toBe(true);
    expect(
      result.failures.map((f) => `${f.name}: ${f.message}`),
      'failures in Chromium',
    ).toEqual([]);
    expect(result.files.map((f) => f.file)).toEqual(bundle.files);
    expect(result.passed, `at least ${MIN_TESTS} tests ran in Chromium`).toBeGreaterThanOrEqual(MIN_TESTS);
  }, 900_000);
});
