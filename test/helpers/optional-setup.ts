/**
 * Vitest globalSetup (vitest.config.ts): once per run, before any test file, one
 * line per missing optional tool (test/helpers/optional-tools.ts) naming the suites
 * that need it and how to enable them. Printed here rather than from the test
 * files, so that it appears once, in any reporter's output.
 *
 * The suites are found by the helper they call (`describeWithRedis`,
 * `describeWithChromium`, `describeWithNginx`, `describeWithCaddy`), so the list
 * cannot drift from the tests. When Vitest
 * tells which files this run selected, a tool none of them needs is not mentioned.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { TestProject } from 'vitest/node';
import { CADDY, CHROMIUM, missingLine, NGINX, REDIS } from './optional-tools';

function testFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') testFiles(p, out);
    } else if (e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** The files of this run, when Vitest exposes them (not public API: undefined if it changes). */
function selectedFiles(project: TestProject): ReadonlySet<string> | undefined {
  try {
    const paths = (project.vitest as unknown as { state?: { getPaths?: () => unknown } }).state?.getPaths?.();
    return Array.isArray(paths) && paths.length > 0 ? new Set(paths.map((p) => resolve(String(p)))) : undefined;
  } catch {
    return undefined;
  }
}

export default function setup(project: TestProject): void {
  const root = project.config.root;
  const missing = [REDIS, CHROMIUM, NGINX, CADDY].filter((tool) => tool.missing() !== undefined);
  if (missing.length === 0) return;
  const files = testFiles(join(root, 'test')).sort();
  const selected = selectedFiles(project);
  for (const tool of missing) {
    const needing: string[] = [];
    for (const f of files) {
      if (selected !== undefined && !selected.has(resolve(f))) continue;
      const text = readFileSync(f, 'utf8');
      if (!text.includes(tool.describeName)) continue;
      // `import { describeWithRedis as describe }`: the whole file; called by name: some of its suites.
      const name = relative(root, f).split(sep).join('/');
      needing.push(text.includes(`${tool.describeName} as describe`) ? name : `part of ${name}`);
    }
    if (needing.length === 0 && selected !== undefined) continue;
    console.log(missingLine(tool, needing));
  }
}
