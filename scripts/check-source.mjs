#!/usr/bin/env node
// npm run lint:source: what the codebase keeps out, checked so that it cannot come back.
//   - no mutation-tool pragmas in src/ (equivalents live in scripts/mutation/equivalents.json)
//   - no module-level `last…` memos: state that outlives a request belongs to the object that owns it
//   - no internal barrels: a file below src/<layer>/ that only re-exports (the entry files directly in
//     src/ are the public barrels)
//   - no test folders or files named by history (mutation rounds, sweeps) instead of by subject
//   - no source file over 600 lines (split it by what it holds)
//   - every equivalents entry still names code in its function (scripts/mutation/equivalents.mjs)
//   - every recorded mutation score whose code fingerprint is recorded (scripts/mutation-baseline.json,
//     `sources`) was measured on the code as it is now; scores recorded without one are listed
//   - tests import from an internal module no name a public entry exports as the same binding
//     (scripts/check-test-imports.mjs)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { testImportProblems } from './check-test-imports.mjs';
import { loadEquivalents, staleEntries } from './mutation/equivalents.mjs';
import { codeFingerprint } from './mutation/fingerprint.mjs';

const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? [path, ...walk(path)] : [path];
  });

const problems = [];
const srcFiles = walk('src').filter((f) => f.endsWith('.ts'));
for (const file of srcFiles) {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > 600) problems.push(`${file}: ${lines} lines (at most 600: split it by what it holds)`);
  text.split('\n').forEach((line, i) => {
    if (/Stryker\s+(disable|restore)/.test(line)) problems.push(`${file}:${i + 1}: a mutation-tool pragma`);
  });
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  for (const stmt of sf.statements) {
    if (ts.isVariableStatement(stmt) && !(stmt.declarationList.flags & ts.NodeFlags.Const)) {
      for (const d of stmt.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && /^last[A-Z]/.test(d.name.text)) {
          const { line } = sf.getLineAndCharacterOfPosition(d.getStart(sf));
          problems.push(`${file}:${line + 1}: module-level memo \`${d.name.text}\` (keep per-request state on the message, lasting state on its owner)`);
        }
      }
    }
  }
  const nested = relative('src', file).includes('/');
  const onlyReExports = sf.statements.length > 0 && sf.statements.every((s) => ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined);
  if (nested && onlyReExports) problems.push(`${file}: an internal barrel (import from the module that holds the code)`);
}
for (const path of walk('test')) {
  const rel = relative('test', path);
  if (/(^|\/)(mutation-pins|sweep-[^/]*|round-?\d+[^/]*)($|\/)/.test(rel)) problems.push(`test/${rel}: named by history, not by subject`);
}
const stale = staleEntries(loadEquivalents());
for (const e of stale) problems.push(`scripts/mutation/equivalents.json: ${e.file} ${e.function}: "${e.snippet[0]}" is no longer in its function`);
problems.push(...testImportProblems().problems);

// Mutation scores are claims about code: one measured on other code than today's no longer holds.
const baseline = JSON.parse(readFileSync('scripts/mutation-baseline.json', 'utf8'));
const unmeasured = [];
for (const path of Object.keys(baseline.files ?? {})) {
  const want = baseline.sources?.[path];
  if (!existsSync(path)) problems.push(`scripts/mutation-baseline.json: ${path} has a recorded score but no longer exists`);
  else if (want === undefined) unmeasured.push(path);
  else if (codeFingerprint(readFileSync(path, 'utf8'), path) !== want) {
    problems.push(
      `${path}: its code changed since its mutation score was recorded: run \`npm run test:mutation -- --mutate ${path}\` and record it (node scripts/check-mutation.mjs --update)`,
    );
  }
}
if (unmeasured.length > 0) {
  console.log(
    `check-source: ${unmeasured.length} recorded mutation score(s) not yet measured on the current code (no fingerprint):\n  ${unmeasured.join('\n  ')}`,
  );
}

if (problems.length > 0) {
  console.error(`check-source: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
} else
  console.log(
    `check-source: ${srcFiles.length} source files clean (none over 600 lines; no pragmas, memos, internal barrels; tests by subject, public names from public entries; equivalents current)`,
  );
