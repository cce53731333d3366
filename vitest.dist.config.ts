import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from './vitest.config';

// The tests that reach botsig only through its public entries, run against the built
// package (dist/, what npm ships, after tsup's syntax minification) instead of src/: an
// import of `src/<entry>` resolves to `dist/<entry>.js`. `npm run test:dist` chooses the
// files (scripts/test-dist.mjs); a test that also imports an internal module stays on the
// src/ run only, since it would load two copies of the library.
const root = dirname(fileURLToPath(import.meta.url));
const ENTRY = /^(?:\.\.?\/)+src\/([a-z]+)(?:\.ts)?$/;

export default defineConfig({
  ...base,
  plugins: [
    {
      name: 'botsig-dist',
      enforce: 'pre',
      resolveId(source, importer) {
        const m = ENTRY.exec(source);
        if (m === null || importer === undefined) return null;
        // Only imports that land on a public entry of this repository's src/.
        if (resolve(dirname(importer), source.replace(/\.ts$/, '')) !== join(root, 'src', m[1]!)) return null;
        const built = join(root, 'dist', `${m[1]}.js`);
        if (!existsSync(built)) throw new Error(`test:dist: ${built} is missing; run npm run build first`);
        return built;
      },
    },
  ],
  test: {
    ...base.test,
    include: (process.env.BOTSIG_DIST_TESTS ?? '').split(',').filter((f) => f !== ''),
  },
});
