/**
 * Keeps the runtime matrix honest about what it covers (Node only):
 * - test/helpers/vectors.ts imports vector files by name (so they can be bundled);
 *   its lists must match the folders, or a new file would silently go untested;
 * - every test/directory/*.test.ts is either in the matrix or listed as Node-only with a reason.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLOUDFLARE_VECTOR_FILES, PROJECT_VECTOR_FILES, SF_PARSE_FILES, SF_SERIALISE_FILES } from '../helpers/vectors';
import { DIRECTORY_NODE_ONLY, matrixFiles, ROOT } from './bundle';

const VECTORS = resolve(ROOT, 'vectors');

function jsonFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...jsonFiles(join(dir, e.name), `${prefix}${e.name}/`));
    else if (e.name.endsWith('.json')) out.push(prefix + e.name);
  }
  return out.sort();
}

describe('test/helpers/vectors.ts lists every vector file', () => {
  it('vectors/*.json: our own vector files (the third-party folders below aside)', () => {
    const own = readdirSync(VECTORS, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.json'))
      .map((e) => e.name);
    expect([...PROJECT_VECTOR_FILES].sort()).toEqual(own.sort());
  });

  it('vectors/cloudflare-web-bot-auth/**/*.json (SOURCE.json aside)', () => {
    const onDisk = jsonFiles(join(VECTORS, 'cloudflare-web-bot-auth')).filter((f) => f !== 'SOURCE.json');
    expect([...CLOUDFLARE_VECTOR_FILES].sort()).toEqual(onDisk);
  });

  it('vectors/structured-field-tests: the parse corpus and serialisation-tests/', () => {
    const dir = join(VECTORS, 'structured-field-tests');
    const parse = readdirSync(dir)
      .filter((f) => f.endsWith('.json') && f !== 'SOURCE.json')
      .sort();
    const serialise = readdirSync(join(dir, 'serialisation-tests'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => `serialisation-tests/${f}`)
      .sort();
    expect(Object.keys(SF_PARSE_FILES).sort()).toEqual(parse);
    expect(Object.keys(SF_SERIALISE_FILES).sort()).toEqual(serialise);
  });
});

describe('runtime matrix membership', () => {
  it('every test/directory/*.test.ts runs in the matrix or is Node-only for a stated reason', () => {
    const matrix = new Set(matrixFiles());
    for (const f of readdirSync(join(ROOT, 'test/directory')).filter((n) => n.endsWith('.test.ts'))) {
      const rel = `test/directory/${f}`;
      expect(
        matrix.has(rel) || DIRECTORY_NODE_ONLY[rel] !== undefined,
        `${rel}: add it to MATRIX_FILES or DIRECTORY_NODE_ONLY in test/runtimes/bundle.ts`,
      ).toBe(true);
    }
  });

  it('the matrix covers the isomorphic layers, including the vector suite', () => {
    const files = matrixFiles();
    for (const dir of ['test/core/', 'test/crypto/', 'test/httpsig/', 'test/profile/']) {
      expect(
        files.some((f) => f.startsWith(dir)),
        dir,
      ).toBe(true);
    }
    expect(files).toContain('test/runtimes/vectors.portable.ts');
    expect(files).toContain('test/directory/document.test.ts');
  });
});
