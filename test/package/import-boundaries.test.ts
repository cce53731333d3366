/**
 * The package's module graph as a bundler sees it (ARCHITECTURE.md, "Packaging"), checked on
 * what esbuild makes of the sources with code splitting, as an application bundles them: no
 * import() boundary between botsig's own modules (a Worker bundle inlines every import(), so
 * a boundary kept no code out and wrapped each module it shared in a lazy initialiser); what
 * is large and rare comes with a value the caller imports instead: `fullSigning`
 * (sign/full.ts, the signer's general steps and the body code), `certificateDelegation` (its
 * optional ASN.1 packages, still loaded with import()). @noble is nowhere (botsig/noble is
 * opt-in).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Inputs of the code an entry loads up front, and of everything it can load. */
async function split(entry: string): Promise<{ initial: Set<string>; all: Set<string>; targets: Set<string> }> {
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
  /** The modules that import() calls of the reachable code name (esbuild makes each the entry of a chunk). */
  const targets = new Set<string>();
  const collect = (kinds: ReadonlySet<string>): Set<string> => {
    const seen = new Set<string>();
    const inputs = new Set<string>();
    const visit = (out: string): void => {
      if (seen.has(out)) return;
      seen.add(out);
      const o = outputs[out.startsWith('/') ? out.slice(1) : out] ?? outputs[out];
      if (o === undefined) return;
      for (const input of Object.keys(o.inputs)) inputs.add(input);
      for (const imp of o.imports) {
        if (!kinds.has(imp.kind) || imp.external) continue;
        if (imp.kind === 'dynamic-import') {
          const target = (outputs[imp.path.startsWith('/') ? imp.path.slice(1) : imp.path] ?? outputs[imp.path])?.entryPoint;
          if (target !== undefined) targets.add(target);
        }
        visit(imp.path);
      }
    };
    visit(entryOut!);
    return inputs;
  };
  const initial = collect(new Set(['import-statement']));
  return { initial, all: collect(new Set(['import-statement', 'dynamic-import'])), targets };
}

// The general RFC 9421 steps of the signer: they come with `fullSigning`, never with `signRequest` alone.
const FULL = [
  'src/profile/sign/full.ts',
  'src/core/sf-parse.ts',
  'src/httpsig/message.ts',
  'src/httpsig/base.ts',
  'src/httpsig/components.ts',
  'src/httpsig/field-values.ts',
  'src/httpsig/query-param.ts',
  'src/httpsig/cover-chain.ts',
];
const SIGN_BODY = ['src/profile/body/read.ts', 'src/profile/body/sign.ts', 'src/crypto/digest.ts'];
const VERIFY = ['src/profile/verify/discovery.ts', 'src/profile/verify/directory-proof.ts', 'src/profile/body/check.ts'];

describe('what signRequest loads', () => {
  it('the signer and the key import; not the full signer, not the body code, not the CryptoKey import; @noble nowhere', async () => {
    const { initial, all } = await split('src/profile/sign-request.ts');
    expect(initial.has('src/profile/sign/plan.ts')).toBe(true);
    expect(initial.has('src/crypto/keys/signing.ts'), 'the key import is a static import').toBe(true);
    for (const file of [...FULL, ...SIGN_BODY, 'src/crypto/keys/crypto-key.ts']) expect(all.has(file), `${file} reachable from signRequest`).toBe(false);
    for (const file of all) expect(file, 'the pure-JS Ed25519 is opt-in (botsig/noble)').not.toMatch(/@noble|src\/crypto\/noble\.ts/);
  });

  it('fullSigning brings the general steps and the body code (contentDigest as an algorithm)', async () => {
    const { initial } = await split('src/profile/sign/full.ts');
    for (const file of [...FULL, ...SIGN_BODY]) expect(initial.has(file), `${file} with fullSigning`).toBe(true);
  });
});

describe('no import() boundary between botsig’s own modules', () => {
  // A Worker bundle (no code splitting) inlines every import(): a boundary kept no code out
  // and cost a lazy-initialisation wrapper around every module it shared. What is large and
  // rare comes as a value instead (fullSigning, certificateDelegation).
  it('signRequest, verifyRequest, verifyResponse and botsig itself reach everything statically', async () => {
    for (const entry of ['src/profile/sign-request.ts', 'src/profile/verify-request.ts', 'src/profile/verify-response.ts', 'src/index.ts']) {
      const { initial, all, targets } = await split(entry);
      expect([...targets], entry).toEqual([]);
      expect([...all].sort(), entry).toEqual([...initial].sort());
    }
    const verify = await split('src/profile/verify-request.ts');
    for (const file of VERIFY) expect(verify.initial.has(file), `${file} with verifyRequest`).toBe(true);
  });

  it('control: the optional packages of delegation by certificate stay behind import() (the check can fail)', async () => {
    const { initial, all } = await split('src/directory/delegation/asn.ts');
    expect([...all].some((f) => f.includes('@peculiar') || f.includes('asn1js'))).toBe(true);
    expect([...initial].some((f) => f.includes('@peculiar') || f.includes('asn1js'))).toBe(false);
  });
});
