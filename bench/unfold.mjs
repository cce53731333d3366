// Unfolding obs-fold field lines (RFC 9112 §5.2, RFC 9421 §2.1) must be linear in the
// field's length: time to read a covered folded header of 64 KB, 512 KB and 1 MB,
// through the raw-message parser and the component layer, and the 1 MB / 64 KB ratio
// (16 for a linear algorithm, 256 for a quadratic one). Times are CPU time, best of
// several runs.
//
//   npm run build && node bench/unfold.mjs
//
// Environment: BENCH_BOTSIG=<dir> (another build, e.g. a copy of dist/ made before a change),
// UNFOLD_SIZES=65536,524288,1048576 (bytes), UNFOLD_LINE=16 (characters per folded line).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.BENCH_BOTSIG ?? 'dist';
const { componentValues, parseComponentIdentifier, parseRawHttpMessage, toHttpMessage } = await import(pathToFileURL(path.resolve(dir, 'httpsig.js')).href);

const sizes = (process.env.UNFOLD_SIZES ?? '65536,524288,1048576').split(',').map(Number);
const LINE = Number(process.env.UNFOLD_LINE ?? 16);
const id = parseComponentIdentifier('x-folded');

/** A field value of about `size` characters folded every LINE characters (CRLF SP). */
function folded(size) {
  const piece = 'a'.repeat(LINE - 3) + '\r\n ';
  return 'v' + piece.repeat(Math.ceil(size / LINE)) + 'z';
}

// CPU time of this process, in ms: on a shared machine, wall time also counts the
// time spent waiting for a core.
function cpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function time(fn) {
  const t0 = cpuMs();
  fn();
  return cpuMs() - t0;
}

function best(fn, runs) {
  let min = Infinity;
  for (let i = 0; i < runs; i++) min = Math.min(min, time(fn));
  return min;
}

const rows = [];
for (const size of sizes) {
  const value = folded(size);
  const raw = `GET / HTTP/1.1\r\nHost: example.com\r\nX-Folded: ${value}\r\n\r\n`;
  const runs = size <= 131072 ? 7 : 3;
  let out;
  const component = best(() => {
    // A fresh string each run: no memo anywhere can answer from an earlier run.
    const m = toHttpMessage({ url: 'https://example.com/', headers: { 'x-folded': value + ' ' } });
    out = componentValues(m, id)[0];
  }, runs);
  if (out.length !== value.length - 2 * Math.ceil(size / LINE)) throw new Error('unexpected unfolded length');
  const endToEnd = best(() => {
    const m = toHttpMessage(parseRawHttpMessage(raw));
    out = componentValues(m, id)[0];
  }, runs);
  rows.push({ size, component, endToEnd });
  console.log(`${String(size).padStart(8)} B  component ${component.toFixed(1).padStart(9)} ms   raw + component ${endToEnd.toFixed(1).padStart(9)} ms`);
}
const first = rows[0];
const last = rows[rows.length - 1];
console.log(
  `ratio ${last.size}/${first.size} B (x${last.size / first.size}): component ${(last.component / first.component).toFixed(1)}, raw + component ${(last.endToEnd / first.endToEnd).toFixed(1)}`,
);
