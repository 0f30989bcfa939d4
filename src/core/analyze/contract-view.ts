/**
 * What of the generated contract a client file can observe. The client is typed from the server
 * through `platform/client` and `platform/types`; most client code sees the contract only through
 * `useQuery('todos.list', …)`, `useMutation('todos.add')`, `query(…)` and `mutation(…)` called with a
 * literal name, whose types come from that operation's entry alone (and from its name being in the
 * contract). Such a file's diagnostics do not change when the contract changes elsewhere: a new
 * operation, or one it does not call. The analysis keys a checked file's diagnostics on that view too
 * (`TypeCheckSession.checkCached`), so a save that adds a query to the server does not type the
 * client's JSX again in a new checker.
 *
 * Anything this reading cannot account for makes the file see the whole contract ('wide'): a
 * per-operation function named without a literal, passed around or given type arguments; an export it
 * does not know; a namespace or default import; any other platform module, or one named anywhere but an
 * import declaration (a re-export, a require, an import type, an augmentation); a path into `.platform/`;
 * a module named by a computed value; JSDoc in JavaScript that mentions the platform.
 */
import ts from 'typescript';
import { canonicalJson, sha256Hex } from '../hash/index.ts';
import type { OperationTable } from './server-definition.ts';

export type OperationGroup = 'queries' | 'mutations';

/** 'wide': the whole contract may be observed; otherwise the operations named (`<group> <name>`), maybe none. */
export type ContractUse = 'wide' | ReadonlySet<string>;

/** platform/client's functions typed by the one operation their first argument names, and its group. */
export const PER_OPERATION: Readonly<Record<string, OperationGroup>> = { useQuery: 'queries', query: 'queries', useMutation: 'mutations', mutation: 'mutations' };

/**
 * The exports of platform/client and platform/types whose types do not depend on the operations
 * (`Register['server']`, `Register['operations']`). Those typed by the tables (`App`, `Row`, …) depend
 * on `Register['app']`, which every view includes. Every other export of those modules is wide (the
 * test beside this file checks that the two lists and PER_OPERATION cover both modules' exports).
 */
export const OPERATION_FREE: Readonly<Record<'platform/client' | 'platform/types', ReadonlySet<string>>> = {
  'platform/client': new Set([
    'RuntimeError',
    'isRuntimeError',
    'PageAuth',
    'RuntimeErrorShape',
    'WorkspaceInfo',
    'WorkspaceInvite',
    'CallAnswer',
    'TableSet',
    'ClientHost',
    'installClientHost',
    'CallSettled',
    'QueryClient',
    'QueryState',
    'invalidateQueries',
    'getAuth',
    'useAuth',
    'useWorkspaces',
    'signIn',
    'signOut',
    'createWorkspace',
    'inviteToWorkspace',
    'joinWorkspace',
    'leaveWorkspace',
  ]),
  'platform/types': new Set([
    'JsonValue',
    'Encodable',
    'InputDescriptor',
    'InputShape',
    'InputOf',
    'Persona',
    'Auth',
    'WorkspaceInfo',
    'PageAuth',
    'WorkspaceInvite',
    'RuntimeErrorInfo',
    'RuntimeErrorShape',
    'TableSet',
    'HttpMethod',
    'RowBase',
    'TableShape',
    'AppShape',
    'PermissiveApp',
    'App',
    'Capability',
    'TableName',
    'Row',
    'Insert',
  ]),
};

/** Exports of those modules that see the whole contract, named so that the coverage test can tell them from forgotten ones. */
export const CONTRACT_WIDE: Readonly<Record<'platform/client' | 'platform/types', ReadonlySet<string>>> = {
  'platform/client': new Set(),
  'platform/types': new Set(['Register', 'QueryNames', 'MutationNames', 'QueryInput', 'QueryResult', 'MutationInput', 'MutationResult']),
};

type ReadModule = keyof typeof OPERATION_FREE;

const PLATFORM_SPECIFIER = /^platform(?:\/|$)|(?:^|\/)\.platform(?:\/|$)/;

const uses = new WeakMap<ts.SourceFile, ContractUse>();

/** What a parsed file observes of the contract (kept per syntax tree). */
export function contractUse(source: ts.SourceFile): ContractUse {
  let use = uses.get(source);
  if (use === undefined) {
    use = readUse(source);
    uses.set(source, use);
  }
  return use;
}

