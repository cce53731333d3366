/**
 * Builds the runtime-matrix bundle: the isomorphic test files, bundled by esbuild
 * into one ES module for a browser or for workerd, with `vitest` replaced by
 * test/runtimes/vitest-shim.ts. The bundle exports `run(options)`, which loads
 * each test file in turn (lazily, so workerd evaluates the tests inside a request,
 * where crypto and timers are allowed), runs it and resolves to the counts.
 *
 * What may not run outside Node is refused at build time, not papered over:
 * a `node:*` (or bare builtin) import anywhere under src/ fails the build. Test
 * files under test/ may read fixtures with `node:fs`/`node:url` only; those two get
 * an in-bundle stand-in over the vector files (`FIXTURE_FS_USERS` lists who needs it).
 *
 * Node-only; used by test/runtimes/chromium.test.ts and workerd.test.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SHIM = join(ROOT, 'test/runtimes/vitest-shim.ts');

/** Directories whose every *.test.ts is isomorphic and runs in the matrix. */
const MATRIX_DIRS = ['test/core', 'test/crypto', 'test/httpsig', 'test/profile', 'test/stores'];

/** Single files from directories that also hold Node-only tests. */
const MATRIX_FILES = [
  'test/directory/document.test.ts',
  'test/directory/rotation.test.ts',
  'test/directory/response-signatures.test.ts',
  'test/directory/http-cache.test.ts',
  'test/directory/document-cases.test.ts',
  'test/directory/document-rules-cases.test.ts',
  'test/directory/outbound-cases.test.ts',
  'test/directory/response-signatures-cases.test.ts',
  'test/directory/publish.test.ts',
  'test/directory/cache.test.ts',
  'test/directory/host-backoff.test.ts',
  // test/vectors.test.ts adds the node:crypto provider and PEM import; this runs the same suite with WebCrypto only.
  'test/runtimes/vectors.portable.ts',
];

/** Files in MATRIX_DIRS that stay Node-only, with the reason. */
export const NODE_ONLY: Readonly<Record<string, string>> = {
  'test/profile/attacks.test.ts': 'vi.useFakeTimers for the discovery deadline (the matrix shim has no fake timers) and a timing ratio',
  'test/profile/nonce-store-memory.test.ts': 'measures the V8 heap (node:v8, node:vm for gc)',
  'test/profile/verify-fresh-module-cases.test.ts': 'vi.resetModules (a fresh copy of the verifier per test)',
};

/** test/directory files outside the matrix, with the reason (test/runtimes/manifest.test.ts wants every file in one list or the other). */
export const DIRECTORY_NODE_ONLY: Readonly<Record<string, string>> = {
  'test/directory/client.test.ts': 'real loopback HTTP servers (node:http) behind DirectoryClient',
  'test/directory/client-blocked.test.ts': 'real loopback HTTP servers and the Node guarded fetch',
  'test/directory/client-cache-rules.test.ts': 'shares client-fixtures (vi) with the loopback client tests',
  'test/directory/client-hostile.test.ts': 'real loopback HTTP servers, node:zlib bombs, Buffer',
  'test/directory/handler.test.ts': 'serves the handler over node:http',
  'test/directory/delegation.test.ts': 'not classified yet: in progress when the matrix was set up (reads vectors/delegation.json with node:fs)',
  'test/directory/delegation-client.test.ts': 'node:https loopback servers and the Node guarded fetch',
  'test/directory/delegation-lazy.test.ts': 'vi.mock (module mocking) and loopback servers',
  'test/directory/delegation-missing.test.ts': 'vi.mock (module mocking)',
  'test/directory/outbound.test.ts': 'shares client-fixtures (vi) with the loopback client tests',
  'test/directory/card-cases.test.ts': 'shares client-fixtures (vi) with the loopback client tests',
  'test/directory/client-signature-agent-url.test.ts': 'real loopback HTTP servers behind DirectoryClient',
  'test/directory/fetch-step-cases.test.ts': 'real loopback HTTP servers behind the fetch step',
  'test/directory/url-guard-cases.test.ts': 'real loopback HTTP servers behind the URL guard',
  'test/directory/outbound-limits-cases.test.ts': 'node:events (once) around the limiter',
  'test/directory/outbound-site-share.test.ts': 'shares client-fixtures (vi) with the loopback client tests',
};

/** The test files of the matrix, relative to the project root, in run order. */
export function matrixFiles(): string[] {
  const out: string[] = [];
  for (const dir of MATRIX_DIRS) {
    let names: string[];
    try {
      names = readdirSync(join(ROOT, dir));
    } catch {
      continue;
    }
    for (const n of names.sort()) {
      const rel = `${dir}/${n}`;
      if (n.endsWith('.test.ts') && NODE_ONLY[rel] === undefined) out.push(rel);
    }
  }
  return [...out, ...MATRIX_FILES];
}

