#!/usr/bin/env node
// npm run lint: every static check, each run even when an earlier one fails, so that one
// run shows everything to fix. Exit status 1 if any failed. Each step is its own npm
// script too (npm run lint:format, lint:eslint, lint:layers, lint:core).
import { spawnSync } from 'node:child_process';

const STEPS = [
  ['lint:format', 'formatting (prettier --check; npm run format fixes it)'],
  ['lint:eslint', 'lint rules (eslint)'],
  ['lint:layers', 'layering and import cycles (scripts/check-layers.mjs)'],
  ['lint:core', 'isomorphic layers compile without Node types (tsconfig.core.json)'],
  ['lint:source', 'no pragmas, module-level memos or internal barrels in src/; tests by subject; equivalents current (scripts/check-source.mjs)'],
];

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const failed = [];
for (const [script, what] of STEPS) {
  console.log(`\nlint: ${what}`);
  const started = Date.now();
  const r = spawnSync(npm, ['run', '--silent', script], { stdio: 'inherit', shell: process.platform === 'win32' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status === 0) console.log(`lint: ${script} ok (${seconds} s)`);
  else {
    console.log(`lint: ${script} FAILED (${seconds} s)`);
    failed.push(script);
  }
}
console.log(failed.length === 0 ? '\nlint: all checks passed' : `\nlint: ${failed.length} of ${STEPS.length} checks failed: ${failed.join(', ')}`);
process.exitCode = failed.length === 0 ? 0 : 1;
