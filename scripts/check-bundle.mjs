#!/usr/bin/env node
// Build check for the isomorphic `botsig` entry (issue 8, "Runtimes"):
//
// 1. Node-isms: bundle the built entries that the `browser`, `workerd` and default
//    `import` conditions of package.json select (dist/index.js for `botsig`,
//    dist/httpsig.js for `botsig/httpsig`) the way a browser
//    bundler and a Workers bundler would, and fail if anything in it imports a
//    Node builtin (`node:*` or a bare builtin name such as `crypto`), or refers to
//    the `process` or `Buffer` globals. The globals are found with esbuild's
//    `define`, which rewrites only real references to the free identifiers, so a
//    method named `process` or the word in a string is not a false positive.
// 2. Sizes: minified and gzipped bytes of three typical imports, tree-shaken by
//    esbuild for the browser, compared with scripts/size-budget.json.
//
// Usage: node scripts/check-bundle.mjs [--dist DIR] [--json] [--markdown]
//   --dist DIR   the built output to check (default: dist/, from `npm run build`)
//   --json       print the measurements as JSON instead of a table
//   --markdown   print the size table as Markdown (for README)
// Exit status: 0 when clean and within budget, 1 otherwise, 2 on a usage error.
import { readFileSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUDGET_FILE = join(ROOT, 'scripts', 'size-budget.json');

/** The three imports whose size is budgeted (keys match scripts/size-budget.json). */
export const SIZE_CASES = {
  signer: "import { signRequest } from 'botsig'; globalThis.x = signRequest;",
  verifier: "import { verifyRequest, DirectoryClient } from 'botsig'; globalThis.x = [verifyRequest, DirectoryClient];",
  all: "import * as b from 'botsig'; globalThis.x = b;",
};

/** How each target resolves packages: a browser bundler and a Workers bundler (wrangler). */
const TARGETS = {
  browser: { platform: 'browser' },
  workerd: { platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['browser', 'module', 'main'] },
};

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, m.split('/')[0]]));
const FORBIDDEN_GLOBALS = ['process', 'Buffer', 'global', 'setImmediate', '__dirname', '__filename'];
const MARK = '__BOTSIG_FORBIDDEN_GLOBAL_';

function isBuiltin(path) {
  if (path.startsWith('node:')) return true;
  return BUILTINS.has(path) || BUILTINS.has(path.split('/')[0]);
}

/** The isomorphic entries: package subpath → built file (what `browser`, `workerd` and `import` select). */
const ISOMORPHIC_ENTRIES = { '.': 'index.js', './httpsig': 'httpsig.js' };

/** Checks that the package.json export conditions a browser or Worker bundler follows lead to the isomorphic builds. */
function exportProblems() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const problems = [];
  for (const [subpath, file] of Object.entries(ISOMORPHIC_ENTRIES)) {
    const e = pkg.exports?.[subpath];
    const pick = (c) => (c === undefined || typeof c === 'string' ? c : c.import?.default ?? c.import ?? c.default);
    const targets = { browser: pick(e?.browser) ?? pick(e), workerd: pick(e?.workerd) ?? pick(e), import: pick(e) };
    for (const [cond, target] of Object.entries(targets)) {
      if (target !== `./dist/${file}`) problems.push(`package.json exports["${subpath}"] under "${cond}" resolves to ${JSON.stringify(target)}, not ./dist/${file}`);
    }
  }
  return problems;
}

/** Resolves `botsig` and `botsig/httpsig` to the built files and records every Node builtin that anything imports. */
function botsigPlugin(dist, builtinsSeen) {
  return {
    name: 'botsig-check',
    setup(build) {
      build.onResolve({ filter: /^botsig(\/httpsig)?$/ }, (args) => ({ path: join(dist, ISOMORPHIC_ENTRIES[args.path === 'botsig' ? '.' : './httpsig']) }));
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point' || !isBuiltin(args.path)) return undefined;
        builtinsSeen.push(`${args.path} (imported by ${args.importer.replace(ROOT + '/', '')})`);
        return { path: args.path, external: true };
      });
    },
  };
}

async function bundle(contents, dist, target, { minify, define = {}, builtinsSeen = [] }) {
  const result = await esbuild.build({
    stdin: { contents, resolveDir: ROOT, loader: 'js', sourcefile: 'check-entry.js' },
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    minify,
    legalComments: 'none',
    logLevel: 'silent',
    nodePaths: [join(ROOT, 'node_modules')],
    define,
    plugins: [botsigPlugin(dist, builtinsSeen)],
    ...TARGETS[target],
  });
  return result.outputFiles[0].text;
}

/**
 * Bundles the whole `botsig` entry for each target, unminified, and lists every
 * Node builtin import and every reference to a Node-only global.
 * @returns {Promise<string[]>} the problems found (empty when clean)
 */
