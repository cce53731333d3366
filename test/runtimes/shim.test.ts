/**
 * The runtime matrix's stand-in for Vitest (test/runtimes/vitest-shim.ts) must
 * count right, or a green matrix means nothing: a fixture file with known passes,
 * failures, skips and hook order goes through the same bundler, and the bundle
 * runs in a separate Node process (its own `expect` must not replace Vitest's here).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildRuntimeBundle, type MatrixResult } from './bundle';

const FIXTURE = 'test/runtimes/fixtures/shim-selftest.fixture.ts';

async function runBundle(code: string): Promise<MatrixResult> {
  const dir = mkdtempSync(join(tmpdir(), 'botsig-shim-'));
  try {
    const file = join(dir, 'matrix.mjs');
    writeFileSync(file, code);
    const script = `import(${JSON.stringify(file)}).then((m) => m.run()).then((r) => process.stdout.write(JSON.stringify(r)))`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout) as MatrixResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('runtime matrix: the Vitest stand-in', () => {
  it('counts passes, failures and skips as Vitest would, and names each failure', async () => {
    const bundle = await buildRuntimeBundle('browser', [FIXTURE]);
    const r = await runBundle(bundle.code);
    const failed = r.failures.map((f) => f.name).sort();
    expect(failed).toEqual(
      [
        `${FIXTURE} > FAIL expect.assertions`,
        `${FIXTURE} > FAIL expect.unreachable`,
        `${FIXTURE} > FAIL rejects on a resolved promise`,
        `${FIXTURE} > FAIL thrown non-error`,
        `${FIXTURE} > FAIL timeout`,
        `${FIXTURE} > FAIL toBe`,
        `${FIXTURE} > failing beforeAll (beforeAll)`,
      ].sort(),
    );
    // hooks one, two; hook order; each ×3; nested; matchers
    expect(r.passed, 'passed').toBe(8);
    expect(r.failed, 'failed').toBe(7);
    // it.skip, test.todo, and the test under the failing beforeAll
    expect(r.skipped, 'skipped').toBe(3);
    expect(r.files).toEqual([{ file: FIXTURE, passed: 8, failed: 7, skipped: 3 }]);
    const byName = new Map(r.failures.map((f) => [f.name.slice(FIXTURE.length + 3), f.message]));
    expect(byName.get('FAIL toBe')).toMatch(/one is two/);
    expect(byName.get('FAIL timeout')).toMatch(/timed out after 50 ms/);
    expect(byName.get('FAIL expect.assertions')).toMatch(/expected number of assertions to be 2, but got 1/);
    expect(byName.get('FAIL thrown non-error')).toMatch(/a string/);
  }, 60_000);

  it('refuses a Node builtin imported from src/ (the isomorphic layers must not need one)', async () => {
    await expect(buildRuntimeBundle('workerd', ['src/node/keys.ts'])).rejects.toThrow(/src\/node\/keys\.ts imports the Node builtin "node:crypto"/);
  }, 60_000);
});
