#!/usr/bin/env node
// Build check for the isomorphic entries of botsig (issue 8, "Runtimes").
//
// 1. Node-isms: bundle the built files that the `browser`, `workerd` and default
//    `import` conditions of package.json select (dist/index.js for `botsig`,
//    dist/httpsig.js for `botsig/httpsig`) the way a browser bundler and a Workers
//    bundler would, lazy chunks included, and fail if anything in the result
//    imports a Node builtin (`node:*` or a bare builtin name such as `crypto`) or
//    refers to a Node-only global (`process`, `Buffer`, `global`, `setImmediate`,
//    `__dirname`, `__filename`). Globals are found with esbuild's `define`, which
//    rewrites only real references to the free identifiers (also as
//    `globalThis.X`), so a method named `process` or the word in a string is not a
//    false positive. Each finding names the module it comes from. A reference
//    that is known to be harmless (a dependency's guarded fallback) can be
//    allowed in scripts/size-budget.json `allowedNodeGlobals`, with a reason.
// 2. Sizes: minified and gzipped bytes of typical imports, tree-shaken by esbuild for
//    the browser, measured two ways:
//    - `worker`: one file, no code splitting (`--bundle --format=esm --platform=browser
//      --minify`), as wrangler bundles a Worker: every `import()` is inlined, so this is
//      what a Worker ships;
//    - with code splitting, as an application bundler would: `initial` is what loads up
//      front (the entry and its static imports), `total` adds the chunks behind `import()`.
//    Each is compared with its budget in scripts/size-budget.json; a case may also carry
//    a `target` (a size the project aims at and has not reached), printed beside it, and
//    enforced only with --targets.
//
// Usage: node scripts/check-bundle.mjs [--dist DIR] [--json] [--markdown] [--targets]
//   --dist DIR   the built output to check (default: dist/, from `npm run build`)
//   --json       print everything as JSON instead of text
//   --markdown   print the size table as Markdown (for README)
//   --targets    fail over a target too, not only over a budget
// Exit status: 0 when clean and within budget, 1 otherwise, 2 on a usage error.
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUDGET_FILE = join(ROOT, 'scripts', 'size-budget.json');

/** The imports whose size is budgeted (keys match scripts/size-budget.json). */
export const SIZE_CASES = {
  signer: "import { signRequest } from 'botsig'; globalThis.x = signRequest;",
  verifier: "import { verifyRequest } from 'botsig'; globalThis.x = verifyRequest;",
  both: "import { signRequest, verifyRequest } from 'botsig'; globalThis.x = [signRequest, verifyRequest];",
  discovery: "import { verifyRequest } from 'botsig'; import { DirectoryClient } from 'botsig/directory'; globalThis.x = [verifyRequest, DirectoryClient];",
  // examples/cloudflare-worker as it is written.
  origin:
    "import { challengeResponse, createVerifier } from 'botsig'; import { DirectoryClient } from 'botsig/directory'; globalThis.x = [challengeResponse, createVerifier, DirectoryClient];",
  delegation:
    "import { verifyRequest } from 'botsig'; import { DirectoryClient, certificateDelegation } from 'botsig/directory'; globalThis.x = [verifyRequest, DirectoryClient, certificateDelegation];",
  all: "import * as b from 'botsig'; globalThis.x = b;",
};

/**
 * The cases that must not carry the X.509 code of delegation by certificate (the
 * optional ASN.1 packages and the chain checks): it comes with `certificateDelegation`,
 * which these do not import.
 */
export const WITHOUT_X509 = ['signer', 'verifier', 'both', 'discovery', 'origin'];
const X509_INPUT = /(?:^|\/)(?:node_modules\/(?:asn1js|@peculiar)\/|src\/directory\/delegation\/(?:path|anchors|asn|certificate|signatures)\.ts)/;

/** The isomorphic entries: package subpath → built file (what `browser`, `workerd` and `import` select). */
const ISOMORPHIC_ENTRIES = {
  '.': 'index.js',
  './httpsig': 'httpsig.js',
  './directory': 'directory.js',
  './registry': 'registry.js',
  './sync': 'sync.js',
  './noble': 'noble.js',
};

