/**
 * scripts/check-layers.mjs on small source trees written to a temporary directory: it is
 * run the way `npm run lint` runs it (a child process; the exit status is the verdict).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'check-layers.mjs');
const made: string[] = [];

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path under src/ → contents) to a fresh directory; returns its src/. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'botsig-layers-'));
  made.push(dir);
  const src = join(dir, 'src');
  for (const [path, text] of Object.entries(files)) {
    const full = join(src, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  return src;
}

function check(src: string, ...flags: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [SCRIPT, src, ...flags], { cwd: dirname(src), encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** A tree where every import points down or sideways. */
const DOWNWARD = {
  'core/errors.ts': 'export class BotsigError extends Error {}\n',
  'core/base64.ts': "import { BotsigError } from './errors';\nexport const b = (): Error => new BotsigError();\n",
  'crypto/keys.ts': "import { b } from '../core/base64.js';\nexport const k = b;\n",
  'httpsig/sign.ts':
    "import { k } from '../crypto/keys';\nimport type { BotsigError } from '../core/errors';\nexport const s = k;\nexport type E = BotsigError;\n",
  'profile/sign-request.ts': "export { s } from '../httpsig/sign';\n",
  'directory/client.ts': "import { s } from '../profile/sign-request';\nexport const c = s;\n",
  'stores/memory.ts': "import { c } from '../directory/client';\nexport const m = c;\n",
  'verifier.ts': "import { m } from './stores/memory';\nexport const v = m;\n",
  'node/http.ts': "import { v } from '../verifier';\nimport { createServer } from 'node:http';\nexport const h = [v, createServer];\n",
  'adapters/express.ts': "import { h } from '../node/http';\nexport const e = h;\n",
  'cli/main.ts': "import { e } from '../adapters/express';\nexport const main = e;\n",
  'index.ts': "export * from './core/errors';\nexport { v } from './verifier';\nexport { main } from './cli/main';\n",
  'express.ts': "export * from './adapters/express';\n",
};

