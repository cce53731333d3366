// Load time and bundle size, botsig beside the peers (issue 16). After `npm run build`:
//
//   node bench/load.mjs [--runs 21] [--json FILE] [--no-check]
//
// 1. Import time: a fresh `node` process per sample imports one package and reports how
//    long its `import()` took (performance.now() around it, so Node's own start-up is
//    left out). Targets are interleaved in rotating order, so the machine's drift
//    touches all; each figure is the median over the runs. The botsig / web-bot-auth
//    ratio is the median of the per-round ratios (the two imports of one round run
//    back to back). Budget: botsig ≤ 15 ms and < 0.8× web-bot-auth.
// 2. Bundle size: esbuild bundles of the typical imports for the browser (minified,
//    ESM, code splitting, gzip level 9 per file, summed), as scripts/check-bundle.mjs
//    measures botsig (`initial` = what loads up front; `first call` adds the lazy
//    chunks the first call with a JWK key loads; `all` = every chunk). The peers have
//    no lazy parts. Budgets: `{ signRequest }` ≤ 8 KiB, `{ verifyRequest }` ≤ 20 KiB,
//    up front.
// Exit status 1 when a budget is not met (unless --no-check).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(value('--runs', process.env.BENCH_LOAD_RUNS ?? 21));

const IMPORT_TARGETS = [
  { name: 'botsig', specifier: 'botsig' },
  { name: 'web-bot-auth 0.1.3', specifier: 'web-bot-auth' },
  { name: 'http-message-sig 0.3', specifier: 'http-message-sig' },
  { name: 'http-message-signatures 1.x', specifier: 'http-message-signatures' },
];

function importOnce(specifier) {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' }));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export function measureImports(runs = RUNS) {
  const samples = new Map(IMPORT_TARGETS.map((t) => [t.name, []]));
  const ratios = [];
  for (const t of IMPORT_TARGETS) importOnce(t.specifier); // warm the file system cache
  for (let r = 0; r < runs; r++) {
    const order = IMPORT_TARGETS.map((_, i) => IMPORT_TARGETS[(i + r) % IMPORT_TARGETS.length]);
    const round = new Map();
    for (const t of order) round.set(t.name, importOnce(t.specifier));
    for (const [name, ms] of round) samples.get(name).push(ms);
    ratios.push(round.get('botsig') / round.get('web-bot-auth 0.1.3'));
  }
  return {
    runs,
    rows: IMPORT_TARGETS.map((t) => ({ name: t.name, medianMs: median(samples.get(t.name)), minMs: Math.min(...samples.get(t.name)) })),
    botsigOverWebBotAuth: median(ratios),
  };
}

const DIST = { botsig: 'index.js', 'botsig/directory': 'directory.js' };
const BUNDLE_CASES = [
  { name: 'botsig `{ signRequest }`', contents: "import { signRequest } from 'botsig'; globalThis.x = signRequest;", budgetGzip: 8 * 1024 },
  { name: 'botsig `{ verifyRequest }`', contents: "import { verifyRequest } from 'botsig'; globalThis.x = verifyRequest;", budgetGzip: 20 * 1024 },
  {
    name: 'botsig `{ verifyRequest }` + `{ DirectoryClient }` (botsig/directory)',
    contents: "import { verifyRequest } from 'botsig'; import { DirectoryClient } from 'botsig/directory'; globalThis.x = [verifyRequest, DirectoryClient];",
  },
  { name: 'botsig, everything (`import *`)', contents: "import * as b from 'botsig'; globalThis.x = b;" },
  {
    name: 'web-bot-auth 0.1.3 sign (`signatureHeaders` + `signerFromJWK`)',
    contents:
      "import { signatureHeaders } from 'web-bot-auth'; import { signerFromJWK } from 'web-bot-auth/crypto'; globalThis.x = [signatureHeaders, signerFromJWK];",
  },
  {
    name: 'web-bot-auth 0.1.3 verify (`verify` + `verifierFromJWK`)',
    contents: "import { verify } from 'web-bot-auth'; import { verifierFromJWK } from 'web-bot-auth/crypto'; globalThis.x = [verify, verifierFromJWK];",
  },
  {
    name: 'web-bot-auth 0.1.3 sign + verify',
    contents:
      "import { signatureHeaders, verify } from 'web-bot-auth'; import { signerFromJWK, verifierFromJWK } from 'web-bot-auth/crypto'; globalThis.x = [signatureHeaders, verify, signerFromJWK, verifierFromJWK];",
  },
  {
    name: 'http-message-sig 0.3 (`createSignature` + `verifySignature` + `webcrypto`)',
    contents: "import { createSignature, verifySignature, webcrypto } from 'http-message-sig'; globalThis.x = [createSignature, verifySignature, webcrypto];",
  },
];

