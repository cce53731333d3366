#!/usr/bin/env node
// Imports only point down: checks the layering ARCHITECTURE.md describes, and finds import
// cycles, over the relative imports of src/.
//
//   node scripts/check-layers.mjs [srcDir] [--type-cycles]     (npm run lint runs it)
//
// Layers, bottom to top (a module may import its own layer and the ones below it):
//
//   core → crypto → httpsig → profile → directory → stores → verifier → node → adapters → gate → cli → entry
//
// A module's layer is its first folder under src/ (src/httpsig/base.ts is `httpsig`);
// src/verifier.ts and src/verifier/** are `verifier`; every other file directly in src/
// (index.ts, node.ts, express.ts, ...) is an entry point, the top layer, free to import
// anything. A folder that is not in the list is itself an error: give it a place first.
//
// What counts as an import: `import ... from`, `export ... from`, bare `import './x'`,
// `import('./x')` and `import('./x').T` types, with a relative specifier ('./x', '../x.js')
// that resolves to a file under src/. Package imports are not this script's business
// (the core type-check keeps node:* out of the isomorphic layers).
//
// Type-only imports (`import type`, `export type`, `import { type A, type B }`,
// `import('./x').T` in a type position) are held to the same direction, so that a reader
// can trust it, but are listed separately: they vanish from the JavaScript, so they
// tangle the design, not the load order.
//
// Cycles: a depth-first search over the import graph reports every group of modules that
// import each other (a strongly connected component), with one cycle through it. By
// default only value imports count (static imports and re-exports that stay in the
// JavaScript): those are the cycles that decide load order, where a module can see
// another's bindings before they are initialised, and the ones that fail the check.
// Cycles that need a type-only import to close are printed as a note; `--type-cycles`
// makes them fail too. Lazy `import()` calls are not edges (they run after loading).
//
// Output: one line per violation, `file:line imports X (layer A → layer B)`, then the
// cycles as `a.ts:LINE → b.ts:LINE → a.ts` (LINE: where the import of the next one is).
// Exit status 1 on any violation, unplaced folder or (value) cycle, 0 otherwise, 2 on bad usage.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

/** Bottom to top. `entry` (the files directly in src/) is the top. */
export const LAYERS = Object.freeze(['core', 'crypto', 'httpsig', 'profile', 'directory', 'stores', 'verifier', 'node', 'adapters', 'gate', 'cli', 'entry']);

const SOURCE = /\.(?:ts|mts|cts|tsx)$/;

/** The layer of a path relative to the source root (`/`-separated), or undefined for an unknown folder. */
export function layerOf(rel) {
  const parts = rel.split('/');
  if (parts.length === 1) return /^verifier\.[cm]?tsx?$/.test(parts[0]) ? 'verifier' : 'entry';
  return LAYERS.includes(parts[0]) && parts[0] !== 'entry' ? parts[0] : undefined;
}

function listSources(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) listSources(full, out);
    else if (SOURCE.test(name)) out.push(full);
  }
  return out;
}

/** Resolves a relative specifier the way `moduleResolution: bundler` does for our sources. */
function resolveRelative(fromFile, specifier) {
  const base = path.resolve(path.dirname(fromFile), specifier);
  const stem = base.replace(/\.(?:[cm]?js|jsx)$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    `${stem}.cts`,
    `${stem}.d.ts`,
    path.join(base, 'index.ts'),
    path.join(base, 'index.tsx'),
  ];
  if (stem !== base) candidates.push(path.join(stem, 'index.ts'));
  for (const c of candidates) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  return undefined;
}

/**
 * The relative imports of one file: `{ specifier, line, typeOnly, lazy }`.
 * Comments and strings never count: the file is parsed, not grepped.
 */
