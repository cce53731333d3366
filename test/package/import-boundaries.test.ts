/**
 * The package's own import() boundaries (ARCHITECTURE.md, "Packaging"): two, for code most
 * users never run, checked on what a bundler makes of the sources (esbuild, code splitting,
 * as an application bundles them): key discovery (verify/discovery.ts with the directory
 * proof check), and the Content-Digest body code (body/sign.ts, body/check.ts). Each is
 * absent from what its entry loads up front and reachable behind import(); everything else
 * is a static import. The signer's general steps are no boundary: they come with the value
 * `fullSigning` (sign/full.ts), so `signRequest` alone never reaches them. @noble is nowhere
 * (botsig/noble is opt-in).
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
const CHECK_BODY = ['src/profile/body/read.ts', 'src/profile/body/check.ts', 'src/crypto/digest.ts'];
const DISCOVERY = ['src/profile/verify/discovery.ts', 'src/profile/verify/directory-proof.ts'];

describe('what signRequest loads', () => {
  it('the signer and the key import, all static (a Worker bundle inlines import() anyway); not the full signer, not the body code; @noble nowhere', async () => {
    const { initial, all } = await split('src/profile/sign-request.ts');
    expect(initial.has('src/profile/sign/plan.ts')).toBe(true);
    expect(initial.has('src/crypto/keys/signing.ts'), 'the key import is a static import').toBe(true);
    expect([...all].sort(), 'no import() boundary').toEqual([...initial].sort());
    for (const file of [...FULL, ...SIGN_BODY]) expect(all.has(file), `${file} reachable from signRequest`).toBe(false);
    for (const file of all) expect(file, 'the pure-JS Ed25519 is opt-in (botsig/noble)').not.toMatch(/@noble|src\/crypto\/noble\.ts/);
  });

  it('fullSigning: the general steps up front, the body code (contentDigest as an algorithm) behind import()', async () => {
    const { initial, all } = await split('src/profile/sign/full.ts');
    for (const file of FULL) expect(initial.has(file), `${file} with fullSigning`).toBe(true);
    for (const file of SIGN_BODY) expect(initial.has(file), `${file} loaded up front by fullSigning`).toBe(false);
    for (const file of SIGN_BODY) expect(all.has(file), `${file} reachable from fullSigning`).toBe(true);
  });

  it('contentDigestFor and signResponse: the body code behind import()', async () => {
    for (const entry of ['src/profile/sign/content-digest.ts', 'src/profile/sign-response.ts']) {
      const { initial, all } = await split(entry);
      for (const file of SIGN_BODY) expect(initial.has(file), `${file} loaded up front by ${entry}`).toBe(false);
      for (const file of SIGN_BODY) expect(all.has(file), `${file} reachable from ${entry}`).toBe(true);
    }
  });
});

describe('what verifyRequest and verifyResponse load', () => {
  it('verifyRequest: key discovery and the body check behind import(), the key import not', async () => {
    const parts = await split('src/profile/verify-request.ts');
    for (const file of [...DISCOVERY, ...CHECK_BODY]) expect(parts.initial.has(file), `${file} loaded up front`).toBe(false);
    for (const file of [...DISCOVERY, ...CHECK_BODY]) expect(parts.all.has(file), `${file} reachable through import()`).toBe(true);
    expect(parts.all.has('src/crypto/keys/verifying.ts')).toBe(true);
    // discovery.ts has the proof check statically: one chunk, one boundary.
    const discovery = await split('src/profile/verify/discovery.ts');
    expect(discovery.initial.has('src/profile/verify/directory-proof.ts')).toBe(true);
  });

  it('verifyResponse: the body check behind import()', async () => {
    const { initial, all } = await split('src/profile/verify-response.ts');
    for (const file of CHECK_BODY) expect(initial.has(file), `${file} loaded up front`).toBe(false);
    for (const file of CHECK_BODY) expect(all.has(file)).toBe(true);
  });
});

describe('no other boundary', () => {
  it('the response functions, the key import, the default nonce store and the verifier’s DirectoryClient are static imports of botsig', async () => {
    const { initial } = await split('src/index.ts');
    for (const file of [
      'src/profile/sign-response.ts',
      'src/profile/verify-response.ts',
      'src/crypto/keys/signing.ts',
      'src/crypto/keys/verifying.ts',
      'src/crypto/keys/external.ts',
      'src/profile/memory-nonce-store.ts',
      'src/directory/client.ts',
    ])
      expect(initial.has(file), `${file} loaded up front by botsig`).toBe(true);
  });

  it('the import() calls signRequest, fullSigning and verifyResponse can reach name only the boundaries', async () => {
    expect([...(await split('src/profile/sign-request.ts')).targets]).toEqual([]);
    expect([...(await split('src/profile/sign/full.ts')).targets]).toEqual(['src/profile/body/sign.ts']);
    expect([...(await split('src/profile/verify-response.ts')).targets].sort()).toEqual(['src/profile/body/check.ts']);
  });

  it('control: signRequestSync, botsig/noble and body/sign.ts have their code up front (the checks can fail)', async () => {
    const sync = await split('src/profile/sign/sync-key.ts');
    expect(sync.initial.has('src/profile/sign/full.ts')).toBe(true);
    const noble = await split('src/noble.ts');
    expect([...noble.initial].some((f) => f.includes('@noble/ed25519'))).toBe(true);
    const direct = await split('src/profile/body/sign.ts');
    for (const file of SIGN_BODY) expect(direct.initial.has(file)).toBe(true);
  });
});
