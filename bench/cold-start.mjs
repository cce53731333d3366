// Cold start: how long a fresh `node` process takes to import each package, beside a
// process that imports nothing. Run alone (`node bench/cold-start.mjs`) or from
// bench/run.mjs. Uses the built dist/ for botsig (the package's own `exports`).
//
//   BENCH_COLD_RUNS=15   processes per target (median reported)
//
// Each run starts `node --input-type=module -e "<import>"` from the package root and
// times it from spawn to exit (wall clock). The child also reports the time its
// `import()` itself took (performance.now() around it), which leaves out Node's own
// start-up. Targets are interleaved, in alternating order, so drifting load touches all.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const COLD_START_TARGETS = [
  { name: '`node` alone (baseline)', specifier: undefined },
  { name: 'botsig', specifier: 'botsig' },
  { name: 'web-bot-auth 0.1.3', specifier: 'web-bot-auth' },
  { name: 'http-message-sig 0.3', specifier: 'http-message-sig' },
  { name: 'http-message-signatures 1.x', specifier: 'http-message-signatures' },
];

function once(specifier) {
  const code =
    specifier === undefined
      ? 'process.stdout.write("0")'
      : `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  const t0 = performance.now();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' });
  const total = performance.now() - t0;
  if (child.status !== 0) throw new Error(`cold start of ${specifier ?? 'node'} failed: ${child.stderr}`);
  return { total, imported: Number(child.stdout) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Median whole-process and in-process import times (ms) per target. */
export async function coldStart(runs = Number(process.env.BENCH_COLD_RUNS ?? 15)) {
  const samples = new Map(COLD_START_TARGETS.map((t) => [t.name, { total: [], imported: [] }]));
  for (const t of COLD_START_TARGETS) once(t.specifier); // warm the file system cache
  for (let r = 0; r < runs; r++) {
    const order = r % 2 === 0 ? COLD_START_TARGETS : [...COLD_START_TARGETS].reverse();
    for (const t of order) {
      const { total, imported } = once(t.specifier);
      samples.get(t.name).total.push(total);
      samples.get(t.name).imported.push(imported);
    }
  }
  const baseline = median(samples.get(COLD_START_TARGETS[0].name).total);
  return {
    runs,
    rows: COLD_START_TARGETS.map((t) => {
      const s = samples.get(t.name);
      const total = median(s.total);
      return { name: t.name, baseline: t.specifier === undefined, total, overBaseline: total - baseline, imported: median(s.imported) };
    }),
  };
}

/** The result as a Markdown table. */
export function coldStartTable({ runs, rows }) {
  const lines = [
    `Median of ${runs} processes per row, ${process.version}.`,
    '',
    '| import | process (ms) | over `node` alone (ms) | `import()` in the process (ms) |',
    '|---|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(`| ${r.name} | ${r.total.toFixed(1)} | ${r.baseline ? '—' : r.overBaseline.toFixed(1)} | ${r.baseline ? '—' : r.imported.toFixed(1)} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(coldStartTable(await coldStart()));
}
