import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { root: '/work/main', include: ['.scratch/review-agent/**/*.test.ts'], testTimeout: 20_000, pool: 'forks' } });
