import * as esbuild from 'esbuild';
import { gzipSync } from 'node:zlib';
const which = process.argv[2]; const stubs = process.argv.slice(3);
const src = { sign: "import { signRequest } from './src/index.ts'; globalThis.x = signRequest;", verify: "import { verifyRequest } from './src/index.ts'; globalThis.x = verifyRequest;" }[which];
const plugin = { name: 'stub', setup(b) { b.onLoad({ filter: /\.ts$/ }, (a) => { for (const s of stubs) { const [file, exportsList] = s.split(':'); if (a.path.endsWith(file)) return { contents: exportsList.split(',').map((e) => `export const ${e} = undefined;`).join('\n'), loader: 'ts' }; } return undefined; }); } };
const r = await esbuild.build({ stdin: { contents: src, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, write: false, format: 'esm', platform: 'browser', minify: true, metafile: true, target: 'es2022', legalComments: 'none', logLevel: 'silent', plugins: [plugin] });
const text = r.outputFiles[0].text; console.log('min', text.length, 'gzip', gzipSync(text, { level: 9 }).length);
const out = Object.values(r.metafile.outputs)[0];
if (process.env.LIST) for (const [k, v] of Object.entries(out.inputs).map(([k, v]) => [k, v.bytesInOutput]).sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(String(v).padStart(7), k);