export type RuntimeTarget = 'browser' | 'workerd';

const TARGET_OPTIONS: Record<RuntimeTarget, esbuild.BuildOptions> = {
  browser: { platform: 'browser' },
  // As wrangler resolves packages for Workers.
  workerd: { platform: 'neutral', conditions: ['workerd', 'worker', 'browser'], mainFields: ['browser', 'module', 'main'] },
};

const BUILTINS = new Set(builtinModules);
function isBuiltin(spec: string): boolean {
  return spec.startsWith('node:') || BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0]!);
}

function listJson(dir: string, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) listJson(p, out);
    else if (n.endsWith('.json')) out.push(p);
  }
  return out;
}

/** A read-only `node:fs` over the vector files, keyed by absolute path, for test files that still read fixtures. */
function fixtureFsModule(): string {
  const files: Record<string, string> = {};
  // vectors/structured-field-tests is left out: test/helpers/vectors.ts imports it (`?raw`), nobody reads it with fs.
  const sfTests = join(ROOT, 'vectors', 'structured-field-tests');
  for (const p of listJson(join(ROOT, 'vectors')).filter((f) => !f.startsWith(sfTests))) {
    files[p] = readFileSync(p, 'utf8');
  }
  return `
const FILES = ${JSON.stringify(files)};
const ROOT = ${JSON.stringify(ROOT)};
function toPath(p) {
  if (p instanceof URL) return decodeURIComponent(p.pathname);
  p = String(p);
  if (p.startsWith('file:')) return decodeURIComponent(new URL(p).pathname);
  return decodeURIComponent(new URL(p, 'file://' + ROOT + '/').pathname);
}
export function readFileSync(p, options) {
  const path = toPath(p);
  const text = FILES[path];
  if (text === undefined) {
    const e = new Error('ENOENT: ' + path + ' is not among the fixtures in the runtime bundle (test/runtimes/bundle.ts)');
    e.code = 'ENOENT';
    throw e;
  }
  if (options === undefined || options === null) return new TextEncoder().encode(text);
  return text;
}
export function existsSync(p) { return toPath(p) in FILES; }
export default { readFileSync, existsSync };
`;
}

const URL_MODULE = `
export function fileURLToPath(u) { return decodeURIComponent(new URL(String(u)).pathname); }
export function pathToFileURL(p) { return new URL('file://' + p); }
export default { fileURLToPath, pathToFileURL };
`;

const FIXTURE_MODULES = new Set(['node:fs', 'fs', 'node:url', 'url']);

export interface RuntimeBundle {
  /** The ES module text. */
  code: string;
  /** The test files it runs, relative to the project root. */
  files: string[];
  /** Test files that read fixtures through the in-bundle `node:fs` stand-in (should move to test/helpers/vectors.ts). */
  fixtureFsUsers: string[];
}

function entrySource(files: string[], target: RuntimeTarget): string {
  const loaders = files.map((f) => `  [${JSON.stringify(f)}, () => import(${JSON.stringify(join(ROOT, f))})],`).join('\n');
  const worker =
    target !== 'workerd'
      ? ''
      : `
// workerd: GET / runs the suite and streams NDJSON: one {"file":…} line per file, then {"result":…}.
export default {
  fetch() {
    const { readable, writable } = new TransformStream();
    const writer = writable.getWriter();
    const line = (v) => writer.write(new TextEncoder().encode(JSON.stringify(v) + '\\n'));
    (async () => {
      try {
        const result = await run({ onFile: (file) => void line({ file }) });
        await line({ result });
      } catch (e) {
        await line({ error: String(e && e.stack || e) });
      }
      await writer.close();
    })();
    return new Response(readable, { headers: { 'content-type': 'application/x-ndjson' } });
  },
};`;
  return `
import { runFiles } from 'vitest';
import { webCryptoHasEd25519 } from ${JSON.stringify(join(ROOT, 'src/crypto/webcrypto.ts'))};

const FILES = [
${loaders}
];

/** What the runtime is, so the launcher can show (and assert) that it is not Node. */
export async function environment() {
  return {
    userAgent: typeof navigator === 'undefined' ? undefined : navigator.userAgent,
    hasProcess: typeof globalThis.process !== 'undefined',
    hasBuffer: typeof globalThis.Buffer !== 'undefined',
    hasRequire: typeof globalThis.require !== 'undefined',
    webCryptoEd25519: await webCryptoHasEd25519(),
  };
}

export async function run(options = {}) {
  const result = await runFiles(FILES, options);
  return { ...result, environment: await environment() };
}
${worker}
`;
}

