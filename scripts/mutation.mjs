#!/usr/bin/env node
// npm run test:mutation [-- <options>]: a Stryker run (stryker.config.mjs), then the per-file
// gate (scripts/check-mutation.mjs). Options go to Stryker, e.g.
//
//   npm run test:mutation -- --mutate src/httpsig/base.ts
//   npm run test:mutation -- --mutate src/httpsig/base.ts,src/httpsig/components.ts --concurrency 2
//   npm run test:mutation -- --recorded      the files of scripts/mutation-baseline.json (what CI runs)
//
// With --mutate, only the files of that run are checked against the baseline; with --recorded
// or without either (the whole scope of stryker.config.mjs), every recorded file must be in the
// report. BOTSIG_MUTATION_TESTS narrows the test set (see vitest.mutation.config.ts);
// BOTSIG_MUTATION_SLOT=<name> keeps a run's sandbox and report apart (two runs side by side).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let args = process.argv.slice(2);
if (args.includes('--recorded')) {
  const files = Object.keys(JSON.parse(readFileSync('scripts/mutation-baseline.json', 'utf8')).files ?? {});
  if (files.length === 0) {
    console.error('mutation: --recorded, but scripts/mutation-baseline.json records no file');
    process.exit(1);
  }
  args = [...args.filter((a) => a !== '--recorded'), '--mutate', files.join(',')];
  console.log(`mutation: the ${files.length} recorded file(s): ${files.join(', ')}`);
}
const partial = !process.argv.includes('--recorded') && args.some((a) => a === '--mutate' || a === '-m' || a.startsWith('--mutate='));
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const run = spawnSync(npx, ['stryker', 'run', ...args], { stdio: 'inherit', shell: process.platform === 'win32' });
if (run.status !== 0) {
  console.error(`mutation: stryker exited with status ${run.status ?? run.signal}`);
  process.exit(run.status ?? 1);
}
const slot = (process.env.BOTSIG_MUTATION_SLOT ?? '').replace(/[^A-Za-z0-9_-]/g, '');
const report = slot === '' ? [] : ['--report', `reports/mutation/${slot}/mutation.json`];
const check = spawnSync(process.execPath, ['scripts/check-mutation.mjs', ...report, ...(partial ? [] : ['--all'])], { stdio: 'inherit' });
process.exit(check.status ?? 1);
