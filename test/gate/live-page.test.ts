/**
 * The gate's live page in a real browser (Debian's Chromium driven by
 * playwright-core; no browser is downloaded): it loads on the admin listener, its
 * script (allowed by hash in the Content-Security-Policy) shows a verification
 * that just happened without a reload, and a screenshot is taken (into a temporary
 * directory, removed afterwards; set BOTSIG_GATE_SCREENSHOT_DIR to keep it there).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { removeCli } from '../cli/cli-helpers';
// Every suite here needs Chromium: skipped locally without it, failing under CI.
import { chromiumExecutable, describeWithChromium as describe } from '../helpers/optional';
import { freePort, gateConfig, HOST, removeTempDirs, send, startAgent, startGate } from './harness';
import type { Agent, Gate } from './harness';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let agent: Agent;
let gate: Gate;
let quiet: Gate;
let adminPort: number;
let browser: Browser;
const keep = process.env['BOTSIG_GATE_SCREENSHOT_DIR'];
const shots = keep || mkdtempSync(join(tmpdir(), 'botsig-gate-shot-'));

beforeAll(async () => {
  agent = await startAgent();
  adminPort = await freePort();
  [gate, quiet] = await Promise.all([
    startGate(gateConfig({ admin: { listen: `127.0.0.1:${adminPort}` } })),
    startGate(gateConfig({ live: false, metrics: false })),
  ]);
  browser = await chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS, timeout: 30_000 });
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([gate?.stop(), quiet?.stop()]);
  await agent?.close();
  await removeCli();
  removeTempDirs();
  if (!keep) rmSync(shots, { recursive: true, force: true });
});

function ask(port: number, headers: Record<string, string>, target: string) {
  return send(port, '/auth', {
    headers: { ...headers, 'x-forwarded-method': 'GET', 'x-forwarded-uri': target, 'x-forwarded-host': HOST, 'x-forwarded-proto': 'http' },
  });
}

describe('the live page', () => {
  it('loads in Chromium, shows a verification that just happened, and is captured in a screenshot', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    const response = await page.goto(`http://127.0.0.1:${adminPort}/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'sha256-");
    expect(await page.title()).toBe('botsig gate');
    await expect(page.locator('#recent tbody tr').count()).resolves.toBe(0);

    // A verification and a refusal after the page loaded: the page's script shows them (no reload).
    expect((await ask(gate.port, await agent.sign('/live'), '/live')).status).toBe(200);
    expect((await ask(gate.port, { host: HOST }, '/unsigned')).status).toBe(403);
    const verified = page.locator('#recent tbody tr', { hasText: 'verified' }).filter({ hasText: agent.id });
    await verified.first().waitFor({ timeout: 10_000 });
    await page.locator('#recent tbody tr', { hasText: 'ERR_NO_SIGNATURE' }).first().waitFor({ timeout: 10_000 });
    expect(await page.locator('#recent tbody tr').count()).toBe(2);
    const agentRow = page.locator('#agents tbody tr', { hasText: agent.id });
    expect(await agentRow.locator('td').nth(1).textContent()).toBe('1');
    const directoryRow = page.locator('#directories tbody tr', { hasText: `${agent.url}/.well-known/http-message-signatures-directory` });
    expect(await directoryRow.locator('td').nth(1).textContent()).toBe('fresh');
    expect(await page.locator('#totals').textContent()).toContain('1 verified');

    const file = join(shots, 'live-page.png');
    await page.screenshot({ path: file, fullPage: true });
    expect(statSync(file).size).toBeGreaterThan(5_000);
    // No CSP violation or script error: the inline script and style run by their hashes.
    expect(problems).toEqual([]);
    await page.close();
  });

  it('is on the admin listener only; the auth listener answers 404 there, and it can be turned off', async () => {
    expect((await send(gate.port, '/')).status).toBe(404);
    expect((await send(gate.port, '/metrics')).status).toBe(404);
    expect((await send(adminPort, '/metrics')).status).toBe(200);
    expect((await send(adminPort, '/auth')).status).toBe(404);
    expect((await send(quiet.port, '/')).status).toBe(404);
    expect((await send(quiet.port, '/metrics')).status).toBe(404);
    expect((await send(quiet.port, '/healthz')).status).toBe(200);
  });
});
