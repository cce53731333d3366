import { readFileSync, readdirSync } from 'node:fs';
const dir = process.argv[2];
const f = readdirSync(dir).find((x) => x.endsWith('.cpuprofile'));
const p = JSON.parse(readFileSync(`${dir}/${f}`, 'utf8'));
const self = new Map();
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const counts = new Map();
for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
let total = 0;
for (const [id, c] of counts) { const n = byId.get(id); const cf = n.callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber}`; self.set(key, (self.get(key) ?? 0) + c); total += c; }
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 40));
for (const [k, v] of rows) console.log((100 * v / total).toFixed(2).padStart(6), k);
