#!/usr/bin/env node
// Tests reach public behaviour through the public entries. The rule, checked with the
// TypeScript compiler: a test imports from an internal module (src/<layer>/...) no name that a
// public entry exports as the SAME binding under the same name (the declaration the export
// resolves to, not the spelling: `relabelSignature` of botsig and of botsig/httpsig are two
// functions; `signResponse` of botsig is a lazy wrapper, not the implementation). Internal names
// (a parser's helpers, limits, constants) stay imported from their modules: unit tests of
// internals are legitimate. Not counted against the rule:
//   - entries that run code when imported (botsig/node installs the Node defaults), since that
//     would change what the test runs;
//   - files that reset or mock modules (vi.resetModules, vi.doMock, vi.mock of a src path),
//     which need the modules themselves.
// The public entries are the subpaths of package.json `exports` ('.' is src/index.ts, './x' is
// src/x.ts); src/*.node.ts are their Node-condition twins.
//
//   node scripts/check-test-imports.mjs           problems, and how many test files import internals
//   node scripts/check-test-imports.mjs --list    also each test file that imports internals, and what
// check-source.mjs runs testImportProblems() as one of its checks.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** The public entries: name ('index', 'directory', ...) and whether importing it runs code. */
function publicEntries(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.keys(pkg.exports)
    .filter((k) => k !== './package.json')
    .map((k) => (k === '.' ? 'index' : k.slice(2)))
    .map((name) => {
      const file = join(root, 'src', `${name}.ts`);
      const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
      const runsCode = sf.statements.some((s) => !ts.isImportDeclaration(s) && !ts.isExportDeclaration(s));
      return { name, file, runsCode };
    });
}

const MODULE_GAMES = /vi\.(resetModules|doMock)\(|vi\.mock\(\s*['"][^'"]*src\//;

/**
 * Checks every test file under test/ (fixtures aside).
 * @returns {{ problems: string[], testFiles: number, internal: Map<string, Set<string>>, publicOnly: number }}
 */
export function testImportProblems(root = process.cwd()) {
  const entries = publicEntries(root);
  const entryFiles = new Set(entries.map((e) => e.file));
  const isEntry = (file) => entryFiles.has(file) || /^src\/[^/]+\.node\.ts$/.test(relative(root, file));
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const roots = config.fileNames.filter((f) => relative(root, f).startsWith('test/') || entryFiles.has(resolve(f)));
  const program = ts.createProgram({ rootNames: roots, options: config.options });
  const checker = program.getTypeChecker();
  const original = (s) => (s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);

  /** declaration symbol → entries that export it, by exported name */
  const exported = new Map();
  for (const e of entries.filter((x) => !x.runsCode)) {
    const sf = program.getSourceFile(e.file);
    for (const s of checker.getExportsOfModule(checker.getSymbolAtLocation(sf))) {
      const o = original(s);
      if (!exported.has(o)) exported.set(o, []);
      exported.get(o).push({ entry: e.name, name: s.name });
    }
  }

  const problems = [];
  const internal = new Map();
  let testFiles = 0;
  let publicOnly = 0;
  for (const sf of program.getSourceFiles()) {
    const rel = relative(root, sf.fileName);
    if (!rel.startsWith('test/') || rel.includes('/fixtures/') || rel.endsWith('.d.ts')) continue;
    const isTest = rel.endsWith('.test.ts');
    if (isTest) testFiles++;
    const exempt = MODULE_GAMES.test(sf.text);
    let reachesSrc = false;
    const internals = new Set();
    const visit = (node) => {
      let spec;
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
        spec = node.moduleSpecifier.text;
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0]))
        spec = node.arguments[0].text;
      else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) spec = node.argument.literal.text;
      if (spec !== undefined && spec.startsWith('.')) {
        const target = relative(root, resolve(dirname(sf.fileName), spec));
        if (target.startsWith('src/')) {
          reachesSrc = true;
          const file = join(root, `${target.replace(/\.(ts|js)$/, '')}.ts`);
          if (!isEntry(file)) {
            internals.add(target);
            const named = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : undefined;
            if (!exempt && named && ts.isNamedImports(named)) {
              for (const el of named.elements) {
                const name = (el.propertyName ?? el.name).text;
                const same = (exported.get(original(checker.getSymbolAtLocation(el.name))) ?? []).filter((x) => x.name === name);
                if (same.length > 0) {
                  const { line } = sf.getLineAndCharacterOfPosition(el.getStart(sf));
                  const where = same.map((x) => `src/${x.entry}.ts`).join(' or ');
                  problems.push(`${rel}:${line + 1}: \`${name}\` from ${target} is the binding ${where} exports; import it from there`);
                }
              }
            }
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    if (!isTest) continue;
    if (internals.size > 0) internal.set(rel, internals);
    else if (reachesSrc) publicOnly++;
  }
  return { problems, testFiles, internal, publicOnly };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { problems, testFiles, internal, publicOnly } = testImportProblems();
  if (process.argv.includes('--list')) for (const [file, mods] of internal) console.log(`${file}: ${[...mods].join(' ')}`);
  console.log(`check-test-imports: ${testFiles} test files; ${publicOnly} import only public entries; ${internal.size} import internal modules too`);
  if (problems.length > 0) {
    console.error(`check-test-imports: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
  }
}
