import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';
import type { Plugin } from 'esbuild';

/**
 * Entries map 1:1 to package.json `exports`.
 *
 * 1. The library: every entry but the Node main entry, in one build. `splitting` keeps
 *    shared modules in common chunks, so a bundler that takes several entries (an
 *    application importing `botsig` and `botsig/directory`) gets each module once.
 *    Framework packages are optional peer dependencies and stay external.
 * 2. The lazy modules ({@link lazy}): what botsig loads with `import()` only when a
 *    call needs it, each built as one standalone file under `dist/lazy/` (its own copy
 *    of the core modules it uses). Standalone on purpose: esbuild puts a module that
 *    a lazy chunk shares with anything the entry re-exports into a chunk the entry
 *    loads up front, so a lazy module that shared the library's chunks would make an
 *    application's `{ signRequest }` bundle carry it whole (issue 16: bundle size).
 * 3. `botsig` under the `node` condition (`index.node`), built on its own: a Node
 *    process imports it directly, without a bundler, and pays for every file and byte
 *    it loads; built with the others it would load about twenty shared chunks holding
 *    code for other entries. Alone and minified it is one file (issue 16: import time).
 *    Its types come from build 1.
 * 4. The CLI: ESM only (its argument parser, commander, is a runtime dependency).
 *
 * Copies of one module in several files must still share what is one per process (the
 * crypto provider, the default directory fetch, key internals): that state lives under
 * `Symbol.for` keys (`src/core/process-wide.ts`). Build 3 is minified (source maps
 * point at the TypeScript); builds 1 and 2 are not (application bundlers tree-shake
 * them, which minified chunks defeat, and minify them themselves).
 * `dts` emits `.d.ts` beside the ESM `.js` and `.d.cts` beside the CommonJS `.cjs`: the
 * `import` and `require` conditions of package.json `exports` each name their own
 * (`npm run check:package` holds them to it, with attw, publint and a consumer project).
 */
const library = {
  index: 'src/index.ts',
  directory: 'src/directory.ts',
  'directory.node': 'src/directory.node.ts',
  registry: 'src/registry.ts',
  'registry.node': 'src/registry.node.ts',
  sync: 'src/sync.ts',
  httpsig: 'src/httpsig.ts',
  node: 'src/node.ts',
  express: 'src/express.ts',
  fastify: 'src/fastify.ts',
  hono: 'src/hono.ts',
  'hono.node': 'src/hono.node.ts',
  fetch: 'src/fetch.ts',
  playwright: 'src/playwright.ts',
  crawlee: 'src/crawlee.ts',
  redis: 'src/redis.ts',
};
const nodeMain = { 'index.node': 'src/index.node.ts' };

/** The modules botsig loads with `import()`, only when a call needs them: output name → source. */
const lazy = {
  noble: 'src/crypto/noble.ts',
  'directory-client': 'src/directory/client.ts',
  'guarded-fetch': 'src/node/guarded-fetch.ts',
  'body-sign': 'src/profile/body/sign.ts',
  'body-check': 'src/profile/body/check.ts',
  'sign-general': 'src/profile/sign/general.ts',
  'key-import': 'src/crypto/keys/signing.ts',
  'key-import-verify': 'src/crypto/keys/verifying.ts',
  'memory-nonce-store': 'src/profile/memory-nonce-store.ts',
  'verify-options': 'src/profile/verify/options.ts',
  'verify-discovery': 'src/profile/verify/discovery.ts',
  'sign-response': 'src/profile/sign-response.ts',
  'verify-response': 'src/profile/verify-response.ts',
  digest: 'src/crypto/digest.ts',
  generate: 'src/crypto/generate.ts',
};

/**
 * esbuild plugin: an `import()` of a {@link lazy} module becomes an import of its file
 * in `dist/lazy/` (`prefix` is the way there from the output directory), except the
 * names in `inline`, which are bundled (the Node main entry exports the memory nonce store anyway).
 */
function lazyFiles(prefix: string, inline: readonly string[] = []): Plugin {
  return {
    name: 'botsig-lazy-files',
    setup(build) {
      // ESM files for both formats: Node's import() loads an ES module from CommonJS too, and
      // the lazy files are standalone, so the CommonJS build needs no CommonJS copies (whose
      // named exports import() could not always see).
      const extension = '.js';
      const byFile = new Map(Object.entries(lazy).map(([name, file]) => [resolve(file), name]));
      build.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const target = [resolve(args.resolveDir, args.path), resolve(args.resolveDir, `${args.path}.ts`)].find((f) => byFile.has(f));
        const name = target === undefined ? undefined : byFile.get(target)!;
        if (target === undefined) throw new Error(`tsup: import('${args.path}') in ${args.importer} is not in the lazy module list`);
        return name === undefined || inline.includes(name) ? undefined : { path: `${prefix}${name}${extension}`, external: true };
      });
    },
  };
}

/**
 * tsup turns the `import()` of a lazy file in build 1's CommonJS chunks into
 * `require()`, which cannot load an ES module on Node 20: put `import()` back (an ES
 * module loads from CommonJS through `import()`). Runs when build 1 is written.
 */
async function restoreLazyImportsInCommonJs(): Promise<void> {
  const pattern = /Promise\.resolve\(\)\.then\(\(\) => _interopRequireWildcard\(require\("(\.\/lazy\/[\w-]+\.js)"\)\)\)/g;
  for (const name of await readdir('dist')) {
    if (!name.endsWith('.cjs')) continue;
    const file = join('dist', name);
    const text = await readFile(file, 'utf8');
    const fixed = text.replace(pattern, 'import("$1")');
    if (fixed !== text) await writeFile(file, fixed);
  }
}

const shared: Options = {
  format: ['esm', 'cjs'],
  splitting: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  external: [/^node:/],
};

export default defineConfig([
  {
    ...shared,
    entry: library,
    dts: { entry: { ...library, ...nodeMain } },
    clean: true,
    esbuildPlugins: [lazyFiles('./lazy/')],
    onSuccess: restoreLazyImportsInCommonJs,
  },
  {
    ...shared,
    entry: Object.fromEntries(Object.entries(lazy).map(([name, file]) => [`lazy/${name}`, file])),
    format: ['esm'],
    dts: false,
    clean: false,
    splitting: false,
    esbuildPlugins: [lazyFiles('./')],
  },
  {
    ...shared,
    entry: nodeMain,
    dts: false,
    clean: false,
    splitting: false,
    minify: true,
    esbuildPlugins: [lazyFiles('./lazy/', ['memory-nonce-store'])],
  },
  {
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    dts: false,
    splitting: false,
    sourcemap: true,
    clean: false,
    target: 'node20',
    platform: 'node',
  },
]);
