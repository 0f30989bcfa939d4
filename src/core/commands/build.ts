/** `platform build [directory]`: build and verify a content-addressed artifact; `--verify` only verifies the latest. */
import { verifyLatest, buildProject } from '../build/index.ts';
import { envelope } from '../diagnostics/index.ts';
import { missingManifest } from './project-directory.ts';
import type { CommandDefinition } from './types.ts';

export interface BuildCommandResult {
  artifactId: string;
  files: number;
  clientBytes?: number;
  appShareBytes?: number;
}

export const build: CommandDefinition<BuildCommandResult> = {
  name: 'build',
  summary: 'Build the app into a verified, content-addressed artifact under .platform/.',
  positionals: [{ name: 'directory', required: false, description: 'The project directory (default: the current directory).' }],
  options: {
    verify: { type: 'boolean', description: 'Verify the latest artifact against its blobs and the sources, without building.' },
  },
  async run(invocation, host) {
    const directory = invocation.positionals[0] ?? '.';
    const fs = host.project(directory);
    if (invocation.options.verify) {
      const verification = await verifyLatest(fs);
      return envelope('build', verification.diagnostics, verification.id && verification.record ? { artifactId: verification.id, files: Object.keys(verification.record.files).length } : undefined);
    }
    const missing = await missingManifest(fs, directory);
    if (missing) return envelope('build', missing);
    const outcome = await buildProject(fs, await host.compiler());
    const result = outcome.id && outcome.record ? { artifactId: outcome.id, files: Object.keys(outcome.record.files).length, ...outcome.sizes } : undefined;
    return envelope('build', outcome.diagnostics, result);
  },
  text({ result, ok }) {
    if (!result || !ok) return '';
    const size = result.clientBytes !== undefined ? `, client ${(result.clientBytes / 1024).toFixed(1)} KiB` : '';
    return `✓ built ${result.artifactId} (${result.files} files${size})`;
  },
};
