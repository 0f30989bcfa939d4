/**
 * Which operations' result types a type error broke: the checker could not type something that flows
 * into the handler's result (its type holds the checker's error type, written `any` in the generated
 * contract). Read from the program the type check built, so nothing is checked twice.
 */
import ts from 'typescript';
import { fromVirtual, toVirtual } from './typecheck.ts';

/** 1-based line and column, as diagnostics have them. */
export interface Position {
  line: number;
  column: number;
}

/** Where a handler whose result is broken is written (its function, wherever it is declared). */
export interface BrokenResult {
  operation: string;
  file: string;
  start: Position;
  end: Position;
}

const GROUPS = new Set(['queries', 'mutations']);

function propertyName(property: ts.ObjectLiteralElementLike): string | undefined {
  const name = property.name;
  return name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;
}

/** The `handler` expression of each `'<name>': query({ … handler })` in the default export's groups. */
function handlers(source: ts.SourceFile): Array<[string, ts.Node]> {
  const out: Array<[string, ts.Node]> = [];
  const exported = source.statements.find((s): s is ts.ExportAssignment => ts.isExportAssignment(s) && !s.isExportEquals);
  const call = exported?.expression;
  const definition = call && ts.isCallExpression(call) ? call.arguments[0] : undefined;
  if (!definition || !ts.isObjectLiteralExpression(definition)) return out;
  for (const group of definition.properties) {
    if (!ts.isPropertyAssignment(group) || !GROUPS.has(propertyName(group) ?? '') || !ts.isObjectLiteralExpression(group.initializer)) continue;
    for (const operation of group.initializer.properties) {
      const name = propertyName(operation);
      if (!name || !ts.isPropertyAssignment(operation) || !ts.isCallExpression(operation.initializer)) continue;
      const options = operation.initializer.arguments[0];
      if (!options || !ts.isObjectLiteralExpression(options)) continue;
      for (const option of options.properties) {
        if (propertyName(option) !== 'handler') continue;
        if (ts.isPropertyAssignment(option)) out.push([name, option.initializer]);
        else if (ts.isMethodDeclaration(option)) out.push([name, option]);
      }
    }
  }
  return out;
}

/** True when the checker's error type is somewhere in the type (it prints as `any`, but is not the `any` the code wrote). */
function holdsErrorType(checker: ts.TypeChecker, type: ts.Type, seen = new Set<ts.Type>(), depth = 0): boolean {
  if (seen.has(type) || depth > 8) return false;
  seen.add(type);
  if (type.flags & ts.TypeFlags.Any) return (type as { intrinsicName?: string }).intrinsicName === 'error';
  if (type.isUnionOrIntersection()) return type.types.some((t) => holdsErrorType(checker, t, seen, depth + 1));
  if (!(type.flags & ts.TypeFlags.Object)) return false;
  const reference = type as ts.TypeReference;
  if ((reference as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference && checker.getTypeArguments(reference).some((t) => holdsErrorType(checker, t, seen, depth + 1))) return true;
  return checker.getPropertiesOfType(type).some((p) => holdsErrorType(checker, checker.getTypeOfSymbol(p), seen, depth + 1));
}

/** The function a handler expression names: itself when written inline, else the declaration it refers to. */
function handlerFunction(checker: ts.TypeChecker, expression: ts.Node): ts.Node {
  if (!ts.isIdentifier(expression)) return expression;
  let symbol = checker.getSymbolAtLocation(expression);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.valueDeclaration ?? expression;
}

function position(source: ts.SourceFile, offset: number): Position {
  const { line, character } = source.getLineAndCharacterOfPosition(offset);
  return { line: line + 1, column: character + 1 };
}

/** The operations of the server entrypoint whose result type holds a type error, with where their handlers are. */
export function brokenResults(program: ts.Program, serverEntry: string): BrokenResult[] {
  const source = program.getSourceFile(toVirtual(serverEntry));
  if (!source) return [];
  const checker = program.getTypeChecker();
  const out: BrokenResult[] = [];
  for (const [operation, expression] of handlers(source)) {
    const result = checker
      .getTypeAtLocation(expression)
      .getCallSignatures()
      .map((signature) => checker.getReturnTypeOfSignature(signature))
      .map((type) => checker.getAwaitedType(type) ?? type);
    if (!result.some((type) => holdsErrorType(checker, type))) continue;
    const node = handlerFunction(checker, expression);
    const file = fromVirtual(node.getSourceFile().fileName);
    if (file === undefined) continue;
    out.push({ operation, file, start: position(node.getSourceFile(), node.getStart()), end: position(node.getSourceFile(), node.getEnd()) });
  }
  return out;
}

/** True when a position lies in a handler's text. */
export function within(result: BrokenResult, file: string | undefined, at: Position | undefined): boolean {
  if (file !== result.file || !at) return false;
  const after = at.line > result.start.line || (at.line === result.start.line && at.column >= result.start.column);
  const before = at.line < result.end.line || (at.line === result.end.line && at.column <= result.end.column);
  return after && before;
}
