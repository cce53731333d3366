#!/usr/bin/env node
// Types that stand alone: botsig's emitted declarations compile in a consumer project
// with `skipLibCheck: false`, both
//
//   - with `lib: ["ES2022"]` and `types: ["node"]` only (a Node project without the DOM
//     library: no global CryptoKey, RequestInfo, …), and
//   - with the DOM library as well (a browser, Worker or full-stack project),
//
// each under module/moduleResolution node16 (an ESM `.mts` file), nodenext (an ESM `.mts`
// file and a CommonJS `.cts` file, whose imports are require() calls of the ESM-only
// package: TypeScript >= 5.8 accepts that under nodenext, as Node ^20.19 and >= 22.12 do)
// and bundler. The project imports every entry of package.json `exports` and uses the
// signatures that take WebCrypto keys and fetch functions with the types each setting
// has: Node's `webcrypto.CryptoKey` everywhere, the DOM's `CryptoKey` and `fetch` where
// the DOM library is loaded.
//
// Run after `npm run build` (npm run check:package calls it).
// Usage: node scripts/check-types.mjs [--pkg DIR] [--keep]
//   --pkg DIR  the package directory (default: the repository; needs dist/)
//   --keep     leave the temporary project in place and print its path
// Exit status: 0 when every setting compiles, 1 otherwise, 2 on a usage error.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const args = { pkg: ROOT, keep: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--pkg' && argv[i + 1] !== undefined) args.pkg = resolve(argv[++i]);
    else if (argv[i] === '--keep') args.keep = true;
    else return undefined;
  }
  return args;
}

/** `botsig`, `botsig/directory`, … from package.json `exports`. */
function entries(pkgDir) {
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  return Object.keys(pkg.exports)
    .filter((k) => k !== './package.json')
    .map((k) => (k === '.' ? 'botsig' : `botsig/${k.slice(2)}`));
}

/** Every entry's module type, so that each declaration file is read. */
function importEveryEntry(specs) {
  return specs.map((s, i) => `export type Entry${i} = typeof import('${s}');`).join('\n');
}

/** Uses that need the WebCrypto and fetch types to line up with the platform's. */
const NODE_USES = `
import { webcrypto } from 'node:crypto';
import { importSigningKey, importVerifyingKey, signRequest, signResponse, type WebCryptoKey } from 'botsig';
import { createSignedFetch } from 'botsig/fetch';

declare const privateKey: webcrypto.CryptoKey;
declare const publicKey: webcrypto.CryptoKey;
declare const pair: webcrypto.CryptoKeyPair;

export async function uses(): Promise<void> {
  await importSigningKey(privateKey);
  await importSigningKey(pair);
  await importVerifyingKey(publicKey);
  const asStructural: WebCryptoKey = privateKey;
  await importSigningKey(asStructural);
  const message = { method: 'GET', url: 'https://shop.example/', headers: {} as Record<string, string> };
  Object.assign(message.headers, await signRequest(message, { key: await importSigningKey(pair), signatureAgent: 'https://crawler.example' }));
  await signResponse({ status: 200, headers: {}, body: 'ok' }, { key: pair, request: message });
  const signedFetch = createSignedFetch({ key: pair, signatureAgent: 'https://crawler.example', fetch: globalThis.fetch });
  const response: Response = await signedFetch(new Request('https://shop.example/'));
  void response;
}
`;

const DOM_USES = `
import { importSigningKey, importVerifyingKey, signRequest } from 'botsig';
import { createSignedFetch, type FetchFunction } from 'botsig/fetch';

declare const privateKey: CryptoKey;
declare const publicKey: CryptoKey;
declare const pair: CryptoKeyPair;

export async function domUses(): Promise<void> {
  await importSigningKey(privateKey);
  await importSigningKey(pair);
  await importVerifyingKey(publicKey);
  const request = new Request('https://shop.example/');
  await signRequest(request, { key: await importSigningKey(pair), signatureAgent: 'https://crawler.example' });
  const platformFetch: FetchFunction = window.fetch;
  const signedFetch = createSignedFetch({ key: privateKey, signatureAgent: 'https://crawler.example', fetch: platformFetch });
  const asPlatform: typeof fetch = signedFetch;
  void asPlatform;
}
`;

