/**
 * In a real browser: a WebCrypto key generated with `extractable: false` signs Web Bot
 * Auth requests through `externalSigningKey` (and `importSigningKey(pair)`), its private
 * half never exports, and the signatures verify. Headless Chromium (Debian's, through
 * playwright-core), the code bundled from src/ by esbuild and served from 127.0.0.1 (a
 * secure context, so `crypto.subtle` is there).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { chromiumExecutable, describeWithChromium as describe } from '../helpers/optional';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Runs in the page: every result is data, so that the test asserts here.
const ENTRY = `
import { externalSigningKey } from './src/crypto/keys/external';
import { importSigningKey } from './src/crypto/keys/signing';
import { signRequest } from './src/profile/sign-request';
import { verifyRequest } from './src/profile/verify-request';

export async function run() {
  const out = {};
  for (const [name, params, signParams] of [
    ['Ed25519', { name: 'Ed25519' }, { name: 'Ed25519' }],
    ['P-256', { name: 'ECDSA', namedCurve: 'P-256' }, { name: 'ECDSA', hash: 'SHA-256' }],
  ]) {
    const pair = await crypto.subtle.generateKey(params, false, ['sign', 'verify']);
    let exported = 'exported';
    try { await crypto.subtle.exportKey('jwk', pair.privateKey); } catch (e) { exported = 'refused: ' + e.name; }
    const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
    const publicJwk = y === undefined ? { kty, crv, x } : { kty, crv, x, y };
    const external = await externalSigningKey({ publicJwk, sign: async (d) => new Uint8Array(await crypto.subtle.sign(signParams, pair.privateKey, d)) });
    const fromPair = await importSigningKey(pair);
    const outcomes = [];
    for (const key of [external, fromPair]) {
      const request = new Request('https://origin.example/');
      const headers = await signRequest(request, { key, signatureAgent: 'https://agent.example' });
      for (const [n, v] of Object.entries(headers)) request.headers.set(n, v);
      outcomes.push((await verifyRequest(request, { keys: [publicJwk] })).outcome);
    }
    out[name] = { extractable: pair.privateKey.extractable, exported, sameKeyid: external.thumbprint === fromPair.thumbprint, alg: external.alg, outcomes };
  }
  return out;
}
`;

let server: Server | undefined;
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((done) => (server === undefined ? done() : server.close(() => done())));
});

describe('a non-extractable WebCrypto key in headless Chromium', () => {
  it('signs through externalSigningKey and importSigningKey(pair), never exports, and verifies', async () => {
    const bundle = await esbuild.build({
      stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'browser-key-entry.ts', loader: 'ts' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    const code = bundle.outputFiles[0]!.text;
    server = createServer((req, res) => {
      if (req.url === '/entry.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>botsig</title>');
    });
    await new Promise<void>((ready) => server!.listen(0, '127.0.0.1', ready));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: ['--no-sandbox', '--disable-gpu'], headless: true });
    const page = await browser.newPage();
    await page.goto(origin + '/');
    const result = (await page.evaluate(`import('/entry.js').then((m) => m.run())`)) as Record<string, unknown>;
    expect(result).toEqual({
      Ed25519: { extractable: false, exported: 'refused: InvalidAccessError', sameKeyid: true, alg: 'ed25519', outcomes: ['verified', 'verified'] },
      'P-256': { extractable: false, exported: 'refused: InvalidAccessError', sameKeyid: true, alg: 'ecdsa-p256-sha256', outcomes: ['verified', 'verified'] },
    });
  }, 120_000);
});