export async function measureBundles() {
  const rows = [];
  for (const c of BUNDLE_CASES) {
    const result = await esbuild.build({
      stdin: { contents: c.contents, resolveDir: ROOT, sourcefile: 'bench-entry.js' },
      bundle: true,
      write: false,
      outdir: join(ROOT, '.bench-load-out'),
      splitting: true,
      metafile: true,
      format: 'esm',
      platform: 'browser',
      minify: true,
      legalComments: 'none',
      logLevel: 'silent',
      plugins: [
        {
          name: 'botsig-dist',
          setup(build) {
            build.onResolve({ filter: /^botsig(\/directory)?$/ }, (a) => ({ path: join(ROOT, 'dist', DIST[a.path]) }));
          },
        },
      ],
    });
    const outputs = result.metafile.outputs;
    const text = new Map(result.outputFiles.map((f) => [resolve(f.path), f.contents]));
    const entry = Object.keys(outputs).find((k) => outputs[k].entryPoint === 'bench-entry.js');
    const reach = (follow) => {
      const seen = new Set();
      const visit = (k) => {
        if (seen.has(k)) return;
        seen.add(k);
        for (const i of outputs[k].imports) if (!i.external && follow(i)) visit(i.path);
      };
      visit(entry);
      return seen;
    };
    const size = (files) => {
      let minified = 0;
      let gzip = 0;
      for (const f of files) {
        const bytes = text.get(resolve(ROOT, f));
        minified += bytes.length;
        gzip += gzipSync(bytes, { level: 9 }).length;
      }
      return { minified, gzip };
    };
    const initial = reach((i) => i.kind === 'import-statement');
    // The first signRequest / verifyRequest with a JWK also loads the key import (and the
    // verifier its option checks and default nonce store): lazy files named key-import*,
    // verify-options, memory-nonce-store (not key discovery: a static key never loads it).
    const firstCall = reach((i) => i.kind === 'import-statement' || /\/(signing|verifying|options|memory-nonce-store)-\w+\.js$/.test(i.path));
    rows.push({ name: c.name, initial: size(initial), firstCall: size(firstCall), all: size(reach(() => true)), budgetGzip: c.budgetGzip });
  }
  return rows;
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

export function importTable(imports) {
  const lines = [`Median of ${imports.runs} fresh processes each, \`import()\` time inside the process, ${process.version}.`, ''];
  lines.push('| package | import (ms), median | fastest (ms) |', '|---|---:|---:|');
  for (const r of imports.rows) lines.push(`| ${r.name} | ${r.medianMs.toFixed(1)} | ${r.minMs.toFixed(1)} |`);
  lines.push('', `botsig / web-bot-auth, median of the per-round ratios: **${imports.botsigOverWebBotAuth.toFixed(2)}×**`);
  return lines.join('\n');
}

export function bundleTable(bundles) {
  const lines = [
    '| bundle (esbuild, browser, minified) | up front: min / gzip | first call with a JWK: gzip | every chunk: gzip | budget (gzip, up front) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const r of bundles) {
    lines.push(
      `| ${r.name} | ${kib(r.initial.minified)} / ${kib(r.initial.gzip)} | ${kib(r.firstCall.gzip)} | ${kib(r.all.gzip)} | ${r.budgetGzip === undefined ? '' : kib(r.budgetGzip)} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const imports = measureImports();
  const bundles = await measureBundles();
  console.log(importTable(imports));
  console.log('');
  console.log(bundleTable(bundles));
  if (value('--json') !== undefined) writeFileSync(value('--json'), JSON.stringify({ imports, bundles }, null, 2));
  const problems = [];
  const botsig = imports.rows.find((r) => r.name === 'botsig');
  if (botsig.medianMs > 15) problems.push(`botsig imports in ${botsig.medianMs.toFixed(1)} ms, above the 15 ms budget`);
  if (imports.botsigOverWebBotAuth >= 0.8) problems.push(`botsig imports in ${imports.botsigOverWebBotAuth.toFixed(2)}× web-bot-auth's time, not below 0.8×`);
  for (const r of bundles)
    if (r.budgetGzip !== undefined && r.initial.gzip > r.budgetGzip)
      problems.push(`${r.name}: ${kib(r.initial.gzip)} gzip up front, above ${kib(r.budgetGzip)}`);
  for (const p of problems) console.log(`OVER BUDGET ${p}`);
  if (problems.length > 0 && !flag('--no-check')) process.exitCode = 1;
}
