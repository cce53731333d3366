/**
 * The package resolves everywhere (issue 14). The library (ESM only) is built with
 * the project's tsup config into a private snapshot in os.tmpdir() (package.json
 * beside it, node_modules linked to the repository's), independent of `dist/`,
 * which other builds may be rewriting. scripts/package-resolution.mjs then links
 * the snapshot into a consumer project as node_modules/botsig and
 * - type-checks every entry from CommonJS `.cts` files (nodenext, node20) and ESM
 *   `.mts` files (node16, nodenext), under node10 and under bundler, with the
 *   repository's TypeScript, checking which declaration file each one reached, and
 *   that a `.cts` file under node16 (which predates require(esm)) is refused;
 * - require()s and import()s every entry in Node without flags (`botsig` →
 *   dist/index.node.js), which needs require(esm): Node ^20.19 or >= 22.12;
 * - checks that require() and import() give one module graph: the same namespaces,
 *   one BotsigError class, one crypto provider, lazy chunks loading under require().
 * `npm run check:package` runs the same script against the real dist/ (plus attw,
 * publint, npm publish --dry-run and the size budgets).
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

function node(args: string[], cwd = ROOT): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      done({ code: err === null ? 0 : ((err as { code?: number }).code ?? 1), out: stdout + stderr });
    });
  });
}

let pkgDir = '';

beforeAll(async () => {
  pkgDir = mkdtempSync(join(tmpdir(), 'botsig-package-'));
  copyFileSync(join(ROOT, 'package.json'), join(pkgDir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(pkgDir, 'node_modules'), 'dir');
  const tsup = join(ROOT, 'node_modules', 'tsup', 'dist', 'cli-default.js');
  const r = await node([tsup, '--out-dir', join(pkgDir, 'dist'), '--silent']);
  if (r.code !== 0) throw new Error(`tsup could not build the snapshot:\n${r.out}`);
}, 240_000);

afterAll(() => {
  if (pkgDir !== '') rmSync(pkgDir, { recursive: true, force: true });
});

describe('the built package, as a consumer sees it', () => {
  it('every entry type-checks (CommonJS .cts and ESM .mts, node10, bundler), loads with require() and import(), and both are one module graph', async () => {
    const r = await node([join(ROOT, 'scripts', 'package-resolution.mjs'), '--pkg', pkgDir]);
    expect(r.out).not.toContain('RESOLUTION ');
    // Every code entry of package.json `exports` (all but ./package.json) is probed.
    const entries = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports);
    expect(r.out).toContain(`${entries.filter((e) => e !== './package.json').length} entries type-check`);
    expect(r.code, r.out).toBe(0);
  }, 240_000);
});
