/**
 * What `signRequest` loads (checked on what a bundler makes of the sources: esbuild, code
 * splitting, as an application bundles `{ signRequest }`): up front, the signer of the
 * common request and nothing for the rarer steps (sign/extended.ts: the structured-field
 * parser, the component code, the message reader, the full Signature-Agent member check);
 * those behind import(); @noble nowhere (botsig/noble is opt-in); and `contentDigestFor`
 * loads the body code only when called.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

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

const RARER = [
  'src/profile/sign/extended.ts',
  'src/core/sf-parse.ts',
  'src/httpsig/message.ts',
  'src/httpsig/base.ts',
  'src/httpsig/components.ts',
  'src/httpsig/field-values.ts',
  'src/httpsig/query-param.ts',
  'src/httpsig/cover-chain.ts',
  'src/profile/sign/agent-member.ts',
  'src/profile/signature-agent/member.ts',
];
const BODY = ['src/profile/body/read.ts', 'src/profile/body/sign.ts', 'src/crypto/digest.ts'];

describe('what signRequest loads', () => {
  it('up front: the signer, not its rarer steps, not the body code; those behind import(); @noble nowhere', async () => {
    const { initial, all } = await split('src/profile/sign-request.ts');
    expect(initial.has('src/profile/sign/plan.ts')).toBe(true);
    for (const file of [...RARER, ...BODY]) expect(initial.has(file), `${file} loaded up front`).toBe(false);
    for (const file of [...RARER, ...BODY]) expect(all.has(file), `${file} reachable through import()`).toBe(true);
    for (const file of all) expect(file, 'the pure-JS Ed25519 is opt-in (botsig/noble)').not.toMatch(/@noble|src\/crypto\/noble\.ts/);
  });

  it('contentDigestFor: the body code behind import()', async () => {
    const { initial, all } = await split('src/profile/sign/content-digest.ts');
    for (const file of BODY) expect(initial.has(file), `${file} loaded up front`).toBe(false);
    for (const file of BODY) expect(all.has(file)).toBe(true);
  });

  it('control: signRequestSync and botsig/noble have them up front (the check can fail)', async () => {
    const sync = await split('src/profile/sign/sync-key.ts');
    expect(sync.initial.has('src/profile/sign/extended.ts')).toBe(true);
    const noble = await split('src/noble.ts');
    expect([...noble.initial].some((f) => f.includes('@noble/ed25519'))).toBe(true);
  });
});
