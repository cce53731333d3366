import { defineConfig } from 'tsup';

/**
 * Entries map 1:1 to package.json `exports`. `splitting` keeps shared modules (and
 * the crypto provider registry) in common chunks so that every entry of one format
 * sees the same state. Framework packages are optional peer dependencies and stay
 * external. The CLI is ESM only (its argument parser, commander, is a runtime dependency).
 * `dts` emits `.d.ts` beside the ESM `.js` and `.d.cts` beside the CommonJS `.cjs`: the
 * `import` and `require` conditions of package.json `exports` each name their own
 * (`npm run check:package` holds them to it, with attw, publint and a consumer project).
 */
const library = {
  index: 'src/index.ts',
  'index.node': 'src/index.node.ts',
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

export default defineConfig([
  {
    entry: library,
    format: ['esm', 'cjs'],
    dts: true,
    splitting: true,
    sourcemap: true,
    clean: true,
    target: 'es2022',
    platform: 'neutral',
    external: [/^node:/],
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
