import * as esbuild from 'esbuild';
const [entry, target] = [process.argv[2], process.argv[3]];
const src = `import { ${entry} } from './src/index.ts'; globalThis.x = ${entry};`;
const r = await esbuild.build({ stdin: { contents: src, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, write: false, format: 'esm', platform: 'browser', minify: true, metafile: true, logLevel: 'silent' });
const inputs = r.metafile.inputs; const out = Object.values(r.metafile.outputs)[0].inputs;
// BFS over import graph restricted to files present in output
const start = process.argv[4] ?? 'src/profile/sign-request.ts';
const prev = new Map([[start, null]]); const q = [start];
while (q.length) { const f = q.shift(); for (const im of inputs[f]?.imports ?? []) { if (!out[im.path]) continue; if (!prev.has(im.path)) { prev.set(im.path, f); q.push(im.path); } } }
for (const t of Object.keys(out).filter((k) => k.includes(target))) { const chain = []; for (let f = t; f; f = prev.get(f)) chain.push(f); console.log(chain.reverse().join('\n  -> ')); }
