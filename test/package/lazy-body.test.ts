/**
 * The body and digest code is loaded only when it is used (issue 17): `signRequest`
 * reaches it through `import()` only with `contentDigest`, `verifyRequest` only when a
 * signature covers `content-digest`. Checked on what a bundler makes of the sources
 * (esbuild, code splitting, as an application would bundle `{ signRequest }`): the
 * code loaded up front (the entry and its static imports) holds none of it, and the
 * lazily loaded chunks do.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BODY_CODE = ['src/profile/body/read.ts', 'src/profile/body/sign.ts', 'src/profile/body/check.ts', 'src/crypto/digest.ts'];

/** Inputs of the code an entry loads up front, and of everything it can load. */
async function split(entry: string): Promise<{ initial: Set<string>; all: Set<string> }> {
  const result = await esbuild.build({
    entryPoints: [resolve(ROOT, entry)],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    outdir: '/virtual',
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: ROOT,
    external: ['node:*'],
  });
  const outputs = result.metafile.outputs;
  const entryOut = Object.keys(outputs).find((o) => outputs[o]!.entryPoint === entry);
  expect(entryOut, `esbuild output for ${entry}`).toBeDefined();
  const collect = (kinds: ReadonlySet<string>): Set<string> => {
    const seen = new Set<string>();
    const inputs = new Set<string>();
    const visit = (out: string): void => {
      if (seen.has(out)) return;
      seen.add(out);
      const o = outputs[out.startsWith('/') ? out.slice(1) : out] ?? outputs[out];
      if (o === undefined) return;
      for (const input of Object.keys(o.inputs)) inputs.add(input);
      for (const imp of o.imports) if (kinds.has(imp.kind) && !imp.external) visit(imp.path);
    };
    visit(entryOut!);
    return inputs;
  };
  return { initial: collect(new Set(['import-statement'])), all: collect(new Set(['import-statement', 'dynamic-import'])) };
}

describe('body and digest code behind import()', () => {
  for (const entry of ['src/profile/sign-request.ts', 'src/profile/verify-request.ts']) {
    it(`${entry}: not in the code loaded up front, only in lazily loaded chunks`, async () => {
      const { initial, all } = await split(entry);
      for (const file of BODY_CODE) expect(initial.has(file), `${file} loaded up front by ${entry}`).toBe(false);
      const lazy = entry.includes('sign') ? 'src/profile/body/sign.ts' : 'src/profile/body/check.ts';
      expect(all.has(lazy), `${lazy} reachable through import() from ${entry}`).toBe(true);
      expect(all.has('src/profile/body/read.ts')).toBe(true);
    });
  }

  it('control: a module that imports the body code statically has it up front (the check can fail)', async () => {
    const { initial } = await split('src/profile/sign-response.ts');
    expect(initial.has('src/profile/body/read.ts')).toBe(false);
    const direct = await split('src/profile/body/sign.ts');
    expect(direct.initial.has('src/profile/body/read.ts')).toBe(true);
    expect(direct.initial.has('src/crypto/digest.ts')).toBe(true);
  });
});
