#!/usr/bin/env node
// npm run test:dist [-- <vitest options>]: the tests that reach botsig only through its
// public entries (src/index.ts, src/httpsig.ts, ... as package.json `exports` lists them),
// run a second time against the built package, dist/ (vitest.dist.config.ts maps each
// entry to its built file). The unit run tests the source; this one tests what npm ships,
// after tsup's syntax minification, which once dropped a `new` whose only effect was
// adding private fields while every unit test stayed green.
//
// A test file qualifies when neither it nor a test module it imports (helpers, fixtures)
// imports an internal module of src/, and it does not replace modules (vi.mock of a src
// path, vi.doMock, vi.resetModules). Run `npm run build` first.
//
//   node scripts/test-dist.mjs            run them
//   node scripts/test-dist.mjs --list     only print which files qualify and which do not, and why
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entries = new Set(
  Object.keys(pkg.exports)
    .filter((k) => k !== './package.json')
    .map((k) => join(root, 'src', `${k === '.' ? 'index' : k.slice(2)}.ts`)),
);
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g;
const MODULE_GAMES = /vi\.(resetModules|doMock)\(|vi\.mock\(\s*['"][^'"]*src\//;

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : [join(dir, d.name)]));
}

/** A source file for a relative specifier (extension optional). */
function sourceOf(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, base.replace(/\.js$/, '.ts'), base, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

const verdicts = new Map();
/** Why `file` cannot run against dist/ (undefined: it can), and whether it reaches src/ at all. */
function judge(file, seen = new Set()) {
  if (verdicts.has(file)) return verdicts.get(file);
  if (seen.has(file)) return { why: undefined, reaches: false };
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  let verdict = { why: undefined, reaches: false };
  if (MODULE_GAMES.test(text)) verdict = { why: 'replaces modules', reaches: true };
  for (const [, spec] of text.matchAll(SPECIFIER)) {
    if (verdict.why !== undefined) break;
    if (!spec.startsWith('.')) continue;
    const target = sourceOf(file, spec);
    if (target === undefined) continue;
    const rel = relative(root, target);
    if (rel.startsWith('src/')) {
      if (entries.has(target)) verdict.reaches = true;
      else verdict = { why: `imports ${rel}${file === target ? '' : ` (in ${relative(root, file)})`}`, reaches: true };
    } else if (rel.startsWith('test/') && target.endsWith('.ts')) {
      const inner = judge(target, seen);
      if (inner.why !== undefined) verdict = { why: inner.why.includes(' (in ') ? inner.why : `${inner.why} (in ${rel})`, reaches: true };
      else verdict.reaches ||= inner.reaches;
    }
  }
  verdicts.set(file, verdict);
  return verdict;
}

const tests = files(join(root, 'test'))
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
const run = [];
const left = [];
for (const file of tests) {
  const v = judge(file);
  if (v.why === undefined && v.reaches) run.push(relative(root, file));
  else if (v.why !== undefined) left.push(`${relative(root, file)}: ${v.why}`);
}

if (process.argv.includes('--list')) {
  console.log(`test:dist: ${run.length} of ${tests.length} test files run against dist/:`);
  for (const f of run) console.log(`  ${f}`);
  console.log(`${left.length} stay on src/ only:`);
  for (const f of left) console.log(`  ${f}`);
  process.exit(0);
}
if (!existsSync(join(root, 'dist', 'index.js'))) {
  console.error('test:dist: dist/ is missing; run npm run build first');
  process.exit(1);
}
console.log(`test:dist: ${run.length} of ${tests.length} test files, against dist/`);
const vitest = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.dist.config.ts', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, BOTSIG_DIST_TESTS: run.join(',') },
  },
);
process.exit(vitest.status ?? 1);