export function importsOf(file, text = readFileSync(file, 'utf8')) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const add = (specNode, typeOnly, lazy) => {
    if (!ts.isStringLiteralLike(specNode)) return;
    const specifier = specNode.text;
    if (!specifier.startsWith('./') && !specifier.startsWith('../') && specifier !== '.' && specifier !== '..') return;
    const line = sf.getLineAndCharacterOfPosition(specNode.getStart(sf)).line + 1;
    found.push({ specifier, line, typeOnly, lazy });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      let typeOnly = false;
      if (clause !== undefined) {
        if (clause.isTypeOnly) typeOnly = true;
        else if (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings)) {
          const elements = clause.namedBindings.elements;
          // `import { type A, type B } from './x'`: erased in intent (TypeScript keeps an empty `import {}` under verbatimModuleSyntax).
          typeOnly = elements.length > 0 && elements.every((e) => e.isTypeOnly);
        }
      }
      add(node.moduleSpecifier, typeOnly, false);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined) {
      let typeOnly = node.isTypeOnly;
      if (!typeOnly && node.exportClause !== undefined && ts.isNamedExports(node.exportClause)) {
        const elements = node.exportClause.elements;
        typeOnly = elements.length > 0 && elements.every((e) => e.isTypeOnly);
      }
      add(node.moduleSpecifier, typeOnly, false);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly, false);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments.length > 0) {
      add(node.arguments[0], false, true);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Strongly connected components of size > 1 (or with a self-edge), each with one cycle through it (Tarjan, iterative). */
function findCycles(nodes, edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  for (const root of nodes) {
    if (idx.has(root)) continue;
    const work = [{ v: root, i: 0 }];
    idx.set(root, index);
    low.set(root, index++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const next = [...(edges.get(frame.v)?.keys() ?? [])];
      if (frame.i < next.length) {
        const w = next[frame.i++];
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.v, Math.min(low.get(frame.v), idx.get(w)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].v;
        low.set(parent, Math.min(low.get(parent), low.get(frame.v)));
      }
      if (low.get(frame.v) === idx.get(frame.v)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.v);
        if (component.length > 1 || edges.get(frame.v)?.has(frame.v)) components.push(component.sort());
      }
    }
  }
  // One concrete cycle per component: breadth-first from its first module back to itself, inside the component.
  return components.map((members) => {
    const inside = new Set(members);
    const start = members[0];
    const prev = new Map();
    const queue = [start];
    let end;
    while (queue.length > 0 && end === undefined) {
      const v = queue.shift();
      for (const w of edges.get(v)?.keys() ?? []) {
        if (!inside.has(w)) continue;
        if (w === start) {
          end = v;
          break;
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    const pathBack = [end];
    while (pathBack[pathBack.length - 1] !== start) pathBack.push(prev.get(pathBack[pathBack.length - 1]));
    const cycle = pathBack.reverse();
    return { members, cycle: [...cycle, start] };
  });
}

/** `{ file, line, typeOnly }` steps around a cycle; the last step is the first module again. */
function describeCycles(components, edges) {
  return components.map(({ members, cycle }) => ({
    members,
    cycle: cycle.map((m, i) => (i < cycle.length - 1 ? { file: m, ...edges.get(m).get(cycle[i + 1]) } : { file: m })),
  }));
}

/**
 * Checks a source tree. Returns `{ files, violations, typeViolations, unknown, cycles, typeCycles }`;
 * a violation is `{ file, line, specifier, target, from, to }` (paths relative to `srcDir`);
 * `cycles` go through value imports only, `typeCycles` are the further tangles that need a
 * type-only import to close.
 */
export function checkLayers(srcDir) {
  const root = path.resolve(srcDir);
  const rel = (f) => path.relative(root, f).split(path.sep).join('/');
  const files = listSources(root);
  const violations = [];
  const typeViolations = [];
  const unknown = [];
  const valueEdges = new Map();
  const allEdges = new Map();
  const seenUnknown = new Set();
  for (const file of files) {
    const from = rel(file);
    const fromLayer = layerOf(from);
    if (fromLayer === undefined) {
      const folder = from.split('/')[0];
      if (!seenUnknown.has(folder)) {
        seenUnknown.add(folder);
        unknown.push({ folder, file: from });
      }
    }
    const values = new Map();
    const all = new Map();
    valueEdges.set(from, values);
    allEdges.set(from, all);
    for (const imp of importsOf(file)) {
      const resolved = resolveRelative(file, imp.specifier);
      if (resolved === undefined) continue; // a missing file is the type-checker's to report
      const target = rel(resolved);
      if (target.startsWith('../') || path.isAbsolute(target)) continue; // outside src/ (package.json, ...)
      if (!imp.lazy) {
        const edge = { line: imp.line, typeOnly: imp.typeOnly };
        if (!imp.typeOnly && !values.has(target)) values.set(target, edge);
        if (!all.has(target) || (all.get(target).typeOnly && !imp.typeOnly)) all.set(target, edge);
      }
      const toLayer = layerOf(target);
      if (fromLayer === undefined || toLayer === undefined) continue;
      if (LAYERS.indexOf(toLayer) > LAYERS.indexOf(fromLayer)) {
        (imp.typeOnly ? typeViolations : violations).push({ file: from, line: imp.line, specifier: imp.specifier, target, from: fromLayer, to: toLayer });
      }
    }
  }
  const nodes = files.map((f) => rel(f));
  const cycles = describeCycles(findCycles(nodes, valueEdges), valueEdges);
  const valueSets = new Set(cycles.map((c) => c.members.join('\n')));
  const typeCycles = describeCycles(
    findCycles(nodes, allEdges).filter((c) => !valueSets.has(c.members.join('\n'))),
    allEdges,
  );
  return { files: files.length, violations, typeViolations, unknown, cycles, typeCycles };
}

function main(argv) {
  const args = argv.filter((a) => !a.startsWith('--'));
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  for (const f of flags) {
    if (f !== '--type-cycles' && f !== '--help') {
      console.error(`check-layers: unknown option ${f}`);
      return 2;
    }
  }
  if (flags.has('--help') || args.length > 1) {
    console.log('usage: node scripts/check-layers.mjs [srcDir] [--type-cycles]');
    return flags.has('--help') ? 0 : 2;
  }
  const strictTypes = flags.has('--type-cycles');
  const scriptDir = path.dirname(fileURLToPath(import.meta.url));
  const srcDir = path.resolve(args[0] ?? path.join(scriptDir, '..', 'src'));
  const relDir = path.relative(process.cwd(), srcDir);
  const shown = relDir === '' ? '.' : relDir.startsWith('..') ? srcDir : relDir;
  const show = (f) => `${shown}/${f}`;
  const result = checkLayers(srcDir);
  const order = LAYERS.join(' → ');

  for (const u of result.unknown) console.log(`${show(u.file)}: folder ${u.folder}/ is in no layer (${order}); add it to LAYERS in scripts/check-layers.mjs`);
  const line = (v) => `${show(v.file)}:${v.line} imports ${v.specifier} (${v.from} → ${v.to})`;
  if (result.violations.length > 0) {
    console.log(`Upward imports (${result.violations.length}):`);
    for (const v of result.violations) console.log(`  ${line(v)}`);
  }
  if (result.typeViolations.length > 0) {
    console.log(`Upward type-only imports (${result.typeViolations.length}):`);
    for (const v of result.typeViolations) console.log(`  ${line(v)}`);
  }
  const printCycles = (title, cycles) => {
    if (cycles.length === 0) return;
    console.log(`${title} (${cycles.length}):`);
    for (const c of cycles) {
      const steps = c.cycle.map((s) => (s.line === undefined ? show(s.file) : `${show(s.file)}:${s.line}${s.typeOnly ? ' (type)' : ''}`)).join(' → ');
      const more = c.members.length > c.cycle.length - 1 ? ` [${c.members.length} modules tangled: ${c.members.join(', ')}]` : '';
      console.log(`  ${steps}${more}`);
    }
  };
  printCycles('Import cycles', result.cycles);
  printCycles(
    strictTypes ? 'Import cycles through type-only imports' : 'Note: cycles through type-only imports (not failing; --type-cycles fails on them)',
    result.typeCycles,
  );

  const failing =
    result.unknown.length + result.violations.length + result.typeViolations.length + result.cycles.length + (strictTypes ? result.typeCycles.length : 0);
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const summary =
    `${result.files} modules: ${result.violations.length} upward, ${result.typeViolations.length} upward type-only, ${plural(result.cycles.length, 'cycle')}, ` +
    `${result.typeCycles.length} type-only cycle${result.typeCycles.length === 1 ? '' : 's'}${result.unknown.length > 0 ? `, ${plural(result.unknown.length, 'unplaced folder')}` : ''}`;
  if (failing === 0) {
    console.log(`check-layers: ok, ${summary} (${order})`);
    return 0;
  }
  console.log(`check-layers: FAILED, ${summary}`);
  return 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