function readUse(source: ts.SourceFile): ContractUse {
  if ([...source.referencedFiles, ...source.typeReferenceDirectives].some((reference) => PLATFORM_SPECIFIER.test(reference.fileName))) return 'wide';
  // JavaScript is typed by its JSDoc too (`@type {import('platform/client')…}`, `@import`), which the walk below does not visit.
  if (isJavaScript(source) && /\/\*\*[\s\S]*?platform[\s\S]*?\*\//.test(source.text)) return 'wide';
  /** Local name → the export it binds. */
  const imported = new Map<string, { module: ReadModule; name: string }>();
  const bindings = new Set<ts.Node>();
  /** The module specifiers read here; any other string that names a platform module (a require, an import type, an augmentation) is wide. */
  const read = new Set<ts.Node>();
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (!ts.isStringLiteral(statement.moduleSpecifier) || !PLATFORM_SPECIFIER.test(statement.moduleSpecifier.text)) continue;
      read.add(statement.moduleSpecifier);
      const module = statement.moduleSpecifier.text;
      if (module !== 'platform/client' && module !== 'platform/types') return 'wide';
      const clause = statement.importClause;
      if (!clause) continue;
      if (clause.name || (clause.namedBindings && !ts.isNamedImports(clause.namedBindings))) return 'wide';
      for (const element of clause.namedBindings?.elements ?? []) {
        imported.set(element.name.text, { module, name: (element.propertyName ?? element.name).text });
        bindings.add(element.name);
      }
    }
  }
  const ops = new Set<string>();
  /** True when the node makes the file wide (ends the walk). */
  const visit = (node: ts.Node): boolean => {
    if (ts.isStringLiteralLike(node) && PLATFORM_SPECIFIER.test(node.text) && !read.has(node)) return true;
    // A module named by a computed value could be any.
    if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) && !(node.arguments[0] && ts.isStringLiteralLike(node.arguments[0]))) return true;
    if (ts.isImportTypeNode(node) && !(ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))) return true;
    if (ts.isIdentifier(node) && !bindings.has(node) && imported.has(node.text) && isReference(node)) {
      const origin = imported.get(node.text)!;
      const group = origin.module === 'platform/client' ? PER_OPERATION[origin.name] : undefined;
      if (group !== undefined) {
        const call = node.parent;
        const name = ts.isCallExpression(call) && call.expression === node && !call.typeArguments ? call.arguments[0] : undefined;
        if (!name || !ts.isStringLiteralLike(name)) return true;
        ops.add(`${group} ${name.text}`);
        return false;
      }
      return !OPERATION_FREE[origin.module].has(origin.name);
    }
    return ts.forEachChild(node, visit) ?? false;
  };
  return ts.forEachChild(source, visit) ? 'wide' : ops;
}

function isJavaScript(source: ts.SourceFile): boolean {
  return /\.[cm]?jsx?$/.test(source.fileName);
}

/** Whether an identifier refers to a binding (not a property's or an attribute's name). */
function isReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if ((ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) && (ts.isPropertyAccessExpression(parent) ? parent.name : parent.right) === node) return false;
  if ((ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent) || ts.isMethodSignature(parent) || ts.isJsxAttribute(parent)) && parent.name === node) return false;
  return true;
}

/**
 * The contract split for views: each operation's entry in the server's emitted declarations (its
 * text, and whether its name is in the generated names), and everything else.
 */
export interface ContractParts {
  /** Everything but the operations' entries and names: the tables' types, the rest of the declarations. */
  base: string;
  /** `<group> <name>` → the entry's text (or null) and whether the name is registered. */
  entry(op: string): readonly [string | null, boolean];
}

/**
 * `appTypesWithoutOperations`: the generated app types with no operations; `declarations`: the server
 * zone's emitted declarations (project-relative path under the declarations root → text);
 * `entryDeclaration`: the server entry's. An entry the emitted text does not lay out as expected
 * stays in the base, so any change to it is a change to every view.
 */
export function contractParts(appTypesWithoutOperations: string, declarations: ReadonlyMap<string, string>, entryDeclaration: string, table: OperationTable): ContractParts {
  const entries = new Map<string, string>();
  const rest = new Map(declarations);
  const text = declarations.get(entryDeclaration);
  if (text !== undefined) {
    const cuts: Array<[number, number]> = [];
    const source = ts.createSourceFile(entryDeclaration, text, ts.ScriptTarget.ES2022, true);
    for (const member of defaultExportMembers(source)) {
      const group = ts.isIdentifier(member.name) ? member.name.text : undefined;
      if ((group !== 'queries' && group !== 'mutations') || !member.type || !ts.isTypeLiteralNode(member.type)) continue;
      const ops = member.type.members;
      if (!ops.every((op) => ts.isPropertySignature(op) && (ts.isStringLiteral(op.name) || ts.isIdentifier(op.name)))) continue;
      for (const op of ops as ts.NodeArray<ts.PropertySignature>) {
        entries.set(`${group} ${(op.name as ts.StringLiteral | ts.Identifier).text}`, op.getText(source));
        cuts.push([op.getFullStart(), op.getEnd()]);
      }
    }
    let cut = '';
    let at = 0;
    for (const [start, end] of cuts.sort((a, b) => a[0] - b[0])) {
      cut += text.slice(at, start);
      at = end;
    }
    rest.set(entryDeclaration, cut + text.slice(at));
  }
  const registered = new Set([...table.queries.map((o) => `queries ${o.name}`), ...table.mutations.map((o) => `mutations ${o.name}`)]);
  const base = sha256Hex(canonicalJson([appTypesWithoutOperations, Object.fromEntries(rest)]));
  return { base, entry: (op) => [entries.get(op) ?? null, registered.has(op)] };
}

/** The members of the type literal the declarations give the default export (`declare const _default: { … }; export default _default;`). */
function defaultExportMembers(source: ts.SourceFile): ts.PropertySignature[] {
  let name: string | undefined;
  for (const statement of source.statements) if (ts.isExportAssignment(statement) && !statement.isExportEquals && ts.isIdentifier(statement.expression)) name = statement.expression.text;
  if (name === undefined) return [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name && declaration.type && ts.isTypeLiteralNode(declaration.type)) {
        return declaration.type.members.filter(ts.isPropertySignature);
      }
    }
  }
  return [];
}

/** The digest of what files naming these operations observe of the contract. */
export function contractView(parts: ContractParts, ops: ReadonlySet<string>): string {
  return sha256Hex(canonicalJson([parts.base, [...ops].sort().map((op) => [op, ...parts.entry(op)])]));
}
