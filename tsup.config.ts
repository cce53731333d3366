import { defineConfig } from 'tsup';

/**
 * Two builds, both plain esbuild through tsup (no plugins, no rewriting of the output):
 *
 * 1. The library: one entry per package.json `exports` subpath, ESM only, with code
 *    splitting, so that every module is in exactly one file and two entries loaded
 *    together share it. The few `import()` calls in the source become chunks of their
 *    own; a bundler that splits code keeps them apart, one that does not (wrangler, a
 *    Worker) inlines them, and the bundle is still small because what `{ verifyRequest }`
 *    and `{ signRequest }` reach statically is small (`npm run check:bundle` measures
 *    both ways). Framework packages are optional peer dependencies and stay external, as
 *    do `node:` modules. Minified in syntax only: application bundlers tree-shake and
 *    minify it themselves, and names and layout stay for stack traces. No source maps in
 *    the package (see ARCHITECTURE.md, "Packaging").
 * 2. The command line: the package `botsig-cli` (packages/botsig-cli, bin `botsig`), one
 *    minified ESM file for Node with the library code it uses bundled in; its own
 *    dependencies (commander, prom-client) are that package's, so a library install
 *    carries neither (ARCHITECTURE.md, "Packaging").
 *
 * No CommonJS build: the supported Nodes (package.json `engines`: ^20.19 or >=22.12)
 * load these files from `require()` too (require(esm), without a flag), as one module
 * graph with `import`. The output must therefore have no top-level `await` outside
 * `import()` chunks (Node refuses to `require()` such a graph; `npm run check:package`
 * require()s every entry). `dts` emits one `.d.ts` beside each `.js`, for `import` and
 * `require` alike (`npm run check:package` holds them to it, with attw, publint and
 * consumer projects).
 */
const library = {
  index: 'src/index.ts',
  'index.node': 'src/index.node.ts',
  directory: 'src/directory.ts',
  'directory.node': 'src/directory.node.ts',
  registry: 'src/registry.ts',
  'registry.node': 'src/registry.node.ts',
  sync: 'src/sync.ts',
  noble: 'src/noble.ts',
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
  cloudflare: 'src/cloudflare.ts',
};

export default defineConfig([
  {
    entry: library,
    format: ['esm'],
    splitting: true,
    treeshake: true,
    sourcemap: false,
    dts: true,
    clean: true,
    target: 'es2022',
    platform: 'neutral',
    external: [/^node:/],
    // Syntax minified only: names, layout and pure annotations stay, for the bundlers
    // that tree-shake the package and for stack traces.
    esbuildOptions(options) {
      options.minifySyntax = true;
    },
  },
  {
    entry: { cli: 'src/cli/main.ts' },
    outDir: 'packages/botsig-cli/dist',
    format: ['esm'],
    splitting: false,
    sourcemap: false,
    dts: false,
    clean: true,
    minify: true,
    target: 'node20',
    platform: 'node',
    external: ['commander', 'prom-client', 'redis', /^@noble\//],
  },
]);