/** How each target resolves packages: a browser bundler, and a Workers bundler (as wrangler does). */
const TARGETS = {
  browser: { platform: 'browser' },
  workerd: { platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['browser', 'module', 'main'] },
};

const BUILTINS = new Set(builtinModules);
const FORBIDDEN_GLOBALS = ['process', 'Buffer', 'global', 'setImmediate', '__dirname', '__filename'];
const MARK = '__BOTSIG_FORBIDDEN_GLOBAL_';

function isBuiltin(path) {
  if (path.startsWith('node:')) return true;
  return BUILTINS.has(path) || BUILTINS.has(path.split('/')[0]);
}

/** Checks that the export conditions a browser or Worker bundler follows lead to the isomorphic builds. */
function exportProblems() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const problems = [];
  const pick = (c) => (c === undefined || typeof c === 'string' ? c : (c.import?.default ?? c.import ?? c.default));
  for (const [subpath, file] of Object.entries(ISOMORPHIC_ENTRIES)) {
    const e = pkg.exports?.[subpath];
    const targets = { browser: pick(e?.browser) ?? pick(e), workerd: pick(e?.workerd) ?? pick(e), import: pick(e) };
    for (const [cond, target] of Object.entries(targets)) {
      if (target !== `./dist/${file}`)
        problems.push(`package.json exports["${subpath}"] under "${cond}" resolves to ${JSON.stringify(target)}, not ./dist/${file}`);
    }
  }
  return problems;
}

/**
 * `check-entry` is the snippet being bundled; `botsig` and `botsig/httpsig` resolve to
 * the built files in `dist`; every Node builtin anything imports is recorded and left external.
 */
function checkPlugin(dist, contents, builtinsSeen) {
  return {
    name: 'botsig-check',
    setup(build) {
      build.onResolve({ filter: /^check-entry$/ }, () => ({ path: 'check-entry.js', namespace: 'check' }));
      build.onLoad({ filter: /.*/, namespace: 'check' }, () => ({ contents, loader: 'js', resolveDir: ROOT }));
      build.onResolve({ filter: /^botsig(\/(httpsig|directory|registry|sync|noble))?$/ }, (args) => ({
        path: join(dist, ISOMORPHIC_ENTRIES[args.path === 'botsig' ? '.' : `.${args.path.slice('botsig'.length)}`]),
      }));
      build.onResolve({ filter: /.*/ }, (args) => {
        if (!isBuiltin(args.path)) return undefined;
        builtinsSeen.push(`${args.path} (imported by ${relative(ROOT, args.importer)})`);
        return { path: args.path, external: true };
      });
    },
  };
}

async function bundle(contents, dist, target, { minify, splitting = false, sourcemap = false, define = {}, builtinsSeen = [] }) {
  return esbuild.build({
    sourcemap,
    entryPoints: ['check-entry'],
    bundle: true,
    write: false,
    outdir: join(ROOT, '.check-bundle-out'), // not written (write: false); splitting needs a directory
    splitting,
    metafile: true,
    format: 'esm',
    target: 'es2022',
    minify,
    legalComments: 'none',
    logLevel: 'silent',
    nodePaths: [join(ROOT, 'node_modules')],
    define,
    plugins: [checkPlugin(dist, contents, builtinsSeen)],
    ...TARGETS[target],
  });
}

const B64 = new Map([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c, i) => [c, i]));

/**
 * The original source file of each generated line:column, from a source map v3
 * (esbuild chains the maps of dist/, so this names the file under src/ or node_modules/).
 * @returns {(line: number, column: number) => string | undefined} zero-based line and column
 */
