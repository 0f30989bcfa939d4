/** `platform check [directory]`: everything that needs no bundling, without running anything. */
import { analyzeProject } from '../analyze/index.ts';
import { envelope } from '../diagnostics/index.ts';
import { missingManifest } from './project-directory.ts';
import type { CommandDefinition } from './types.ts';

export interface CheckResult {
  name: string;
  /** What was checked, in order. */
  checked: string[];
  operations: { queries: number; mutations: number; endpoints: number };
}

export const check: CommandDefinition<CheckResult> = {
  name: 'check',
  summary: 'Validate the manifest, both source graphs, the server definition and the types, without running anything.',
  positionals: [{ name: 'directory', required: false, description: 'The project directory (default: the current directory).' }],
  options: {},
  async run(invocation, host) {
    const directory = invocation.positionals[0] ?? '.';
    const fs = host.project(directory);
    // Without a manifest there is nothing to compile, and no compiler is loaded.
    const missing = await missingManifest(fs, directory);
    if (missing) return envelope('check', missing);
    const compiler = await host.compiler();
    const analysis = await analyzeProject(fs, { library: compiler.library, typecheck: compiler.typecheck, installUnavailable: compiler.installUnavailable });
    const ops = analysis.operations;
    const result = analysis.manifest
      ? {
          name: analysis.manifest.name,
          checked: ['manifest', 'module graphs', 'server definition', 'types'],
          operations: { queries: ops?.queries.length ?? 0, mutations: ops?.mutations.length ?? 0, endpoints: ops?.endpoints.length ?? 0 },
        }
      : undefined;
    return envelope('check', analysis.diagnostics, result);
  },
  text({ result, ok }) {
    if (!result || !ok) return '';
    const { queries, mutations, endpoints } = result.operations;
    return `✓ ${result.name}: ${result.checked.join(', ')} checked (${queries} queries, ${mutations} mutations, ${endpoints} endpoints), no errors.`;
  },
};