const SETTINGS = [
  { name: 'ES2022 + @types/node, node16', lib: ['es2022'], module: 'node16', dom: false },
  { name: 'ES2022 + @types/node, nodenext (.mts and .cts)', lib: ['es2022'], module: 'nodenext', dom: false },
  { name: 'ES2022 + @types/node, bundler', lib: ['es2022'], module: 'bundler', dom: false },
  { name: 'ES2022 + DOM + @types/node, node16', lib: ['es2022', 'dom', 'dom.iterable'], module: 'node16', dom: true },
  { name: 'ES2022 + DOM + @types/node, nodenext (.mts and .cts)', lib: ['es2022', 'dom', 'dom.iterable'], module: 'nodenext', dom: true },
  { name: 'ES2022 + DOM + @types/node, bundler', lib: ['es2022', 'dom', 'dom.iterable'], module: 'bundler', dom: true },
];

function createProject(pkgDir, setting, specs) {
  const dir = mkdtempSync(join(tmpdir(), 'botsig-types-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@types'), { recursive: true });
  symlinkSync(pkgDir, join(modules, 'botsig'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(modules, '@types', 'node'), 'dir');
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'botsig-types-check', private: true, type: 'module' }, null, 2)}\n`);
  const node = setting.module !== 'bundler';
  const files = [];
  const write = (name, text) => {
    writeFileSync(join(dir, name), text);
    files.push(name);
  };
  const ext = node ? '.mts' : '.ts';
  write(`entries${ext}`, `${importEveryEntry(specs)}\n`);
  write(`uses${ext}`, NODE_USES);
  if (setting.dom) write(`dom-uses${ext}`, DOM_USES);
  // A CommonJS file: its imports are require() calls, resolved with the `require` condition.
  if (setting.module === 'nodenext') write('entries.cts', `${importEveryEntry(specs)}\n`);
  const compilerOptions = {
    target: 'es2022',
    lib: setting.lib,
    types: ['node'],
    module: node ? setting.module : 'esnext',
    moduleResolution: node ? setting.module : 'bundler',
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    forceConsistentCasingInFileNames: true,
  };
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify({ compilerOptions, files }, null, 2)}\n`);
  return dir;
}

async function compile(dir, pkgDir) {
  const { default: ts } = await import(pathToFileURL(join(ROOT, 'node_modules', 'typescript', 'lib', 'typescript.js')).href);
  const config = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (config === undefined) return { errors: ['tsconfig.json could not be read'], read: 0 };
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const dist = join(realpathSync(pkgDir), 'dist') + sep;
  const read = program.getSourceFiles().filter((f) => resolve(f.fileName).startsWith(dist)).length;
  const errors = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
      if (d.file === undefined || d.start === undefined) return `error TS${d.code}: ${text}`;
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${relative(dir, d.file.fileName)}:${line + 1}:${character + 1}: error TS${d.code}: ${text}`;
    });
  return { errors, read };
}

async function main(argv) {
  const args = parseArgs(argv);
  if (args === undefined) {
    console.error('usage: node scripts/check-types.mjs [--pkg DIR] [--keep]');
    return 2;
  }
  if (!existsSync(join(args.pkg, 'dist', 'index.d.ts'))) {
    console.error(`check-types: ${join(args.pkg, 'dist', 'index.d.ts')} not found; run \`npm run build\` first`);
    return 1;
  }
  const specs = entries(args.pkg);
  let failed = 0;
  for (const setting of SETTINGS) {
    const dir = createProject(args.pkg, setting, specs);
    try {
      const { errors, read } = await compile(dir, args.pkg);
      if (errors.length === 0) {
        console.log(`check-types: ${setting.name}, skipLibCheck false: ${specs.length} entries compile (${read} declaration files read)`);
      } else {
        failed++;
        console.log(`check-types: ${setting.name}, skipLibCheck false: ${errors.length} error${errors.length === 1 ? '' : 's'}`);
        for (const e of errors.slice(0, 40)) console.log(`  ${e}`);
      }
    } finally {
      if (args.keep) console.log(`check-types: project kept in ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    }
  }
  return failed === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error('check-types:', error);
    process.exitCode = 1;
  },
);
