import { resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';
import type { Plugin } from 'esbuild';

/**
 * Entries map 1:1 to package.json `exports`.
 *
 * 1. The library: every entry but the Node main entry, in one build. `splitting` keeps
 *    shared modules in common chunks, so a bundler that takes several entries (an
 *    application importing `botsig` and `botsig/directory`) gets each module once.
 *    Framework packages are optional peer dependencies and stay external.
 * 2. `botsig` under the `node` condition (`index.node`), built on its own: a Node
 *    process imports it directly, without a bundler, and pays for every file and byte
 *    it loads. Built with the others it would load about twenty shared chunks holding
 *    code for other entries; alone it is one file plus the chunks of its own lazy
 *    `import()`s (issue 16: import time). The state that must still be one per process
 *    (the crypto provider, the default directory fetch, key internals) lives under
 *    `Symbol.for` keys (`src/core/process-wide.ts`). Its types come from build 1.
 * 3. The CLI: ESM only (its argument parser, commander, is a runtime dependency).
 *
 * The library is minified (whitespace, syntax, local names; `keepNames` keeps the
 * names of functions and classes, so stack traces and `console.log` stay readable,
 * and source maps point at the TypeScript): V8 compiles every byte a process imports.
 * `dts` emits `.d.ts` beside the ESM `.js` and `.d.cts` beside the CommonJS `.cjs`: the
 * `import` and `require` conditions of package.json `exports` each name their own
 * (`npm run check:package` holds them to it, with attw, publint and a consumer project).
 */
const library = {
  index: 'src/index.ts',
  directory: 'src/directory.ts',
  'directory.node': 'src/directory.node.ts',
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

/**
 * The modules botsig loads with `import()` (only when a call needs them). Build 1 emits
 * each as its own file under `lazy/`; build 2 (the Node main entry) does not bundle
 * them but imports those files, so that it stays one file with no shared chunks.
 */
const lazy = {
  'lazy/noble': 'src/crypto/noble.ts',
  'lazy/directory-client': 'src/directory/client.ts',
  'lazy/guarded-fetch': 'src/node/guarded-fetch.ts',
  'lazy/body-sign': 'src/profile/body/sign.ts',
  'lazy/body-check': 'src/profile/body/check.ts',
};

/** esbuild plugin for build 2: a dynamic import of a {@link lazy} module becomes an import of build 1's file. */
const lazyFromLibrary: Plugin = {
  name: 'botsig-lazy-from-library',
  setup(build) {
    const extension = build.initialOptions.format === 'cjs' ? '.cjs' : '.js';
    const byFile = new Map(Object.entries(lazy).map(([name, file]) => [resolve(file), `./${name}${extension}`]));
    build.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const target = [resolve(args.resolveDir, args.path), resolve(args.resolveDir, `${args.path}.ts`)].find((f) => byFile.has(f));
      if (target === undefined) throw new Error(`tsup: ${args.path} (imported lazily by ${args.importer}) is not in the lazy entry list`);
      return { path: byFile.get(target)!, external: true };
    });
  },
};

const shared: Options = {
  format: ['esm', 'cjs'],
  splitting: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  external: [/^node:/],
  minify: true,
  keepNames: true,
};

export default defineConfig([
  { ...shared, entry: { ...library, ...lazy }, dts: { entry: { ...library, ...nodeMain } }, clean: true },
  {
    ...shared,
    entry: nodeMain,
    dts: false,
    clean: false,
    splitting: false,
    esbuildPlugins: [lazyFromLibrary],
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
