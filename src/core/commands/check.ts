/** `platform check [directory]`: validates the project without running anything. */
import { envelope } from '../diagnostics';
import { checkManifest } from '../manifest';
import type { CommandDefinition } from './types';

export interface CheckResult {
  name: string;
  /** What was checked, in order. */
  checked: string[];
}

export const check: CommandDefinition<CheckResult> = {
  name: 'check',
  summary: 'Validate the manifest and the project without running anything.',
  positionals: [{ name: 'directory', required: false, description: 'The project directory (default: the current directory).' }],
  options: {},
  async run(invocation, host) {
    const directory = invocation.positionals[0] ?? '.';
    const { manifest, diagnostics } = await checkManifest(host.project(directory));
    for (const d of diagnostics) {
      if (d.code === 'DG1001') d.message = `No app.manifest.json in ${directory === '.' ? 'the current directory' : directory}.`;
    }
    return envelope('check', diagnostics, manifest ? { name: manifest.name, checked: ['manifest'] } : undefined);
  },
  text(result) {
    return result.result ? `✓ ${result.result.name}: ${result.result.checked.join(', ')} checked, no errors.` : '';
  },
};