function sourceLookup(map) {
  const lines = map.mappings.split(';');
  let src = 0;
  const decoded = lines.map((line) => {
    const segs = [];
    let col = 0;
    for (const seg of line.split(',')) {
      if (seg === '') continue;
      const fields = [];
      let value = 0;
      let shift = 0;
      for (const ch of seg) {
        const d = B64.get(ch);
        value += (d & 31) << shift;
        if (d & 32) {
          shift += 5;
        } else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      col += fields[0];
      if (fields.length > 1) src += fields[1];
      segs.push([col, fields.length > 1 ? src : -1]);
    }
    return segs;
  });
  return (line, column) => {
    const segs = decoded[line] ?? [];
    let best;
    for (const [col, s] of segs) {
      if (col > column) break;
      if (s >= 0) best = s;
    }
    if (best === undefined) best = segs.find(([, s]) => s >= 0)?.[1];
    return best === undefined ? undefined : map.sources[best];
  };
}

function shortPath(p) {
  const abs = resolve(join(ROOT, '.check-bundle-out'), p);
  const i = abs.lastIndexOf('/node_modules/');
  return i >= 0 ? abs.slice(i + 1) : relative(ROOT, abs);
}

/** Reads scripts/size-budget.json. */
export function readBudgetFile(file = BUDGET_FILE) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * Bundles `botsig` and `botsig/httpsig` for each target, unminified and without
 * splitting (so lazy chunks are in), and lists every Node builtin import and every
 * reference to a Node-only global that `allowed` does not cover.
 * @param {string} dist the built output
 * @param {Array<{ module: string, global: string, why: string }>} allowed
 * @returns {Promise<{ problems: string[], allowedHits: string[] }>}
 */
export async function checkNodeIsms(dist = join(ROOT, 'dist'), allowed = []) {
  const problems = exportProblems();
  const allowedHits = [];
  const define = {};
  for (const g of FORBIDDEN_GLOBALS) {
    define[g] = MARK + g;
    define[`globalThis.${g}`] = MARK + g;
  }
  const everything =
    "import * as b from 'botsig'; import * as h from 'botsig/httpsig'; import * as d from 'botsig/directory'; import * as s from 'botsig/sync'; import * as r from 'botsig/registry'; globalThis.x = [b, h, d, s, r];";
  for (const target of Object.keys(TARGETS)) {
    const builtinsSeen = [];
    const result = await bundle(everything, dist, target, { minify: false, sourcemap: 'external', define, builtinsSeen });
    const text = result.outputFiles.find((f) => f.path.endsWith('.js')).text;
    const lookup = sourceLookup(JSON.parse(result.outputFiles.find((f) => f.path.endsWith('.js.map')).text));
    for (const b of builtinsSeen) problems.push(`[${target}] imports the Node builtin ${b}`);
    // A require() esbuild could not bundle (a computed name) stays behind its `__require`
    // helper, which throws outside Node. Builtins required by name are caught above.
    if (/\bvar __require\b/.test(text)) problems.push(`[${target}] a require() call with a computed module name is left in the bundle`);
    const lines = text.split('\n');
    const seen = new Set();
    lines.forEach((line, i) => {
      for (const m of line.matchAll(new RegExp(`${MARK}(\\w+)`, 'g'))) {
        const source = lookup(i, m.index);
        const module = source === undefined ? '(unknown module)' : shortPath(source);
        const code = line.trim().replaceAll(MARK, '').slice(0, 140);
        const key = `${target} ${module} ${m[1]} ${code}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const ok = allowed.find((a) => a.global === m[1] && module.includes(a.module));
        const msg = `[${target}] \`${m[1]}\` in ${module}: ${code}`;
        if (ok) allowedHits.push(`${msg} (allowed: ${ok.why})`);
        else problems.push(msg);
      }
    });
  }
  return { problems, allowedHits };
}

function sizeOf(texts) {
  const minified = texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0);
  const gzip = texts.reduce((n, t) => n + gzipSync(Buffer.from(t, 'utf8'), { level: 9 }).length, 0);
  return { minified, gzip };
}

