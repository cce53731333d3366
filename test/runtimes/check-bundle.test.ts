/**
 * scripts/check-bundle.mjs must flag real Node-isms and nothing else: it runs here
 * against two small stand-in builds (no tsup needed), one clean but full of
 * look-alikes, one with each kind of violation. The real dist/ is checked by
 * `npm run check:bundle` after the build.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './bundle';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const DIRECTORY = 'export class DirectoryClient {}\nexport const certificateDelegation = () => 5;\n';

function fakeDist(index: string, httpsig = 'export const parseSignature = () => 1;', directory = DIRECTORY): string {
  const dir = mkdtempSync(join(tmpdir(), 'botsig-check-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'index.js'), index);
  writeFileSync(join(dir, 'httpsig.js'), httpsig);
  writeFileSync(join(dir, 'directory.js'), directory);
  writeFileSync(join(dir, 'sync.js'), 'export const signRequestSync = () => 3;\n');
  writeFileSync(join(dir, 'noble.js'), 'export const withNobleFallback = () => 4;\n');
  writeFileSync(join(dir, 'registry.js'), 'export class RegistryClient {}\n');
  return dir;
}

function check(dist: string): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, 'scripts/check-bundle.mjs'), '--dist', dist], { cwd: ROOT }, (err, stdout, stderr) => {
      done({ code: err === null ? 0 : ((err as { code?: number }).code ?? 1), out: stdout + stderr });
    });
  });
}

const EXPORTS = 'export const signRequest = () => 1, verifyRequest = () => 2, createVerifier = () => 3, challengeResponse = () => 4;\n';

describe('scripts/check-bundle.mjs', () => {
  it('passes a build whose only "process" and "Buffer" are methods, keys, strings and locals', async () => {
    const dist = fakeDist(
      EXPORTS +
        `export function lookAlikes(process) {
  const o = { process: 1, Buffer: 2, node: 'node:fs' };
  this.process(o.process);
  const processed = 'process.env.X and Buffer.from and require("fs")';
  return [process.x, o.Buffer, processed];
}\n`,
    );
    const r = await check(dist);
    expect(r.out).toContain('no Node builtin imports, no process/Buffer/global references');
    expect(r.out).not.toContain('NODE-ISM');
    expect(r.out).not.toContain('X.509 LEAK');
    expect(r.code, r.out).toBe(0);
  }, 60_000);

  it('fails when a DirectoryClient that is given no delegation carries the ASN.1 code', async () => {
    const leaking = `import { fromBER } from 'asn1js';\nexport class DirectoryClient { parse(b) { return fromBER(b); } }\nexport const certificateDelegation = () => 5;\n`;
    const r = await check(fakeDist(EXPORTS, undefined, leaking));
    expect(r.code).toBe(1);
    // The path is relative to the build's directory: node_modules/asn1js/… beside it, or further up.
    expect(r.out).toMatch(/X\.509 LEAK discovery: the Worker file carries the X\.509 code of delegation \((\.\.\/)*([^ ()]*\/)?node_modules\/asn1js\//);
    expect(r.out).toMatch(/X\.509 LEAK origin:/);
    expect(r.out).not.toMatch(/X\.509 LEAK (signer|verifier|both):/);
  }, 60_000);

  it('fails on node: and bare builtin imports, require of a builtin, and process/Buffer/global references', async () => {
    const dist = fakeDist(
      EXPORTS +
        `import { createHash } from 'node:crypto';
import fs from 'fs';
export const a = () => [createHash, fs, process.env.X, globalThis.Buffer, global.x, setImmediate];\n`,
      `export const parseSignature = () => [require('zlib'), require(globalThis.name)];\n`,
    );
    const r = await check(dist);
    expect(r.code).toBe(1);
    for (const needle of [
      'imports the Node builtin node:crypto',
      'imports the Node builtin fs',
      'imports the Node builtin zlib',
      '`process` in',
      '`Buffer` in',
      '`global` in',
      '`setImmediate` in',
      'a require() call with a computed module name is left in the bundle',
    ]) {
      expect(r.out, needle).toContain(`[browser] ${needle}`);
      expect(r.out, needle).toContain(`[workerd] ${needle}`);
    }
  }, 60_000);
});
