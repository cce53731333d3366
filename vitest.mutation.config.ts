import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

// The test set of a mutation run (stryker.config.mjs): the unit and integration suites over src/.
// Left out: suites that test the built package (dist/) rather than the source, the Worker/Deno
// runtimes, the optional external tools (Redis, Chromium, nginx, Caddy), and timing-based scaling
// tests, which a mutant's slowdown would make flaky rather than red for a reason.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        '**/node_modules/**',
        'test/runtimes/**',
        'test/package/**',
        'test/readme/**',
        'test/scripts/**',
        'test/redis/**',
        'test/httpsig/scaling.test.ts',
        'test/cli/**',
      ],
      globalSetup: [],
    },
  }),
);
