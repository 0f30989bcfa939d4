/**
 * Reads the server entrypoint's `export default defineServer({...})` from its syntax tree, without
 * running it, into the operation table (DG1300 to DG1304).
 */
import ts from 'typescript';
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics/index.ts';
import { LineIndex, didYouMean } from '../text/index.ts';
import { METHODS, parseEndpointKey, type HttpMethod } from '../project/index.ts';

export { METHODS, parseEndpointKey, type HttpMethod };

export type InputDescriptorJson = string | { [key: string]: InputDescriptorJson };
export type GuardInfo = { kind: 'authenticated' } | { kind: 'memberOf'; field: string };
export type PolicyKind = 'ownedTable' | 'workspaceTable';

export interface OperationInfo {
  name: string;
  kind: 'query' | 'mutation';
  input: { [key: string]: InputDescriptorJson };
  guards: GuardInfo[];
}

export interface EndpointInfo {
  key: string;
  method: HttpMethod;
  path: string;
  /** The path with every parameter written `:`, which is what makes two routes the same. */
  shape: string;
  params: string[];
  guards: GuardInfo[];
}

export interface OperationTable {
  queries: OperationInfo[];
  mutations: OperationInfo[];
  endpoints: EndpointInfo[];
  policies: Record<string, PolicyKind>;
}

export const OPERATION_NAME = /^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_.-]*$/;
const GROUPS = ['queries', 'mutations', 'endpoints', 'authPolicies'] as const;
type Group = (typeof GROUPS)[number];
const HELPERS = ['defineServer', 'query', 'mutation', 'endpoint', 'authenticated', 'memberOf', 'ownedTable', 'workspaceTable'] as const;
type Helper = (typeof HELPERS)[number];

export interface ServerDefinitionResult {
  table: OperationTable;
  /** False when the definition could not be read at all (no literal defineServer call). */
  readable: boolean;
  diagnostics: Diagnostic[];
}

