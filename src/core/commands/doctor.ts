/**
 * `platform doctor [directory]`: structured checks of the toolchain (from the host) and of the project's
 * generated state (manifest, latest build, agent files). Each failed check is DG4001 with its details in `hint`.
 */
import { verifyLatest, LATEST_FILE } from '../build/index.ts';
import { diagnostic, envelope, hasErrors } from '../diagnostics/index.ts';
import { checkManifest, MANIFEST_FILE } from '../manifest/index.ts';
import { checkAgentFiles, SETUP_RECORD } from './agent-setup.ts';
import type { CommandDefinition, ToolchainCheck } from './types.ts';

export interface DoctorResult {
  checks: ToolchainCheck[];
}

function summary(diagnostics: readonly { code: string; message: string }[]): string {
  return diagnostics.map((d) => `${d.code}: ${d.message}`).join(' ');
}

export const doctor: CommandDefinition<DoctorResult> = {
  name: 'doctor',
  summary: 'Check the toolchain (Node, workerd, esbuild) and the project\'s generated state (manifest, latest build, agent files).',
  positionals: [{ name: 'directory', required: false, description: 'The project directory (default: the current directory).' }],
  options: {},
  async run(invocation, host) {
    const checks: ToolchainCheck[] = host.agent
      ? await host.agent.toolchain()
      : [{ name: 'toolchain', ok: true, detail: 'This host has no local toolchain to check.' }];
    const fs = host.project(invocation.positionals[0] ?? '.');
    if ((await fs.stat(MANIFEST_FILE)) === 'file') {
      const manifest = await checkManifest(fs);
      const errors = manifest.diagnostics.filter((d) => d.severity === 'error');
      checks.push({ name: 'manifest', ok: errors.length === 0, detail: errors.length ? `${summary(errors)} Fix ${MANIFEST_FILE} (platform check shows where).` : `${MANIFEST_FILE} is valid.` });
      if ((await fs.stat(LATEST_FILE)) === 'file') {
        const verified = await verifyLatest(fs);
        const broken = verified.diagnostics.filter((d) => d.severity === 'error');
        checks.push({ name: 'build', ok: !broken.length, detail: broken.length ? `${summary(broken)} Run platform build.` : `The latest build ${verified.id} verifies against its blobs and sources.` });
      } else {
        checks.push({ name: 'build', ok: true, detail: 'No build yet; platform build makes one.' });
      }
      if ((await fs.stat(SETUP_RECORD)) === 'file') {
        const agentFiles = await checkAgentFiles(fs, host.version);
        checks.push({ name: 'agent files', ok: !hasErrors(agentFiles), detail: agentFiles.length ? `${summary(agentFiles)}` : 'The agent files platform agent setup wrote are current.' });
      }
    } else {
      checks.push({ name: 'project', ok: true, detail: `No ${MANIFEST_FILE} here: only the toolchain was checked.` });
    }
    const diagnostics = checks.filter((c) => !c.ok).map((c) => diagnostic('DG4001', `The ${c.name} check failed.`, { hint: c.detail }));
    return envelope('doctor', diagnostics, { checks });
  },
  text({ result }) {
    if (!result) return '';
    return result.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}`).join('\n');
  },
};
