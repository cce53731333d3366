// StrykerJS mutation testing of the security core. Slow: not part of `npm test`.
//
//   npm run test:mutation                                   every file in `mutate` below, then the baseline check
//   npm run test:mutation -- --mutate src/httpsig/base.ts   one file (what to run locally: a whole-scope run takes hours)
//   npm run check:mutation                                  only compare the last report with scripts/mutation-baseline.json
//
// The run works on a copy of the repository (.stryker-tmp/), never on the files in place, and
// writes reports/mutation/mutation.json (read by scripts/check-mutation.mjs) and mutation.html.
// Nothing is marked in src/: recurring equivalent patterns are ignored by the plugin in
// scripts/mutation/ignorers.mjs; single equivalent mutants are recorded, with their reasons, in
// scripts/mutation/equivalents.json, which scripts/check-mutation.mjs applies to the report.

// BOTSIG_MUTATION_SLOT=<name> gives a run its own sandbox and report files (.stryker-tmp-<name>/,
// reports/mutation/<name>/), so that two runs on different files can go side by side.
const slot = (process.env.BOTSIG_MUTATION_SLOT ?? '').replace(/[^A-Za-z0-9_-]/g, '');
const reportDir = slot === '' ? 'reports/mutation' : `reports/mutation/${slot}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  // Only the test files that import the mutated file (directly or not) run for it.
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  // Each mutant runs only the tests that reached it in the dry run.
  coverageAnalysis: 'perTest',
  // Mutants in module-level initialisers would need every test to rerun for each: skipped, and not counted.
  ignoreStatic: true,
  plugins: ['@stryker-mutator/vitest-runner', './scripts/mutation/ignorers.mjs'],
  ignorers: ['botsig-equivalents'],
  // Two cores, shared with other work: one mutant at a time unless told otherwise (--concurrency 2).
  concurrency: 1,
  timeoutMS: 10_000,
  timeoutFactor: 2,
  mutate: [
    // Web Bot Auth: sign, verify, Signature-Agent, challenges, responses, the memory nonce store.
    'src/profile/**/*.ts',
    '!src/profile/types.ts',
    '!src/profile/nonce-store.ts',
    // Generic RFC 9421.
    'src/httpsig/**/*.ts',
    '!src/httpsig/signature-types.ts',
    // Nonce stores for fleets.
    'src/stores/redis/nonce-store.ts',
    // Directory documents and their response signatures.
    'src/directory/response-signatures.ts',
    'src/directory/document/*.ts',
    // Signature Agent Cards and registries: documents from strangers (cards, registry text).
    'src/directory/card/parse.ts',
    'src/directory/card/signatures.ts',
    'src/directory/client/card.ts',
    'src/directory/registry/parse.ts',
    'src/directory/registry/client.ts',
    'src/directory/registry/read-card.ts',
    'src/directory/registry/listing.ts',
    'src/directory/registry/integrity.ts',
    // SSRF guards and the outbound budget.
    'src/core/ip.ts',
    'src/core/url.ts',
    'src/directory/client/fetch.ts',
    'src/directory/outbound.ts',
    'src/node/guarded-fetch.ts',
  ],
  ignorePatterns: ['dist', 'scratch', 'bench', 'reports', 'coverage', '.dist-*', '.vitest-*', '.bench-load-out', '*.cpuprofile', '.stryker-tmp*'],
  tempDirName: slot === '' ? '.stryker-tmp' : `.stryker-tmp-${slot}`,
  cleanTempDir: 'always',
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: `${reportDir}/mutation.json` },
  htmlReporter: { fileName: `${reportDir}/mutation.html` },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  // The per-file gate is scripts/check-mutation.mjs (scores recorded in scripts/mutation-baseline.json).
  thresholds: { high: 90, low: 80, break: null },
};
