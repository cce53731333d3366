#!/usr/bin/env node
// The record of equivalent mutants: scripts/mutation/equivalents.json, one entry per piece of
// code whose mutants change nothing a caller can observe, keyed by file, function, mutator and
// the code itself (whitespace-normalised lines) and the function around it (or `<module>`), each with its reason. Nothing is marked in src/.
//
//   node scripts/mutation/equivalents.mjs          static check (npm run lint): every entry's code
//                                                  is still in its function; exit 1 names the stale ones
//
// scripts/check-mutation.mjs uses classify() on a Stryker report: a surviving mutant that an entry
// describes is counted as equivalent (left out of the score, as Stryker leaves out ignored ones),
// and an entry that describes no surviving or ignored mutant of a mutated file fails the run, so a
// record cannot outlive the code or the test situation it describes.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SourceIndex } from './source-map.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
export const EQUIVALENTS_PATH = `${HERE}equivalents.json`;

/** @typedef {{ file: string, function: string, mutators: string[], snippet: string[], reason: string }} Entry */

/** @returns {Entry[]} */
export function loadEquivalents(path = EQUIVALENTS_PATH) {
  const entries = JSON.parse(readFileSync(path, 'utf8'));
  for (const [i, e] of entries.entries()) {
    const ok =
      typeof e.file === 'string' &&
      typeof e.function === 'string' &&
      Array.isArray(e.mutators) &&
      e.mutators.length > 0 &&
      Array.isArray(e.snippet) &&
      e.snippet.length > 0 &&
      typeof e.reason === 'string' &&
      e.reason.trim() !== '';
    if (!ok) throw new Error(`equivalents.json entry ${i}: needs file, function, mutators[], snippet[] and a reason`);
  }
  return entries;
}

const covers = (entry, mutator) => entry.mutators.includes('all') || entry.mutators.includes(mutator);

/** Entries whose code is no longer in its function (static: no Stryker run needed). */
export function staleEntries(entries, read = (f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined)) {
  const indexes = new Map();
  const stale = [];
  for (const e of entries) {
    if (!indexes.has(e.file)) {
      const text = read(e.file);
      indexes.set(e.file, text === undefined ? undefined : new SourceIndex(e.file, text));
    }
    const idx = indexes.get(e.file);
    const found =
      idx !== undefined &&
      e.snippet.every((line) =>
        idx.linesOf(line).some((n) => {
          const text = idx.lines[n - 1];
          // the function around the line's first or last character (a line can open a nested function)
          return idx.scopesAt(n, text.search(/\S/) + 1).has(e.function) || idx.scopesAt(n, text.trimEnd().length).has(e.function);
        }),
      );
    if (!found) stale.push(e);
  }
  return stale;
}

/**
 * Which mutants of a Stryker JSON report the entries describe.
 * @returns {{ equivalent: Set<string>, unmatched: Entry[] }} mutant ids counted as equivalent, and the
 *   entries of the report's files that describe no mutant left alive (stale records)
 */
export function classify(report, entries, pathOf) {
  const equivalent = new Set();
  const matched = new Set();
  const inReport = new Set();
  for (const [name, data] of Object.entries(report.files ?? {})) {
    const file = pathOf(name);
    inReport.add(file);
    const mine = entries.filter((e) => e.file === file);
    if (mine.length === 0) continue;
    const idx = new SourceIndex(file, data.source ?? readFileSync(file, 'utf8'));
    for (const m of data.mutants ?? []) {
      if (m.status === 'Killed' || m.status === 'Timeout') continue;
      const { line, column } = m.location.start;
      const text = idx.lineText(line);
      let scopes;
      for (const e of mine) {
        if (!covers(e, m.mutatorName) || !e.snippet.includes(text)) continue;
        scopes ??= idx.scopesAt(line, column);
        if (!scopes.has(e.function)) continue;
        matched.add(e);
        if (m.status === 'Survived' || m.status === 'NoCoverage') equivalent.add(m.id);
      }
    }
  }
  return { equivalent, unmatched: entries.filter((e) => inReport.has(e.file) && !matched.has(e)) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const entries = loadEquivalents();
  const stale = staleEntries(entries);
  if (stale.length > 0) {
    console.error(`equivalents: ${stale.length} of ${entries.length} entries name code that is no longer in its function:`);
    for (const e of stale) console.error(`  ${e.file} ${e.function} [${e.mutators.join(',')}]: ${e.snippet[0]}`);
    console.error('Update the entry (the code moved or changed) or remove it (the code is gone), then run the mutation gate for the file.');
    process.exitCode = 1;
  } else console.log(`equivalents: ${entries.length} entries, each names code still in its function`);
}
