import * as esbuild from 'esbuild';
import { gzipSync } from 'node:zlib';
const which = process.argv[2] ?? 'sign';
const src = {
  sign: "import { signRequest } from './src/index.ts'; globalThis.x = signRequest;",
  verify: "import { verifyRequest } from './src/index.ts'; globalThis.x = verifyRequest;",
  both: "import { signRequest, verifyRequest } from './src/index.ts'; globalThis.x = [signRequest, verifyRequest];",
}[which];
const r = await esbuild.build({ stdin: { contents: src, resolveDir: process.cwd(), loader: 'ts' }, bundle: true, write: false, format: 'esm', platform: 'browser', minify: true, metafile: true, sourcemap: false, target: 'es2022', legalComments: 'none', logLevel: 'silent' });
const out = Object.values(r.metafile.outputs)[0];
const text = r.outputFiles[0].text;
console.log('min', text.length, 'gzip', gzipSync(text, { level: 9 }).length);
const rows = Object.entries(out.inputs).map(([k, v]) => [k, v.bytesInOutput]).sort((a, b) => b[1] - a[1]);
for (const [k, v] of rows.slice(0, Number(process.argv[3] ?? 60))) console.log(String(v).padStart(7), k);