/** Bundles the matrix for `target`. Throws (with esbuild's messages) when something is not portable. */
export async function buildRuntimeBundle(target: RuntimeTarget, files: string[] = matrixFiles()): Promise<RuntimeBundle> {
  const fixtureFsUsers = new Set<string>();
  const plugin: esbuild.Plugin = {
    name: 'botsig-runtime-matrix',
    setup(build) {
      build.onResolve({ filter: /^matrix-entry$/ }, () => ({ path: 'matrix-entry', namespace: 'matrix' }));
      build.onLoad({ filter: /.*/, namespace: 'matrix' }, () => ({ contents: entrySource(files, target), loader: 'js', resolveDir: ROOT }));

      build.onResolve({ filter: /^vitest$/ }, () => ({ path: SHIM }));

      // Vite's `?raw`: the file's text.
      build.onResolve({ filter: /\?raw$/ }, (args) => ({ path: resolve(args.resolveDir, args.path.slice(0, -4)), namespace: 'raw' }));
      build.onLoad({ filter: /.*/, namespace: 'raw' }, (args) => ({ contents: readFileSync(args.path, 'utf8'), loader: 'text' }));

      build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
        if (!isBuiltin(args.path)) return undefined;
        const who = args.importer.startsWith(ROOT) ? relative(ROOT, args.importer) : args.importer;
        if (who.startsWith('test/') && FIXTURE_MODULES.has(args.path)) {
          fixtureFsUsers.add(who);
          return { path: args.path.replace(/^node:/, ''), namespace: 'fixture' };
        }
        return { errors: [{ text: `${who} imports the Node builtin "${args.path}", which ${target} does not have` }] };
      });
      build.onLoad({ filter: /.*/, namespace: 'fixture' }, (args) => ({
        contents: args.path === 'fs' ? fixtureFsModule() : URL_MODULE,
        loader: 'js',
      }));

      // Test tooling only (react-is inside @vitest/pretty-format): the bundler-time constant
      // that browser bundlers substitute. Never applied to src/, whose Node-isms must show.
      build.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('process.env.NODE_ENV')) return undefined;
        return { contents: text.replaceAll('process.env.NODE_ENV', '"production"'), loader: 'js' };
      });

      // Each test file's own URL, so `new URL(rel, import.meta.url)` names the same file as under Vitest.
      build.onLoad({ filter: /\/test\/.*\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
      });
    },
  };
  const result = await esbuild.build({
    entryPoints: ['matrix-entry'],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    logLevel: 'silent',
    absWorkingDir: ROOT,
    nodePaths: [join(ROOT, 'node_modules')],
    plugins: [plugin],
    ...TARGET_OPTIONS[target],
  });
  const code = result.outputFiles?.[0]?.text;
  if (code === undefined) throw new Error('esbuild produced no output');
  return { code, files, fixtureFsUsers: [...fixtureFsUsers].sort() };
}

/** The shape `run()` resolves to (test/runtimes/vitest-shim.ts RunResult plus the environment). */
export interface MatrixResult {
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
  files: Array<{ file: string; passed: number; failed: number; skipped: number }>;
  failures: Array<{ file: string; name: string; message: string; stack?: string }>;
  environment: { userAgent?: string; hasProcess: boolean; hasBuffer: boolean; hasRequire: boolean; webCryptoEd25519: boolean };
}

/** A readable summary of a run, for the launcher's output. */
export function summarise(runtime: string, r: MatrixResult, bundle: RuntimeBundle): string {
  const lines = [
    `${runtime}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped in ${r.files.length} files (${(r.durationMs / 1000).toFixed(1)} s)`,
    `  environment: ${JSON.stringify(r.environment)}`,
    ...r.files.map(
      (f) =>
        `  ${f.failed > 0 ? '✗' : '✓'} ${f.file}: ${f.passed} passed${f.failed > 0 ? `, ${f.failed} failed` : ''}${f.skipped > 0 ? `, ${f.skipped} skipped` : ''}`,
    ),
  ];
  if (bundle.fixtureFsUsers.length > 0) lines.push(`  read fixtures through the in-bundle node:fs stand-in: ${bundle.fixtureFsUsers.join(', ')}`);
  for (const f of r.failures.slice(0, 50))
    lines.push(
      `  FAIL ${f.name}\n    ${f.message.split('\n').join('\n    ')}${f.stack === undefined ? '' : '\n    ' + f.stack.split('\n').slice(1, 6).join('\n    ')}`,
    );
  if (r.failures.length > 50) lines.push(`  … and ${r.failures.length - 50} more failures`);
  return lines.join('\n');
}