export async function checkNodeIsms(dist = join(ROOT, 'dist')) {
  const problems = exportProblems();
  const define = {};
  for (const g of FORBIDDEN_GLOBALS) {
    define[g] = MARK + g;
    define[`globalThis.${g}`] = MARK + g;
  }
  for (const target of Object.keys(TARGETS)) {
    const builtinsSeen = [];
    const everything = "import * as b from 'botsig'; import * as h from 'botsig/httpsig'; globalThis.x = [b, h];";
    const text = await bundle(everything, dist, target, { minify: false, define, builtinsSeen });
    for (const b of builtinsSeen) problems.push(`[${target}] imports Node builtin ${b}`);
    // Left-over specifiers (a dynamic import that esbuild could not follow) and CommonJS requires.
    for (const m of text.matchAll(/\bimport\s*\(\s*["'`](node:[^"'`]*)|\brequire\s*\(\s*["'`]([^"'`]+)/g)) {
      const spec = m[1] ?? m[2];
      if (m[1] !== undefined || isBuiltin(spec)) problems.push(`[${target}] ${m[0]}…) in the bundle`);
    }
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      for (const m of line.matchAll(new RegExp(`${MARK}(\\w+)`, 'g'))) {
        problems.push(`[${target}] uses the Node global \`${m[1]}\` at bundle line ${i + 1}: ${line.trim().replaceAll(MARK, '').slice(0, 160)}`);
      }
    });
  }
  return problems;
}

/**
 * Minified and gzipped (zlib, level 9) sizes of each case in SIZE_CASES, bundled for the browser.
 * @returns {Promise<Record<string, { minified: number, gzip: number }>>}
 */
export async function measureSizes(dist = join(ROOT, 'dist')) {
  const out = {};
  for (const [name, contents] of Object.entries(SIZE_CASES)) {
    const text = await bundle(contents, dist, 'browser', { minify: true });
    const bytes = Buffer.from(text, 'utf8');
    out[name] = { minified: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  }
  return out;
}

/** Reads scripts/size-budget.json. */
export function readBudgets(file = BUDGET_FILE) {
  return JSON.parse(readFileSync(file, 'utf8')).budgets;
}

/** Compares measured sizes with the budgets; returns one message per overrun or missing budget. */
export function overBudget(sizes, budgets) {
  const problems = [];
  for (const [name, size] of Object.entries(sizes)) {
    const b = budgets[name];
    if (b === undefined) {
      problems.push(`no budget for "${name}" in scripts/size-budget.json`);
      continue;
    }
    for (const k of ['minified', 'gzip']) {
      if (size[k] > b[k]) problems.push(`${name}: ${k} ${size[k]} B is over the budget of ${b[k]} B (${b.why})`);
    }
  }
  return problems;
}

const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;

function table(sizes, budgets, markdown) {
  const rows = Object.entries(sizes).map(([name, s]) => {
    const b = budgets[name] ?? { minified: NaN, gzip: NaN };
    return [name, b.import ?? SIZE_CASES[name].split(';')[0], `${s.minified} (${kb(s.minified)})`, `${b.minified}`, `${s.gzip} (${kb(s.gzip)})`, `${b.gzip}`];
  });
  const head = ['case', 'import', 'minified B', 'budget', 'gzip B', 'budget'];
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
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--dist' && argv[i + 1] !== undefined) dist = resolve(argv[++i]);
    else if (a === '--json') json = true;
    else if (a === '--markdown') markdown = true;
    else {
      console.error(`check-bundle: unknown argument ${a}\nusage: node scripts/check-bundle.mjs [--dist DIR] [--json] [--markdown]`);
      return 2;
    }
  }
  if (!existsSync(join(dist, 'index.js'))) {
    console.error(`check-bundle: ${join(dist, 'index.js')} not found; run \`npm run build\` first`);
    return 1;
  }
  const nodeIsms = await checkNodeIsms(dist);
  const sizes = await measureSizes(dist);
  const budgets = readBudgets();
  const overruns = overBudget(sizes, budgets);
  if (json) {
    console.log(JSON.stringify({ dist, nodeIsms, sizes, budgets, overruns }, null, 2));
  } else {
    console.log(`check-bundle: ${Object.values(ISOMORPHIC_ENTRIES).map((f) => join(dist, f)).join(', ')} bundled for ${Object.keys(TARGETS).join(' and ')}`);
    console.log(nodeIsms.length === 0 ? 'check-bundle: no Node builtins, no process/Buffer/global references' : nodeIsms.map((p) => `NODE-ISM ${p}`).join('\n'));
    console.log(table(sizes, budgets, markdown));
    for (const o of overruns) console.log(`OVER BUDGET ${o}`);
  }
  return nodeIsms.length + overruns.length === 0 ? 0 : 1;
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
