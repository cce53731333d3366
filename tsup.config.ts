import { defineConfig } from 'tsup';

/**
 * One build, two formats. Entries map 1:1 to package.json `exports`.
 * `splitting` keeps shared modules (and the crypto provider registry) in common
 * chunks so that every entry sees the same state.
 */
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'index.node': 'src/index.node.ts',
    httpsig: 'src/httpsig.ts',
    node: 'src/node.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  splitting: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  platform: 'neutral',
  // ESM-only dependencies are bundled into the CJS build so `require('botsig')` works on every Node 20.
  noExternal: [],
  external: [/^node:/],
});
