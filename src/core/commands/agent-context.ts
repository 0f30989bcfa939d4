/**
 * `platform agent context <dir>`: the project's facts normalized for an agent (`platform.agent-context.v0`):
 * manifest facts, source zones, operations, current diagnostics, test files, next actions, resource URIs
 * and a content hash over all of it. Deterministic (no time, no absolute path, sorted everywhere) and
 * read-only: it analyzes in memory and writes no generated output.
 */
import { analyzeProject, type OperationTable } from '../analyze/index.ts';
import { listFiles, SHARED_ROOT, TESTS_ROOT } from '../project/index.ts';
import type { Compiler } from '../build/index.ts';
import { hasErrors, sortDiagnostics, type Diagnostic } from '../diagnostics/index.ts';
import type { FileSystem } from '../fs/index.ts';
import { canonicalJson, sha256Hex } from '../hash/index.ts';
import type { Manifest } from '../manifest/index.ts';

export const AGENT_CONTEXT_PROTOCOL = 'platform.agent-context.v0';

/** The tool server's resources, as every agent context lists them. */
export const PROJECT_RESOURCES = [
  'platform://project/context',
  'platform://project/manifest',
  'platform://project/operations',
  'platform://project/tests',
  'platform://docs/index',
  'platform://docs/{+path}',
  'platform://diagnostics/{code}',
] as const;

export interface NextAction {
  /** The tool to call (its CLI command is the same name without the prefix). */
  tool: string;
  why: string;
}

export interface ManifestFacts {
  name: string;
  title?: string;
  description?: string;
  entrypoints: { client: string; server: string };
  capabilities: string[];
  tables: Record<string, { fields: Record<string, string>; indexes: string[] }>;
  storage: boolean;
  budgets: Record<string, number>;
}

export interface AgentContext {
  protocol: typeof AGENT_CONTEXT_PROTOCOL;
  /** Null while the manifest is invalid (its diagnostics say why). */
  manifest: ManifestFacts | null;
  zones: {
    client: { entry: string; files: string[] };
    server: { entry: string; files: string[] };
    shared: { root: string; files: string[] };
    test: { root: string; files: string[] };
  };
  operations: {
    queries: Array<{ name: string; input: unknown; guards: unknown[] }>;
    mutations: Array<{ name: string; input: unknown; guards: unknown[] }>;
    endpoints: Array<{ key: string; guards: unknown[] }>;
    policies: Record<string, string>;
  };
  diagnostics: Diagnostic[];
  tests: string[];
  nextActions: NextAction[];
  resources: string[];
  /** `sha256:` over the canonical JSON of every other field. */
  contentHash: string;
}

const SOURCE = /\.(tsx?|jsx?|mjs|cjs)$/;
const byName = <T extends { name: string }>(list: readonly T[]) => [...list].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

function manifestFacts(manifest: Manifest): ManifestFacts {
  const tables: ManifestFacts['tables'] = {};
  for (const name of Object.keys(manifest.database?.tables ?? {}).sort()) {
    const table = manifest.database!.tables[name]!;
    const fields: Record<string, string> = {};
    for (const [field, decl] of Object.entries(table.fields)) fields[field] = `${decl.type}${decl.optional ? '?' : ''}`;
    tables[name] = { fields, indexes: Object.keys(table.indexes ?? {}).sort() };
  }
  return {
    name: manifest.name,
    ...(manifest.app?.title !== undefined ? { title: manifest.app.title } : {}),
    ...(manifest.app?.description !== undefined ? { description: manifest.app.description } : {}),
    entrypoints: { client: manifest.entrypoints.client, server: manifest.entrypoints.server },
    capabilities: [...(manifest.capabilities ?? [])].sort(),
    tables,
    storage: manifest.storage !== undefined,
    budgets: { ...(manifest.budgets as Record<string, number> | undefined) },
  };
}

function operationFacts(table: OperationTable | undefined): AgentContext['operations'] {
  return {
    queries: byName(table?.queries ?? []).map(({ name, input, guards }) => ({ name, input, guards })),
    mutations: byName(table?.mutations ?? []).map(({ name, input, guards }) => ({ name, input, guards })),
    endpoints: [...(table?.endpoints ?? [])].sort((a, b) => (a.key < b.key ? -1 : 1)).map(({ key, guards }) => ({ key, guards })),
    policies: { ...table?.policies },
  };
}

function nextActions(diagnostics: readonly Diagnostic[], tests: readonly string[]): NextAction[] {
  if (hasErrors(diagnostics)) {
    const primaries = diagnostics.some((d) => d.primary);
    return [
      { tool: 'platform_check', why: primaries ? 'Fix the diagnostics marked primary first, then check again; those with causedBy usually follow.' : 'Fix the error diagnostics, then check again.' },
      { tool: 'platform_diagnostics', why: 'Explain a code and its repair.' },
    ];
  }
  return [
    tests.length
      ? { tool: 'platform_test', why: `Run the ${tests.length} test file${tests.length === 1 ? '' : 's'} against fresh isolated state.` }
      : { tool: 'platform_docs_search', why: 'No tests yet: search "testing apps" and add tests/<name>.test.ts.' },
    { tool: 'platform_dev_start', why: 'Serve the app locally and read its events.' },
    { tool: 'platform_deploy_preview', why: 'Deploy to preview when the tests pass.' },
  ];
}

/** The context of a project with a manifest file (valid or not). */
export async function agentContext(fs: FileSystem, compiler: Compiler): Promise<{ context?: AgentContext; diagnostics: Diagnostic[] }> {
  const analysis = await analyzeProject(fs, { library: compiler.library, typecheck: compiler.typecheck, installUnavailable: compiler.installUnavailable });
  const { manifest, project, graph } = analysis;
  const shared = (await listFiles(fs, SHARED_ROOT)).filter((p) => SOURCE.test(p));
  const tests = project?.testFiles ?? (await listFiles(fs, TESTS_ROOT)).filter((f) => /\.test\.tsx?$/.test(f));
  const body: Omit<AgentContext, 'contentHash'> = {
    protocol: AGENT_CONTEXT_PROTOCOL,
    manifest: manifest ? manifestFacts(manifest) : null,
    zones: {
      client: { entry: project?.clientEntry ?? '', files: [...(graph?.zones.client ?? [])].sort() },
      server: { entry: project?.serverEntry ?? '', files: [...(graph?.zones.server ?? [])].sort() },
      shared: { root: SHARED_ROOT, files: shared },
      test: { root: TESTS_ROOT, files: [...(graph?.zones.test ?? [])].sort() },
    },
    operations: operationFacts(analysis.operations),
    diagnostics: sortDiagnostics(analysis.diagnostics),
    tests,
    nextActions: nextActions(analysis.diagnostics, tests),
    resources: [...PROJECT_RESOURCES],
  };
  // Through JSON and back: what is hashed is exactly what is printed.
  const plain = JSON.parse(JSON.stringify(body)) as Omit<AgentContext, 'contentHash'>;
  return { context: { ...plain, contentHash: `sha256:${sha256Hex(canonicalJson(plain))}` }, diagnostics: analysis.diagnostics };
}
