import { defineConfig } from 'vitest/config';
import base from './vitest.config';

// The test set of a mutation run (stryker.config.mjs): the unit and integration suites over src/.
// Left out: suites that test the built package (dist/: package, readme, cli) rather than the
// source, the Worker/Deno/browser runtimes, suites driving Chromium, nginx or Caddy (gate,
// Playwright, Crawlee), and timing-based scaling tests, which a mutant's slowdown would make
// flaky rather than red for a reason. Redis suites stay (the Redis nonce store is in scope).
// The SoftHSM2 suite stays out too: PKCS#11 initialises once per process, and Stryker's runner
// keeps one process for every test file (its subject, external keys, is not in the scope).
//
// BOTSIG_MUTATION_TESTS (comma-separated folders or files, e.g. `test/httpsig,test/profile`)
// narrows the test set for a quick local run of one file: fewer tests can only kill fewer
// mutants, so a score recorded that way is a lower bound of the whole-suite score CI gets.
// An entry starting with `!` leaves that folder or file out.
const globs = (process.env.BOTSIG_MUTATION_TESTS ?? '')
  .split(',')
  .map((g) => g.trim().replace(/\/+$/, ''))
  .filter((g) => g !== '')
  .map((g) => (g.endsWith('.ts') || g.endsWith('*') ? g : `${g}/**/*.test.ts`));
const only = globs.filter((g) => !g.startsWith('!'));
const left = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: only.length > 0 ? only : (base.test?.include ?? ['test/**/*.test.ts']),
    exclude: [
      '**/node_modules/**',
      'test/runtimes/**',
      'test/package/**',
      'test/readme/**',
      'test/scripts/**',
      'test/cli/**',
      'test/examples.test.ts',
      'test/gate/**',
      'test/adapters/playwright.test.ts',
      'test/adapters/crawlee.test.ts',
      'test/adapters/agent-body.test.ts',
      'test/httpsig/scaling.test.ts',
      'test/agent-production/external-keys.test.ts',
      ...left,
    ],
  },
});