/**
 * Minified and gzipped (zlib level 9, per chunk, summed) sizes of each case in
 * SIZE_CASES, bundled for the browser: in one file without code splitting (`worker`),
 * and with code splitting (`initial`, `total`).
 * @returns {Promise<Record<string, { worker: { minified: number, gzip: number }, initial: { minified: number, gzip: number }, total: { minified: number, gzip: number } }>>}
 */
export async function measureSizes(dist = join(ROOT, 'dist')) {
  const out = {};
  for (const [name, contents] of Object.entries(SIZE_CASES)) {
    const single = await bundle(contents, dist, 'browser', { minify: true, splitting: false });
    const worker = sizeOf(single.outputFiles.filter((f) => f.path.endsWith('.js')).map((f) => f.text));
    const result = await bundle(contents, dist, 'browser', { minify: true, splitting: true });
    const outputs = result.metafile.outputs;
    const textOf = new Map(result.outputFiles.map((f) => [relative(ROOT, f.path), f.text]));
    // The snippet's own output (every lazy import() target is an entry point of the build too).
    const entry = Object.keys(outputs).find((k) => outputs[k].entryPoint === 'check:check-entry.js');
    if (entry === undefined) throw new Error(`check-bundle: no output for the ${name} snippet`);
    // Chunks reachable from the entry: through static imports only (what loads up
    // up front), or through dynamic import() too. esbuild also emits chunks for
    // import() calls that tree-shaking removed; those are unreachable and not counted.
    const reach = (kinds) => {
      const seen = new Set();
      const visit = (k) => {
        if (seen.has(k)) return;
        seen.add(k);
        for (const imp of outputs[k].imports) if (kinds.includes(imp.kind) && !imp.external) visit(imp.path);
      };
      visit(entry);
      return [...seen].map((k) => textOf.get(k));
    };
    out[name] = {
      worker,
      // Inputs that put bytes in the file (esbuild lists tree-shaken ones too, at 0 bytes).
      x509: Object.values(single.metafile.outputs).flatMap((o) =>
        Object.entries(o.inputs)
          .filter(([k, v]) => v.bytesInOutput > 0 && X509_INPUT.test(k))
          .map(([k]) => k),
      ),
      initial: sizeOf(reach(['import-statement'])),
      total: sizeOf(reach(['import-statement', 'dynamic-import'])),
    };
  }
  return out;
}

const PARTS = ['worker', 'initial', 'total'];

/** One message per case of {@link WITHOUT_X509} whose Worker file holds X.509 code, naming the first input. */
export function x509Leaks(sizes) {
  return WITHOUT_X509.filter((name) => sizes[name]?.x509.length > 0).map(
    (name) =>
      `${name}: the Worker file carries the X.509 code of delegation (${sizes[name].x509[0]}, ${sizes[name].x509.length} inputs) without importing certificateDelegation`,
  );
}

/** Compares measured sizes with the budgets; one message per overrun or missing budget. */
export function overBudget(sizes, budgets) {
  const problems = [];
  for (const [name, size] of Object.entries(sizes)) {
    const b = budgets[name];
    if (b === undefined) {
      problems.push(`no budget for "${name}" in scripts/size-budget.json`);
      continue;
    }
    for (const part of PARTS) {
      for (const k of ['minified', 'gzip']) {
        const limit = b[part]?.[k];
        if (typeof limit !== 'number') problems.push(`${name}: no ${part}.${k} budget`);
        else if (size[part][k] > limit) problems.push(`${name}: ${part} ${k} ${size[part][k]} B is over the budget of ${limit} B (${b.why})`);
      }
    }
  }
  return problems;
}

