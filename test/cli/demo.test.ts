/**
 * `botsig demo` runs end to end as a child process (the README's first command):
 * directory server, verifying origin and agent on 127.0.0.1; every scenario must
 * come out as expected and the exit code must be 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, removeCli, runCli } from './cli-helpers';

beforeAll(async () => {
  await buildCli();
});

afterAll(async () => {
  await removeCli();
});

const SCENARIOS = [
  ['signed (botsig/fetch)', 'verified', 200, undefined],
  ['tampered (path changed)', 'invalid', 403, 'ERR_SIGNATURE_INVALID'],
  ['unsigned', 'unverified', 403, 'ERR_NO_SIGNATURE'],
  ['signed retry after challenge', 'verified', 200, undefined],
  ['replayed nonce', 'invalid', 429, 'ERR_NONCE_REPLAYED'],
  ['expired', 'invalid', 403, 'ERR_SIGNATURE_EXPIRED'],
  ['rotated: new key, cache fresh', 'unverified', 403, 'ERR_KEY_UNKNOWN'],
  ['rotated: new key, refreshed', 'verified', 200, undefined],
  ['rotated: removed key', 'unverified', 403, 'ERR_KEY_UNKNOWN'],
] as const;

describe('botsig demo', () => {
  it('prints the table with every scenario and exits 0', async () => {
    const r = await runCli(['demo']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    for (const [scenario, outcome, status, code] of SCENARIOS) {
      const line = r.stdout.split('\n').find((l) => l.includes(`. ${scenario} `));
      expect(line, scenario).toBeDefined();
      expect(line).toMatch(/^ ok /);
      expect(line).toContain(`| ${outcome}`);
      expect(line).toContain(`| ${status} `);
      if (code !== undefined) expect(line).toContain(code);
    }
    expect(r.stdout).toContain('All 9 scenarios came out as expected.');
    // The demo says why plain http is accepted here.
    expect(r.stdout).toContain('allowInsecure');
    // Colour only on a terminal: the child's stdout is a pipe.
    expect(r.stdout).not.toContain('\u001b[');
  });

  it('--json: one row per scenario, each as expected (SPEC 7 statuses)', async () => {
    const r = await runCli(['demo', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      ok: boolean;
      rows: Array<{ scenario: string; ok: boolean; outcome: string; status: number; reason: string }>;
    };
    expect(report.ok).toBe(true);
    expect(report.rows.map((row) => [row.scenario, row.outcome, row.status])).toEqual(SCENARIOS.map(([s, o, st]) => [s, o, st]));
    for (const row of report.rows) expect(row.ok, row.scenario).toBe(true);
    const unsigned = report.rows.find((row) => row.scenario === 'unsigned')!;
    expect(unsigned.reason, 'the 403 carries the Accept-Signature challenge (SPEC 4.3)').toContain('Accept-Signature: sig1=("@authority");tag="web-bot-auth"');
  });
});