describe('check-layers', () => {
  it('passes a tree whose imports point down or stay in their layer, including entry files importing anything', () => {
    const r = check(tree(DOWNWARD));
    expect(r.out).toContain('check-layers: ok');
    expect(r.status).toBe(0);
  });

  it('catches an upward import, naming file:line, the specifier and the two layers', () => {
    const r = check(tree({ ...DOWNWARD, 'core/base64.ts': "// a comment first\nimport { k } from '../crypto/keys';\nexport const b = k;\n" }));
    expect(r.status).toBe(1);
    expect(r.out).toContain('Upward imports (1):');
    expect(r.out).toMatch(/core\/base64\.ts:2 imports \.\.\/crypto\/keys \(core → crypto\)/);
  });

  it('catches an import from an entry file or from src/verifier/** by a lower layer', () => {
    const r = check(
      tree({
        ...DOWNWARD,
        'verifier/options.ts': 'export const o = 1;\n',
        'profile/sign-request.ts': "import { o } from '../verifier/options';\nexport { s } from '../httpsig/sign';\nexport const p = o;\n",
        'adapters/fetch.ts': "import { v } from '../index';\nexport const f = v;\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/profile\/sign-request\.ts:1 imports \.\.\/verifier\/options \(profile → verifier\)/);
    expect(r.out).toMatch(/adapters\/fetch\.ts:1 imports \.\.\/index \(adapters → entry\)/);
  });

  it('lists type-only upward imports separately, and still fails on them', () => {
    const r = check(
      tree({
        ...DOWNWARD,
        'profile/types.ts':
          "import type { m } from '../stores/memory';\n" +
          "import { type c } from '../directory/client';\n" +
          "export type Key = typeof import('../directory/client').c;\n" +
          'export type M = typeof m | typeof c;\n',
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).not.toContain('Upward imports (');
    expect(r.out).toContain('Upward type-only imports (3):');
    expect(r.out).toMatch(/profile\/types\.ts:1 imports \.\.\/stores\/memory \(profile → stores\)/);
    expect(r.out).toMatch(/profile\/types\.ts:2 imports \.\.\/directory\/client \(profile → directory\)/);
    expect(r.out).toMatch(/profile\/types\.ts:3 imports \.\.\/directory\/client \(profile → directory\)/);
  });

  it('ignores imports in comments and strings, and package imports', () => {
    const r = check(
      tree({
        ...DOWNWARD,
        'core/url.ts':
          "/** @example import { v } from '../verifier'; */\nexport const text = \"import { x } from '../cli/main'\";\nimport { z } from 'zod';\nexport const y = z;\n",
      }),
    );
    expect(r.out).toContain('check-layers: ok');
    expect(r.status).toBe(0);
  });

  it('catches an import cycle within a layer, with the import line of each step', () => {
    const r = check(
      tree({
        ...DOWNWARD,
        'httpsig/signature-input.ts': "import { read } from './fast-fields';\nexport const parse = (): string => read();\nexport const NAME = 'x';\n",
        'httpsig/fast-fields.ts': "\nimport { NAME } from './signature-input.js';\nexport const read = (): string => NAME;\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toContain('Import cycles (1):');
    expect(r.out).toMatch(/httpsig\/fast-fields\.ts:2 → \S*httpsig\/signature-input\.ts:1 → \S*httpsig\/fast-fields\.ts/);
  });

  it('catches a longer cycle through folders (and the upward import that closes it)', () => {
    const r = check(
      tree({
        ...DOWNWARD,
        'core/errors.ts': "import { s } from '../httpsig/sign';\nexport class BotsigError extends Error {}\nexport const again = s;\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/core\/errors\.ts:1 imports \.\.\/httpsig\/sign \(core → httpsig\)/);
    expect(r.out).toContain('Import cycles (1):');
    const cycle = r.out.split('\n').find((l) => l.includes(' → ') && !l.includes('imports'));
    for (const m of ['core/base64.ts:1', 'core/errors.ts:1', 'crypto/keys.ts:1', 'httpsig/sign.ts:1']) expect(cycle).toContain(m);
  });

  it('notes a cycle closed by a type-only import without failing; --type-cycles fails on it', () => {
    const src = tree({
      ...DOWNWARD,
      'httpsig/signature-input.ts': "import { read } from './fast-fields';\nexport interface Params { n: number }\nexport const parse = read;\n",
      'httpsig/fast-fields.ts': "import type { Params } from './signature-input';\nexport const read = (p: Params): number => p.n;\n",
    });
    const loose = check(src);
    expect(loose.status).toBe(0);
    expect(loose.out).toMatch(/Note: cycles through type-only imports.*\n\s+\S*httpsig\/fast-fields\.ts:1 \(type\) → \S*httpsig\/signature-input\.ts:1 → /);
    const strict = check(src, '--type-cycles');
    expect(strict.status).toBe(1);
    expect(strict.out).toContain('Import cycles through type-only imports (1):');
  });

  it('does not count a lazy import() as a cycle edge, but holds it to the layer order', () => {
    const r = check(
      tree({
        ...DOWNWARD,
        'directory/lazy.ts': "import { c } from './client';\nexport const load = () => import('./client').then(() => c);\n",
        'directory/client.ts':
          "import { s } from '../profile/sign-request';\nexport const c = s;\nexport const l = () => import('./lazy');\nexport const up = () => import('../cli/main');\n",
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).not.toContain('Import cycles');
    expect(r.out).toMatch(/directory\/client\.ts:4 imports \.\.\/cli\/main \(directory → cli\)/);
  });

  it('fails on a folder that has no layer yet', () => {
    const r = check(tree({ ...DOWNWARD, 'util/x.ts': 'export const x = 1;\n' }));
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/util\/x\.ts: folder util\/ is in no layer/);
  });

  it('runs on the real tree (the verdict is the lint step’s; here only that it completes)', () => {
    const r = spawnSync(process.execPath, [SCRIPT], { cwd: ROOT, encoding: 'utf8' });
    expect([0, 1]).toContain(r.status);
    expect(r.stdout).toMatch(/^check-layers: (ok|FAILED), \d+ modules/m);
  });
});
