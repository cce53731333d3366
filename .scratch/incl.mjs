import { readFileSync, readdirSync } from 'node:fs';
const dir = process.argv[2];
const f = readdirSync(dir).find((x) => x.endsWith('.cpuprofile'));
const p = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
let total = 0;
for (const s of p.samples) {
  total++;
  const seen = new Set();
  for (let id = s; id !== undefined; id = parent.get(id)) {
    const cf = byId.get(id).callFrame;
    const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-1)[0]}:${cf.lineNumber}`;
    if (seen.has(key)) continue; seen.add(key);
    incl.set(key, (incl.get(key) ?? 0) + 1);
  }
}
const rows = [...incl].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 50));
for (const [k, v] of rows) console.log((100 * v / total).toFixed(2).padStart(6), k);