export function readServerDefinition(source: ts.SourceFile): ServerDefinitionResult {
  const file = source.fileName;
  const lines = new LineIndex(source.text);
  const diagnostics: Diagnostic[] = [];
  const table: OperationTable = { queries: [], mutations: [], endpoints: [], policies: {} };
  const report = (code: DiagnosticCode, node: ts.Node, message: string, hint?: string) =>
    diagnostics.push(diagnostic(code, message, { file, span: lines.span(node.getStart(source), node.getWidth(source)), hint }));

  // Local names of the helpers imported from platform/server (they may be renamed on import).
  const helperNames = new Map<string, Helper>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier) || statement.moduleSpecifier.text !== 'platform/server') continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        const imported = (element.propertyName ?? element.name).text;
        if ((HELPERS as readonly string[]).includes(imported)) helperNames.set(element.name.text, imported as Helper);
      }
    }
  }
  const helperOf = (node: ts.Expression): Helper | undefined => {
    if (!ts.isCallExpression(node)) return undefined;
    return ts.isIdentifier(node.expression) ? helperNames.get(node.expression.text) : undefined;
  };
  const unwrapParens = (node: ts.Expression): ts.Expression => (ts.isParenthesizedExpression(node) ? unwrapParens(node.expression) : node);

  const exported = source.statements.find((s): s is ts.ExportAssignment => ts.isExportAssignment(s) && !s.isExportEquals);
  if (!exported) {
    report('DG1300', source.statements[0] ?? source, 'The server entrypoint has no default export.', 'End the file with export default defineServer({ queries: {…}, mutations: {…} }).');
    return { table, readable: false, diagnostics };
  }
  const call = unwrapParens(exported.expression);
  if (helperOf(call) !== 'defineServer') {
    const why = ts.isIdentifier(call)
      ? `a reference to "${call.text}", not a literal defineServer({...}) call`
      : ts.isAsExpression(call) || ts.isSatisfiesExpression(call) || ts.isCallExpression(call)
        ? 'wrapped; it must be the defineServer({...}) call itself'
        : 'not a defineServer({...}) call';
    report('DG1300', call, `The default export is ${why}.`, 'Write export default defineServer({...}) with defineServer imported from platform/server, so the definition can be read without running it.');
    return { table, readable: false, diagnostics };
  }
  const [definition, ...extra] = (call as ts.CallExpression).arguments;
  if (!definition || extra.length || !ts.isObjectLiteralExpression(definition)) {
    report('DG1300', definition ?? call, 'defineServer takes one literal object.', 'Pass the definition inline: defineServer({ queries: {…} }).');
    return { table, readable: false, diagnostics };
  }

  for (const [key, value, property] of literalEntries(definition, 'the server definition')) {
    if (!(GROUPS as readonly string[]).includes(key)) {
      report('DG1300', property.name!, `"${key}" is not a key of defineServer.`, didYouMean(key, GROUPS) ?? `The keys are ${GROUPS.join(', ')}.`);
      continue;
    }
    const group = key as Group;
    if (!ts.isObjectLiteralExpression(value)) {
      report('DG1300', value, `The ${group} group is not a literal object.`, `Write ${group}: { … } inline, with each entry spelled out.`);
      continue;
    }
    if (group === 'queries' || group === 'mutations') readOperations(group, value);
    else if (group === 'endpoints') readEndpoints(value);
    else readPolicies(value);
  }
  return { table, readable: true, diagnostics };

  /** The literal entries of an object, reporting spreads, shorthand, computed keys and methods (DG1300). */
  function literalEntries(object: ts.ObjectLiteralExpression, where: string): Array<[string, ts.Expression, ts.PropertyAssignment]> {
    const out: Array<[string, ts.Expression, ts.PropertyAssignment]> = [];
    for (const property of object.properties) {
      if (ts.isSpreadAssignment(property)) {
        report('DG1300', property, `A spread in ${where} cannot be read statically.`, 'Spell every entry out in place.');
      } else if (ts.isShorthandPropertyAssignment(property)) {
        report('DG1300', property, `The shorthand "${property.name.text}" in ${where} cannot be read statically.`, `Write "${property.name.text}": … with its value in place.`);
      } else if (ts.isPropertyAssignment(property)) {
        const name = property.name;
        if (ts.isComputedPropertyName(name)) {
          report('DG1300', name, `A computed key in ${where} cannot be read statically.`, 'Write the key as a string literal.');
        } else if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) {
          out.push([name.text, property.initializer, property]);
        } else {
          out.push([name.getText(source), property.initializer, property]);
        }
      } else {
        report('DG1300', property, `A method or accessor in ${where} cannot be read statically.`, 'Write each entry as "name": helper({...}).');
      }
    }
    return out;
  }

  function checkName(group: string, seen: Map<string, ts.Node>, name: string, node: ts.Node, valid: boolean, code: 'DG1303' | 'DG1302', message: string, hint: string): boolean {
    if (!valid) {
      report(code, node, message, hint);
      return false;
    }
    const first = seen.get(name);
    if (first) {
      const { line } = lines.span(first.getStart(source));
      report('DG1301', node, `"${name}" is registered twice in ${group} (first on line ${line}).`, 'Give each operation its own name, or remove one.');
      return false;
    }
    seen.set(name, node);
    return true;
  }

  function readGuards(node: ts.Expression | undefined): GuardInfo[] | undefined {
    if (!node) return [];
    const items = ts.isArrayLiteralExpression(node) ? [...node.elements] : [node];
    const guards: GuardInfo[] = [];
    for (const item of items) {
      const helper = helperOf(item);
      const args = ts.isCallExpression(item) ? item.arguments : undefined;
      if (helper === 'authenticated' && args?.length === 0) guards.push({ kind: 'authenticated' });
      else if (helper === 'memberOf' && args?.length === 1 && ts.isStringLiteralLike(args[0]!)) guards.push({ kind: 'memberOf', field: (args[0] as ts.StringLiteralLike).text });
      else {
        report('DG1300', item, 'A guard must be authenticated() or memberOf("<input field>") written in place.', 'Guards are read without running the server.');
        return undefined;
      }
    }
    return guards;
  }

  function readDescriptor(node: ts.Expression): InputDescriptorJson | undefined {
    if (ts.isStringLiteralLike(node)) return node.text;
    if (ts.isObjectLiteralExpression(node)) {
      const out: Record<string, InputDescriptorJson> = {};
      for (const [key, value] of literalEntries(node, 'an input descriptor')) {
        const inner = readDescriptor(value);
        if (inner === undefined) return undefined;
        out[key] = inner;
      }
      return out;
    }
    report('DG1300', node, 'An input descriptor must be a literal: a type name such as "string", or an object of them.', 'Write input: { title: "string" } in place.');
    return undefined;
  }

  function readOperations(group: 'queries' | 'mutations', object: ts.ObjectLiteralExpression): void {
    const kind = group === 'queries' ? 'query' : 'mutation';
    const seen = new Map<string, ts.Node>();
    for (const [name, value, property] of literalEntries(object, group)) {
      const ok = checkName(group, seen, name, property.name, OPERATION_NAME.test(name), 'DG1303', `"${name}" is not a valid operation name.`, 'Names are lowercase "<namespace>.<name>", for example "todos.list": a letter, then letters, digits, "_" or "-", a dot, then letters, digits, "_", "-" or ".".');
      if (helperOf(value) !== kind) {
        report('DG1300', value, `The ${group} entry "${name}" must be ${kind}({...}) written in place.`, `Write "${name}": ${kind}({ input: {…}, handler: async (ctx, input) => … }).`);
        continue;
      }
      const args = (value as ts.CallExpression).arguments;
      const options = args[0];
      if (args.length !== 1 || !options || !ts.isObjectLiteralExpression(options)) {
        report('DG1300', value, `${kind}() takes one literal object.`, `Write ${kind}({ input: {…}, handler }).`);
        continue;
      }
      const props = new Map(literalEntries(options, `${kind} "${name}"`).map(([k, v]) => [k, v]));
      const inputNode = props.get('input');
      let input: OperationInfo['input'] | undefined = {};
      if (!inputNode) {
        report('DG1300', options, `${kind} "${name}" has no input descriptor.`, 'Declare input: {} when the operation takes no input.');
        input = undefined;
      } else {
        const descriptor = readDescriptor(inputNode);
        if (descriptor !== undefined && typeof descriptor === 'string') {
          report('DG1300', inputNode, `The input of ${kind} "${name}" must be an object of descriptors.`, `Write input: { value: ${JSON.stringify(descriptor)} }.`);
          input = undefined;
        } else input = descriptor as OperationInfo['input'] | undefined;
      }
      const guards = readGuards(props.get('auth'));
      if (ok && input && guards) (group === 'queries' ? table.queries : table.mutations).push({ name, kind, input, guards });
    }
  }

  function readEndpoints(object: ts.ObjectLiteralExpression): void {
    const seen = new Map<string, ts.Node>();
    const shapes = new Map<string, string>();
    for (const [key, value, property] of literalEntries(object, 'endpoints')) {
      const parsed = parseEndpointKey(key);
      const ok = checkName('endpoints', seen, key, property.name, parsed !== undefined, 'DG1302', `"${key}" is not an endpoint key of the form "<METHOD> /api/<path>".`, `Methods: ${METHODS.join(', ')} (uppercase, one space). The path is /api or starts with /api/; each segment is letters, digits, "_", "." or "-", or a parameter ":name".`);
      if (helperOf(value) !== 'endpoint') {
        report('DG1300', value, `The endpoint "${key}" must be endpoint(handler) written in place.`, `Write "${key}": endpoint(async (request, ctx) => new Response(…)).`);
        continue;
      }
      const args = (value as ts.CallExpression).arguments;
      if (args.length < 1 || args.length > 2) {
        report('DG1300', value, 'endpoint() takes a handler and an optional guard.', 'Write endpoint(handler) or endpoint(handler, authenticated()).');
        continue;
      }
      const guards = readGuards(args[1]);
      if (!ok || !parsed || !guards) continue;
      const clash = shapes.get(parsed.shape);
      if (clash !== undefined) {
        report('DG1304', property.name, `"${key}" and "${clash}" are the same route: parameter names do not tell routes apart.`, 'Remove one, or give them different literal segments.');
        continue;
      }
      shapes.set(parsed.shape, key);
      table.endpoints.push({ key, ...parsed, guards });
    }
  }

  function readPolicies(object: ts.ObjectLiteralExpression): void {
    for (const [tableName, value] of literalEntries(object, 'authPolicies')) {
      const helper = helperOf(value);
      if ((helper === 'ownedTable' || helper === 'workspaceTable') && (value as ts.CallExpression).arguments.length === 0) {
        table.policies[tableName] = helper;
      } else {
        report('DG1300', value, `The policy of "${tableName}" must be ownedTable() or workspaceTable() written in place.`);
      }
    }
  }
}
