#!/usr/bin/env node
// Per-file mutation-score gate. Reads the JSON report of the last Stryker run
// (reports/mutation/mutation.json, written by `npm run test:mutation`) and compares each
// file's score with the one recorded in scripts/mutation-baseline.json. Exit status 1 when
// a file scores below its recorded value: a test that pinned a decision was lost, or new
// code came without tests that pin it.
//
//   node scripts/check-mutation.mjs            check the files of the report that have a recorded score
//   node scripts/check-mutation.mjs --all      also fail when a recorded file is missing from the report (whole-scope runs, CI)
//   node scripts/check-mutation.mjs --update   record the report's scores (raise them after killing survivors; lowering one needs a reason in review),
//                                              each with the fingerprint of the code it was measured on (scripts/mutation/fingerprint.mjs)
//   --report <path>, --baseline <path>         other files
//
// Score as Stryker computes it: detected (killed, timeout) / valid (detected, survived, no
// coverage), in percent. Ignored mutants (static ones, the ignorer plugin's patterns), the
// survivors that scripts/mutation/equivalents.json records as equivalent, and mutants that do
// not compile or crash the runner are not counted. An equivalents entry for a mutated file
// that describes no mutant left alive fails the run (the record is stale).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { classify, loadEquivalents } from './mutation/equivalents.mjs';
import { codeFingerprint } from './mutation/fingerprint.mjs';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const reportPath = resolve(option('--report', 'reports/mutation/mutation.json'));
const baselinePath = resolve(option('--baseline', 'scripts/mutation-baseline.json'));

if (!existsSync(reportPath)) {
  console.error(`check-mutation: no report at ${reportPath}; run npm run test:mutation first`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const baseline = existsSync(baselinePath) ? JSON.parse(readFileSync(baselinePath, 'utf8')) : { files: {} };
const recorded = baseline.files ?? {};

const DETECTED = new Set(['Killed', 'Timeout']);
const pathOf = (file) => file.replace(/\\/g, '/').replace(/^.*?(?=src\/)/, '');
const { equivalent, unmatched } = classify(report, loadEquivalents(), pathOf);

/** @returns {{ score: number, detected: number, valid: number, survived: number, noCoverage: number }} */
function scoreOf(mutants) {
  let detected = 0;
  let survived = 0;
  let noCoverage = 0;
  for (const m of mutants) {
    if (equivalent.has(m.id)) continue;
    if (DETECTED.has(m.status)) detected++;
    else if (m.status === 'Survived') survived++;
    else if (m.status === 'NoCoverage') noCoverage++;
  }
  const valid = detected + survived + noCoverage;
  // A file with no valid mutant (all ignored) cannot lose anything: 100.
  return { score: valid === 0 ? 100 : (detected / valid) * 100, detected, valid, survived, noCoverage };
}

/** Two decimals, rounded down, so that recording a score never makes the same run fail. */
const floor2 = (n) => Math.floor(n * 100 + 1e-9) / 100;

const rows = [];
for (const [file, data] of Object.entries(report.files ?? {})) {
  const path = pathOf(file);
  rows.push({ path, source: data.source, ...scoreOf(data.mutants ?? []) });
}
rows.sort((a, b) => a.path.localeCompare(b.path));

if (flag('--update')) {
  const sources = { ...baseline.sources };
  for (const r of rows) {
    recorded[r.path] = floor2(r.score);
    if (typeof r.source === 'string') sources[r.path] = codeFingerprint(r.source, r.path);
  }
  const sorted = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(baselinePath, `${JSON.stringify({ ...baseline, files: sorted(recorded), sources: sorted(sources) }, null, 2)}\n`);
  console.log(`check-mutation: recorded ${rows.length} file score(s) in ${baselinePath}`);
}

const failures = [];
console.log('file                                              score  recorded  killed/valid  survived  no-cov');
for (const r of rows) {
  const want = recorded[r.path];
  const mark = want === undefined ? '  (not recorded)' : floor2(r.score) < want ? '  BELOW RECORDED' : '';
  console.log(
    `${r.path.padEnd(48)} ${r.score.toFixed(2).padStart(6)}  ${want === undefined ? '     -' : want.toFixed(2).padStart(6)}  ${`${r.detected}/${r.valid}`.padStart(12)}  ${String(r.survived).padStart(8)}  ${String(r.noCoverage).padStart(6)}${mark}`,
  );
  if (want !== undefined && floor2(r.score) < want) failures.push(`${r.path}: ${r.score.toFixed(2)}% < recorded ${want}%`);
}
if (flag('--all')) {
  const seen = new Set(rows.map((r) => r.path));
  for (const path of Object.keys(recorded)) if (!seen.has(path)) failures.push(`${path}: recorded but not in the report`);
}

for (const e of unmatched) {
  failures.push(`${e.file}: equivalents entry (${e.function}, ${e.mutators.join(',')}: ${e.snippet[0]}) describes no mutant left alive: update or remove it`);
}

if (failures.length > 0) {
  console.error(`\ncheck-mutation: ${failures.length} file(s) below their recorded score or missing from the report:\n  ${failures.join('\n  ')}`);
  process.exitCode = 1;
} else console.log(`\ncheck-mutation: ${rows.length} file(s) at or above their recorded score`);
