/**
 * What a recorded mutation score was measured on (scripts/mutation/fingerprint.mjs), and
 * scripts/check-mutation.mjs --update recording it beside the score: run as a contributor
 * runs it, on a report and a baseline in a temporary directory.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { codeFingerprint as fingerprint } from '../../scripts/mutation/fingerprint.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const CODE = `import { a } from './a';
export { b } from './b';

/** Doubles. */
export function twice(x: number): number {
  return /\\/\\//.test(String(x)) ? a : x * 2;
}
`;

describe('the code fingerprint of a mutation record', () => {
  it('ignores comments, layout and where imports come from', () => {
    const same = [
      CODE.replace('/** Doubles. */', '/** Twice the number. */'),
      CODE.replace('  return', '  // the same code\n  return'),
      CODE.replace("'./a'", "'../core/a'").replace("'./b'", "'./c'"),
      CODE.replace('x * 2', 'x  *  2').replace('(x: number): number {', '(x: number): number\n{'),
    ];
    for (const text of same) expect(fingerprint(text)).toBe(fingerprint(CODE));
  });

  it('changes with the code, inside a regular expression or a string too', () => {
    const other = [
      CODE.replace('x * 2', 'x * 3'),
      CODE.replace('/\\/\\//', '/\\/\\/x/'),
      CODE.replace('String(x)', "String(x) + '//'"),
      CODE.replace('number): number', 'number): unknown'),
      `${CODE}const extra = 1;\n`,
    ];
    for (const text of other) expect(fingerprint(text)).not.toBe(fingerprint(CODE));
  });

  it('check-mutation --update records each score with the fingerprint of the source it was measured on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'botsig-mutation-'));
    made.push(dir);
    const reportPath = join(dir, 'mutation.json');
    const baselinePath = join(dir, 'baseline.json');
    const mutants = [
      { id: '1', mutatorName: 'ArithmeticOperator', status: 'Killed', location: { start: { line: 6, column: 40 }, end: { line: 6, column: 45 } } },
      { id: '2', mutatorName: 'ArithmeticOperator', status: 'Survived', location: { start: { line: 6, column: 40 }, end: { line: 6, column: 45 } } },
    ];
    writeFileSync(reportPath, JSON.stringify({ files: { [join(ROOT, 'src/example/twice.ts')]: { source: CODE, mutants } } }));
    writeFileSync(baselinePath, JSON.stringify({ files: { 'src/other.ts': 90 }, sources: { 'src/other.ts': 'kept' } }));
    const run = spawnSync(process.execPath, ['scripts/check-mutation.mjs', '--report', reportPath, '--baseline', baselinePath, '--update'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    const baseline = JSON.parse(readFileSync(baselinePath, 'utf8')) as { files: Record<string, number>; sources: Record<string, string> };
    expect(baseline.files).toEqual({ 'src/example/twice.ts': 50, 'src/other.ts': 90 });
    expect(baseline.sources).toEqual({ 'src/example/twice.ts': fingerprint(CODE), 'src/other.ts': 'kept' });
  });
});
