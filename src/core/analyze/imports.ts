/** The imports of one source file, read from its syntax tree: static, re-exports and dynamic. */
import ts from 'typescript';

export interface ImportRecord {
  specifier: string;
  /** The string literal (with quotes), or the whole argument of a dynamic import. */
  start: number;
  length: number;
  kind: 'static' | 'dynamic' | 'type';
  /** False for `import(expr)` whose argument is not a string literal. */
  literal: boolean;
}

export function scriptKind(path: string): ts.ScriptKind {
  if (path.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (path.endsWith('.jsx')) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(path)) return ts.ScriptKind.JS;
  if (path.endsWith('.json')) return ts.ScriptKind.JSON;
  return ts.ScriptKind.TS;
}

export function parse(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, scriptKind(path));
}

/** Each tree's imports, read once: a tree is parsed once per text (graph.ts), so a rebuild reads only the edited files'. */
const importsOf = new WeakMap<ts.SourceFile, readonly ImportRecord[]>();

export function readImports(source: ts.SourceFile): readonly ImportRecord[] {
  const kept = importsOf.get(source);
  if (kept) return kept;
  const out: ImportRecord[] = [];
  const literal = (node: ts.StringLiteralLike, kind: ImportRecord['kind']) =>
    out.push({ specifier: node.text, start: node.getStart(source), length: node.getWidth(source), kind, literal: true });

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = node.importClause?.isTypeOnly ?? false;
      literal(node.moduleSpecifier, typeOnly ? 'type' : 'static');
      return;
    }
    if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      literal(node.moduleSpecifier, node.isTypeOnly ? 'type' : 'static');
      return;
    }
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      literal(node.moduleReference.expression, 'static');
      return;
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const argument = node.arguments[0];
      if (argument && ts.isStringLiteralLike(argument)) literal(argument, 'dynamic');
      else {
        const target = argument ?? node;
        out.push({ specifier: '', start: target.getStart(source), length: target.getWidth(source), kind: 'dynamic', literal: false });
      }
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      literal(node.argument.literal, 'type');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  importsOf.set(source, out);
  return out;
}
