#!/usr/bin/env node
/**
 * Summarises a V8 .cpuprofile (from `node bench/server-load.mjs --cpu-prof DIR`):
 * self time by function and by origin (botsig's build, node internals, web-bot-auth,
 * native code), and the inclusive time of a few functions of interest.
 *
 *   node bench/server-load/profile-summary.mjs FILE.cpuprofile [--top 30] [--focus name,name]
 *        [--within name] [--without name]
 *
 * --within keeps only the samples whose stack contains that function (e.g.
 * botsigMiddleware), --without drops those whose stack contains that one (e.g.
 * verifyOneShot, the Ed25519 verify itself): what remains is the middleware's own cost.
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const TOP = Number(opt('--top', 30));
const FOCUS = opt('--focus', '').split(',').filter(Boolean);
const WITHIN = opt('--within', undefined);
const WITHOUT = opt('--without', undefined);
if (!file) {
  console.error('usage: profile-summary.mjs FILE.cpuprofile [--top N] [--focus fn1,fn2]');
  process.exit(1);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Self time per node: the sample intervals attributed to it.
const allSelf = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  allSelf.set(id, (allSelf.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0));
}
const allTotal = [...allSelf.values()].reduce((a, b) => a + b, 0);
const onStack = (id, name) => {
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) if (nodes.get(cur).callFrame.functionName === name) return true;
  return false;
};
const self = new Map([...allSelf].filter(([id]) => (WITHIN === undefined || onStack(id, WITHIN)) && (WITHOUT === undefined || !onStack(id, WITHOUT))));
const total = [...self.values()].reduce((a, b) => a + b, 0);

function where(url) {
  if (url === '') return 'native / VM';
  if (url.includes('.dist-') || url.includes('/dist/')) return 'botsig (dist)';
  if (url.includes('web-bot-auth') || url.includes('http-message-sig')) return 'web-bot-auth';
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('bench/server-load')) return 'bench harness';
  return 'other';
}
const short = (url) => url.replace(/^.*\/(\.dist-[^/]+|dist|node_modules)\//, '$1/').replace(/^file:\/\//, '');

const byFn = new Map();
const byOrigin = new Map();
for (const [id, t] of self) {
  const { functionName, url, lineNumber } = nodes.get(id).callFrame;
  const key = `${functionName || '(anonymous)'}  ${short(url)}${url ? `:${lineNumber + 1}` : ''}`;
  byFn.set(key, (byFn.get(key) ?? 0) + t);
  const o = where(url);
  byOrigin.set(o, (byOrigin.get(o) ?? 0) + t);
}
const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${(allTotal / 1e6).toFixed(2)} s sampled`);
if (WITHIN !== undefined || WITHOUT !== undefined) {
  console.log(
    `selected (within ${WITHIN ?? 'all'}, without ${WITHOUT ?? 'none'}): ${(total / 1e6).toFixed(3)} s, ${((100 * total) / allTotal).toFixed(1)} % of all; percentages below are of the selection`,
  );
}
console.log('\nself time by origin');
for (const [o, t] of [...byOrigin].sort((a, b) => b[1] - a[1])) console.log(`  ${pct(t)}  ${o}`);
console.log(`\nself time, top ${TOP} functions`);
for (const [k, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${pct(t)}  ${k}`);

// Inclusive time of the focused functions (a node counts once even when recursive).
if (FOCUS.length > 0) {
  console.log('\ninclusive time');
  for (const name of FOCUS) {
    let t = 0;
    for (const [id, s] of self) {
      for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
        if (nodes.get(cur).callFrame.functionName === name) {
          t += s;
          break;
        }
      }
    }
    console.log(`  ${pct(t)}  ${name}`);
  }
}
