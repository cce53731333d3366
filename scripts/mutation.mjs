#!/usr/bin/env node
// npm run test:mutation [-- <stryker options>]: a Stryker run (stryker.config.mjs), then the
// per-file gate (scripts/check-mutation.mjs). Options go to Stryker, e.g.
//
//   npm run test:mutation -- --mutate src/httpsig/base.ts
//   npm run test:mutation -- --mutate src/httpsig/base.ts,src/httpsig/components.ts --concurrency 2
//
// With --mutate, only the files of that run are checked against the baseline; without it (the
// whole scope, as CI runs it with BOTSIG_MUTATION=1), every recorded file must be in the report.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const partial = args.some((a) => a === '--mutate' || a === '-m' || a.startsWith('--mutate='));
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const run = spawnSync(npx, ['stryker', 'run', ...args], { stdio: 'inherit', shell: process.platform === 'win32' });
if (run.status !== 0) {
  console.error(`mutation: stryker exited with status ${run.status ?? run.signal}`);
  process.exit(run.status ?? 1);
}
const check = spawnSync(process.execPath, ['scripts/check-mutation.mjs', ...(partial ? [] : ['--all'])], { stdio: 'inherit' });
process.exit(check.status ?? 1);
