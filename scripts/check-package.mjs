#!/usr/bin/env node
// Package check (issue 14, "The package resolves everywhere"), run after `npm run build`:
//
// 1. `attw --pack .` (@arethetypeswrong/cli): every entry of package.json `exports`
//    must resolve, to declarations of the right module format, under node10,
//    node16 (from CommonJS and from ESM) and bundler; any problem fails;
// 2. publint on the packed files: any message fails, suggestions included;
// 3. scripts/package-resolution.mjs: a consumer project in os.tmpdir() type-checks
//    every entry with the repository's TypeScript (node16 .cts and .mts, node10,
//    bundler), Node require()s and import()s every entry, and BotsigError is one
//    brand across the CommonJS and ESM builds.
//
// Usage: node scripts/check-package.mjs   (npm run check:package)
// Exit status: 0 when all three are clean, 1 otherwise.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { checkResolution, ROOT } from './package-resolution.mjs';

function attw() {
  return new Promise((done) => {
    const bin = join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
    const args = [bin, '--pack', '.', '--format', 'table-flipped', '--profile', 'strict'];
    if (process.stdout.isTTY !== true) args.push('--no-color');
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
    child.on('error', (error) => {
      console.error('check-package: attw could not be started:', error);
      done(1);
    });
    child.on('close', (code, signal) => done(signal === null ? (code ?? 1) : 1));
  });
}

async function main() {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) {
    console.error('check-package: dist/ not found; run `npm run build` first');
    return 1;
  }
  let failed = 0;

  console.log('check-package: attw --pack .');
  const attwCode = await attw();
  if (attwCode !== 0) {
    console.log(`check-package: attw found problems (exit status ${attwCode})`);
    failed++;
  }

  console.log('check-package: publint (all levels; warnings and suggestions fail too)');
  const { messages, pkg } = await publint({ pkgDir: ROOT, level: 'suggestion', strict: true, pack: 'npm' });
  for (const m of messages) console.log(`PUBLINT ${m.type}: ${formatMessage(m, pkg, { color: false }) ?? m.code}`);
  if (messages.length === 0) console.log('check-package: publint: all good');
  else failed++;

  console.log('check-package: consumer project (types under node16 CJS/ESM, node10, bundler; require/import; dual-package errors)');
  const { problems } = await checkResolution(ROOT);
  for (const p of problems) console.log(`RESOLUTION ${p}`);
  if (problems.length === 0) console.log('check-package: every entry type-checks and loads; BotsigError is one brand across the CJS and ESM builds');
  else failed++;

  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error('check-package:', err);
    process.exitCode = 1;
  },
);
