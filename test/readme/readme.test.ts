/**
 * README examples that run as written (issue 14). `npm run check:readme` (after
 * `npm run build`) type-checks every ```ts / ```js block of README.md against dist/
 * and runs the ones that stay on loopback (scripts/check-readme.mjs). This suite
 * covers what needs no build: the block extractor, rules every README block must
 * follow, and the guards of the runner (scripts/readme/run-block.mjs).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { extractBlocks, LANGUAGES } from '../../scripts/readme/extract.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const DOCUMENTS = ['README.md', 'docs/agent.md', 'docs/origin.md', 'docs/directory.md', 'docs/gate.md', 'docs/security-model.md'];
const texts = DOCUMENTS.map((name) => ({ name, text: readFileSync(join(ROOT, name), 'utf8') }));
/** Every checked block, its `line` prefixed with its file (`docs/agent.md:18`). */
const checked = texts.flatMap(({ name, text }) =>
  extractBlocks(text)
    .blocks.filter((b) => b.lang in LANGUAGES)
    .map((b) => ({ ...b, line: `${name}:${b.line}` })),
);

describe('extractBlocks', () => {
  const md = [
    '# t', //                                   1
    '', //                                      2
    '````md', //                                3
    '```ts', //                                 4  (inside the md block)
    'not code', //                              5
    '```', //                                   6
    '````', //                                  7
    '<!-- readme: typecheck-only: it calls example.com -->', // 8
    '', //                                      9
    '```ts', //                                 10
    'const a = 1;', //                          11
    '```', //                                   12
    '~~~js', //                                 13
    'let b;', //                                14
    '~~~', //                                   15
    '<!-- readme: after the sh block above -->', // 16
    '```TypeScript', //                         17
    '```', //                                   18
  ].join('\n');

  it('finds each block with its fence line, first code line, language and text', () => {
    const { blocks, problems } = extractBlocks(md);
    expect(problems).toEqual([]);
    expect(blocks.map((b) => [b.line, b.codeLine, b.lang])).toEqual([
      [3, 4, 'md'],
      [10, 11, 'ts'],
      [13, 14, 'js'],
      [17, 18, 'typescript'],
    ]);
    expect(blocks[0]?.code).toBe('```ts\nnot code\n```\n');
    expect(blocks[1]?.code).toBe('const a = 1;\n');
    expect(blocks[3]?.code).toBe('\n');
  });

  it('attaches the directive written before a block (blank lines between are allowed)', () => {
    const { blocks } = extractBlocks(md);
    expect(blocks.map((b) => b.directive)).toEqual([undefined, 'typecheck-only', undefined, 'after-sh-block']);
    expect(blocks[1]?.directiveText).toBe('typecheck-only: it calls example.com');
    expect(blocks[1]?.directiveLine).toBe(8);
  });

  it('reports unknown directives, a directive before no block, a typecheck-only without a reason, and an unclosed fence', () => {
    expect(extractBlocks('<!-- readme: run -->\n```ts\nx\n```\n').problems).toEqual([expect.stringMatching(/^1: unknown readme directive "run"/)]);
    expect(extractBlocks('<!-- readme: typecheck-only -->\n```ts\nx\n```\n').problems).toEqual([expect.stringMatching(/^1: unknown readme directive/)]);
    expect(extractBlocks('<!-- readme: with redis-server -->\ntext\n```ts\nx\n```\n').problems).toEqual(['1: a readme directive that precedes no code block']);
    expect(extractBlocks('<!-- readme: with redis-server -->\n```sh\nx\n```\n').problems).toEqual([
      expect.stringMatching(/^1: a readme directive before a ```sh block/),
    ]);
    expect(extractBlocks('text\n```ts\nx\n').problems).toEqual(['2: a code fence that is never closed']);
  });
});

describe('README.md and guide code blocks', () => {
  it('parse, and have ts and js blocks to check', () => {
    expect(texts.flatMap(({ name, text }) => extractBlocks(text).problems.map((p) => `${name}:${p}`))).toEqual([]);
    expect(checked.some((b) => LANGUAGES[b.lang] === '.mts')).toBe(true);
    expect(checked.some((b) => LANGUAGES[b.lang] === '.mjs')).toBe(true);
  });

  it('import botsig only through the entries of package.json "exports"', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const entries = new Set(Object.keys(pkg.exports).map((s) => (s === '.' ? 'botsig' : `botsig/${s.slice(2)}`)));
    const wrong: string[] = [];
    for (const b of checked) {
      for (const m of b.code.matchAll(/(?:from\s*|import\s*\(\s*|require\)?\s*\(\s*)['"](botsig(?:\/[^'"]*)?)['"]/g)) {
        if (!entries.has(m[1] ?? '')) wrong.push(`line ${b.line}: ${m[1]}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("name the origin's own authorities wherever they verify requests (security model)", () => {
    const verifies = /\b(verifyRequest|createVerifier|createNodeVerifier|createNodeMiddleware)\s*\(|\bbotsig\s*[(,]/;
    const missing = checked.filter((b) => verifies.test(b.code) && !/\bauthorities\s*:/.test(b.code)).map((b) => b.line);
    expect(missing).toEqual([]);
  });
});

describe('scripts/readme/run-block.mjs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'botsig-readme-run-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function run(name: string, code: string): Promise<{ code: number; out: string }> {
    const file = join(dir, name);
    writeFileSync(file, code);
    return new Promise((done) => {
      execFile(process.execPath, [join(ROOT, 'scripts', 'readme', 'run-block.mjs'), file], { cwd: dir, timeout: 20_000 }, (err, stdout, stderr) => {
        done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, out: stdout + stderr });
      });
    });
  }

  it('moves every listen() to 127.0.0.1 port 0, sends each server its requests, and closes it', async () => {
    const r = await run('server.mjs', "import { createServer } from 'node:http';\ncreateServer((req, res) => res.end('ok')).listen(8080);\n");
    expect(r.out).toMatch(/GET \/ \(Host: example\.com\) on the server at 127\.0\.0\.1:\d+: 200/);
    expect(r.out).toMatch(/GET \/public\/readme \(Host: exa mple\.com\) on the server at 127\.0\.0\.1:\d+: 200/);
    expect(r.out).not.toContain(':8080');
    expect(r.code, r.out).toBe(0);
  });

  it('fails a server that answers 5xx, e.g. to a malformed Host', async () => {
    const r = await run(
      'url-from-host.mjs',
      [
        "import { createServer } from 'node:http';",
        'createServer((req, res) => {',
        '  try { res.end(new URL(`http://${req.headers.host}/`).host); } catch { res.statusCode = 500; res.end(); }',
        '}).listen(3000);',
      ].join('\n'),
    );
    expect(r.out).toMatch(/GET \/public\/readme \(Host: exa mple\.com\) on the server at 127\.0\.0\.1:\d+: answered 500/);
    expect(r.code).toBe(1);
  });

  it('refuses connections and DNS lookups beyond loopback, and fails the run even when the block catches the error', async () => {
    const r = await run(
      'network.mjs',
      [
        "import { promises as dns } from 'node:dns';",
        "await fetch('https://example.com/').catch(() => undefined);",
        "await dns.lookup('example.org').catch(() => undefined);",
        // DNS queries (c-ares) open UDP sockets that no TCP guard sees.
        "await new dns.Resolver().resolve4('example.net').catch(() => undefined);",
      ].join('\n'),
    );
    expect(r.out).toContain('refused a connection to example.com:443');
    expect(r.out).toContain('refused a DNS lookup of example.org');
    expect(r.out).toContain('refused a DNS lookup of example.net');
    expect(r.code).toBe(1);
  });

  it('calls the fetch of a default export (Workers, Bun, Deno style)', async () => {
    const r = await run('worker.mjs', 'export default { fetch: (request) => new Response(new URL(request.url).pathname) };\n');
    expect(r.out).toContain("default export's fetch(GET https://example.com/): 200");
    expect(r.code, r.out).toBe(0);
  });

  it('fails a block that throws', async () => {
    const r = await run('throws.mjs', "throw new Error('boom');\n");
    expect(r.out).toContain('the block threw: Error: boom');
    expect(r.code).toBe(1);
  });
});
