import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Prints one line per missing optional tool (redis-server, Chromium): which suites
    // are skipped and how to enable them; under CI=true they fail instead (test/helpers/optional.ts).
    globalSetup: ['./test/helpers/optional-setup.ts'],
  },
});
