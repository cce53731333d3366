// Where a position sits in a TypeScript source: the name of the function around it, and the
// text of its lines, whitespace-normalised. Shared by the equivalents check and the gate
// (scripts/check-mutation.mjs), so that a record names code the way a reader finds it, not by
// line number.
import ts from 'typescript';

/** Lines of `text`, trimmed, with runs of whitespace as one space. */
export const normalise = (line) => line.trim().replace(/\s+/g, ' ');

function nameOf(node) {
  if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name) return node.name.text;
  if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node) || ts.isPropertyDeclaration(node)) {
    return node.name && ts.isIdentifier(node.name) ? node.name.text : node.name?.getText();
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    const p = node.parent;
    if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
    if (p && ts.isPropertyAssignment(p)) return p.name.getText();
    if (node.name) return node.name.text;
  }
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.parent?.parent?.parent && ts.isSourceFile(node.parent.parent.parent)) {
    return node.name.text;
  }
  return undefined;
}

/** A parsed source whose positions can be asked for their enclosing function. */
export class SourceIndex {
  constructor(fileName, text) {
    this.text = text;
    this.sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    this.lines = text.split('\n');
  }

  /** Names of the functions (and classes, module-level constants) around a 1-based line and column, outermost first. */
  namesAt(line, column = 1) {
    const width = (this.lines[line - 1] ?? '').length;
    const pos = this.sf.getPositionOfLineAndCharacter(Math.min(line, this.lines.length) - 1, Math.min(width, Math.max(0, column - 1)));
    const names = [];
    const visit = (node) => {
      if (pos < node.getStart(this.sf) || pos >= node.getEnd()) return;
      const name = nameOf(node);
      if (name) names.push(name);
      ts.forEachChild(node, visit);
    };
    ts.forEachChild(this.sf, visit);
    return names;
  }

  /** The innermost function around a position, qualified by its parent (`Class.method`), or `<module>`. */
  functionAt(line, column = 1) {
    const names = this.namesAt(line, column);
    return names.length === 0 ? '<module>' : names.slice(-2).join('.');
  }

  /** Every name a record may use for the code at a position: `<module>` and each enclosing function, plain or qualified by its parent. */
  scopesAt(line, column = 1) {
    const names = this.namesAt(line, column);
    const scopes = new Set(['<module>']);
    names.forEach((n, i) => {
      scopes.add(n);
      if (i > 0) scopes.add(`${names[i - 1]}.${n}`);
    });
    return scopes;
  }

  /** The normalised text of a 1-based line. */
  lineText(line) {
    return normalise(this.lines[line - 1] ?? '');
  }

  /** 1-based lines whose normalised text is `snippetLine`. */
  linesOf(snippetLine) {
    const out = [];
    for (let i = 0; i < this.lines.length; i++) if (normalise(this.lines[i]) === snippetLine) out.push(i + 1);
    return out;
  }
}
