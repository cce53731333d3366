// What a recorded mutation score was measured on: a fingerprint of the file's code, without its
// comments, layout and module specifiers (the TypeScript printer re-emits the syntax tree with
// comments removed, and imports and re-exports are left out: no mutant lives in them), so that
// editing a docblock, reformatting or moving a module it imports keeps a record while changing
// code makes it stale.
//
// scripts/check-mutation.mjs --update records the fingerprint of the source Stryker mutated beside
// each score; scripts/check-source.mjs (npm run lint) fails when a file whose record has one no
// longer matches it: run the file's mutation again and record it.
import { createHash } from 'node:crypto';
import ts from 'typescript';

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** The fingerprint of `text`, the source of `fileName`: 16 hex digits of a SHA-256 over its printed syntax tree. */
export function codeFingerprint(text, fileName = 'file.ts') {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const hash = createHash('sha256');
  for (const statement of sf.statements) {
    if (ts.isImportDeclaration(statement) || (ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined)) continue;
    hash.update(printer.printNode(ts.EmitHint.Unspecified, statement, sf)).update('\n');
  }
  return hash.digest('hex').slice(0, 16);
}
