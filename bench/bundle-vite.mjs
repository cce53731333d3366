// What an application built with Vite (Rollup) loads up front for a `botsig` import, and
// with every chunk behind import(). Vite splits at botsig's import() boundaries by
// itself and drops the import() calls tree-shaking leaves unused (esbuild's splitting
// keeps chunks for those, which is why scripts/check-bundle.mjs's split figures are
// larger). After `npm run build`:
//
//   node bench/bundle-vite.mjs
//
// The package is resolved as an application resolves it (node_modules/botsig, a symlink
// to this repository in a temporary project), so package.json `exports` and
// `sideEffects` apply. Minified by Vite's default (esbuild); gzip level 9 per chunk, summed.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CASES = {
  '{ signRequest }': "import { signRequest } from 'botsig'; globalThis.x = signRequest;",
  '{ verifyRequest }': "import { verifyRequest } from 'botsig'; globalThis.x = verifyRequest;",
  '{ signRequest, verifyRequest }': "import { signRequest, verifyRequest } from 'botsig'; globalThis.x = [signRequest, verifyRequest];",
};

const dir = mkdtempSync(join(tmpdir(), 'botsig-vite-'));
try {
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'botsig'));
  const gz = (chunks) => chunks.reduce((n, c) => n + gzipSync(c.code, { level: 9 }).length, 0);
  console.log('| import | up front, gzip | every chunk, gzip | chunks |');
  console.log('|---|---:|---:|---:|');
  for (const [name, contents] of Object.entries(CASES)) {
    const file = join(dir, 'entry.js');
    writeFileSync(file, contents);
    const out = await build({
      root: dir,
      logLevel: 'silent',
      configFile: false,
      resolve: { preserveSymlinks: true },
      build: { write: false, modulePreload: false, rollupOptions: { input: file } },
    });
    const chunks = (Array.isArray(out) ? out[0] : out).output.filter((c) => c.type === 'chunk');
    const byName = new Map(chunks.map((c) => [c.fileName, c]));
    const seen = new Set();
    const visit = (f) => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const i of byName.get(f).imports) visit(i);
    };
    visit(chunks.find((c) => c.isEntry).fileName);
    const initial = [...seen].map((f) => byName.get(f));
    console.log(`| \`${name}\` | ${(gz(initial) / 1024).toFixed(1)} KiB | ${(gz(chunks) / 1024).toFixed(1)} KiB | ${chunks.length} |`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