/** Compares measured sizes with the targets (`target.worker.gzip` and the like) where a case sets one. */
export function overTarget(sizes, budgets) {
  const problems = [];
  for (const [name, size] of Object.entries(sizes)) {
    const t = budgets[name]?.target;
    if (t === undefined) continue;
    for (const part of PARTS) {
      for (const k of ['minified', 'gzip']) {
        const limit = t[part]?.[k];
        if (typeof limit === 'number' && size[part][k] > limit)
          problems.push(`${name}: ${part} ${k} ${size[part][k]} B is over the target of ${limit} B (${(size[part][k] / limit).toFixed(2)}×)`);
      }
    }
  }
  return problems;
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

function table(sizes, budgets, markdown) {
  const head = [
    'case',
    'import',
    'one file (Worker), gzip',
    'one file, minified',
    'split: up front, minified',
    'gzip',
    'split: with import(), minified',
    'gzip',
  ];
  const cell = (v, limit, target) =>
    `${kib(v)} (budget ${typeof limit === 'number' ? kib(limit) : '-'}${typeof target === 'number' ? `, target ${kib(target)}` : ''})`;
  const rows = Object.entries(sizes).map(([name, s]) => {
    const b = budgets[name] ?? {};
    return [
      name,
      b.import ?? SIZE_CASES[name].split(';')[0],
      cell(s.worker.gzip, b.worker?.gzip, b.target?.worker?.gzip),
      cell(s.worker.minified, b.worker?.minified, b.target?.worker?.minified),
      cell(s.initial.minified, b.initial?.minified),
      cell(s.initial.gzip, b.initial?.gzip),
      cell(s.total.minified, b.total?.minified),
      cell(s.total.gzip, b.total?.gzip),
    ];
  });
  if (markdown) {
    return [
      `| ${head.join(' | ')} |`,
      `|${head.map(() => '---').join('|')}|`,
      ...rows.map((r) => `| ${r[0]} | \`${r[1]}\` | ${r.slice(2).join(' | ')} |`),
    ].join('\n');
  }
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
  return all.map((r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  ')).join('\n');
}

async function main(argv) {
  let dist = join(ROOT, 'dist');
  let json = false;
  let markdown = false;
  let targets = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dist' && argv[i + 1] !== undefined) dist = resolve(argv[++i]);
    else if (a === '--json') json = true;
    else if (a === '--markdown') markdown = true;
    else if (a === '--targets') targets = true;
    else {
      console.error(`check-bundle: unknown argument ${a}\nusage: node scripts/check-bundle.mjs [--dist DIR] [--json] [--markdown] [--targets]`);
      return 2;
    }
  }
  for (const f of Object.values(ISOMORPHIC_ENTRIES)) {
    if (!existsSync(join(dist, f))) {
      console.error(`check-bundle: ${join(dist, f)} not found; run \`npm run build\` first`);
      return 1;
    }
  }
  const file = readBudgetFile();
  const { problems, allowedHits } = await checkNodeIsms(dist, file.allowedNodeGlobals ?? []);
  const sizes = await measureSizes(dist);
  const overruns = overBudget(sizes, file.budgets);
  const missed = overTarget(sizes, file.budgets);
  const leaks = x509Leaks(sizes);
  if (json) {
    console.log(
      JSON.stringify(
        { dist, nodeIsms: problems, allowedNodeIsms: allowedHits, sizes, budgets: file.budgets, overruns, missedTargets: missed, x509Leaks: leaks },
        null,
        2,
      ),
    );
  } else {
    const entries = Object.values(ISOMORPHIC_ENTRIES).map((f) => relative(process.cwd(), join(dist, f)) || f);
    console.log(`check-bundle: ${entries.join(' and ')}, bundled for ${Object.keys(TARGETS).join(' and ')}`);
    if (problems.length === 0) console.log('check-bundle: no Node builtin imports, no process/Buffer/global references');
    for (const p of problems) console.log(`NODE-ISM ${p}`);
    for (const p of allowedHits) console.log(`allowed  ${p}`);
    console.log(table(sizes, file.budgets, markdown));
    for (const o of overruns) console.log(`OVER BUDGET ${o}`);
    for (const o of leaks) console.log(`X.509 LEAK ${o}`);
    for (const o of missed) console.log(`${targets ? 'OVER TARGET' : 'target not met'} ${o}`);
  }
  return problems.length + overruns.length + leaks.length + (targets ? missed.length : 0) === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error('check-bundle:', err);
      process.exitCode = 1;
    },
  );
}
