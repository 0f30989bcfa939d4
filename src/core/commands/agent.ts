/** `platform agent context <dir>` and `platform agent setup [--check] [--target …]`. */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { agentContext, type AgentContext } from './agent-context.ts';
import { checkSetup, SETUP_TARGETS, writeSetup, type SetupTarget } from './agent-setup.ts';
import { missingManifest } from './project-directory.ts';
import { printReport } from './report.ts';
import type { CommandDefinition } from './types.ts';

export interface AgentSetupResult {
  targets: string[];
  files: Array<{ path: string; state: string }>;
  written: string[];
}

export type AgentResult = AgentContext | AgentSetupResult;

const USAGE = 'Use platform agent context <directory> or platform agent setup [--check] [--target <target>].';

export const agent: CommandDefinition<AgentResult> = {
  name: 'agent',
  summary: 'Read normalized project facts for an agent (context), or install and verify the agent adapter files (setup).',
  positionals: [
    { name: 'action', required: true, description: 'context or setup.' },
    { name: 'directory', required: false, description: 'The project directory (default: the current directory).' },
  ],
  options: {
    check: { type: 'boolean', description: 'setup: report missing or stale agent files and write nothing.' },
    target: { type: 'string', valueName: `<${SETUP_TARGETS.join('|')}>`, description: 'setup: which agent tool to configure (default: auto).' },
  },
  streams: true,
  async run(invocation, host) {
    const [action, directory = '.'] = invocation.positionals;
    if (action === 'context') {
      const fs = host.project(directory);
      const missing = await missingManifest(fs, directory);
      const found = missing ? { diagnostics: missing } : await agentContext(fs, await host.compiler());
      const value = envelope<AgentResult>('agent', found.context ? [] : found.diagnostics, found.context);
      printReport(invocation, host, value, found.context, () => `${JSON.stringify(found.context, null, 2)}`);
      return value;
    }
    if (action === 'setup') {
      const given = invocation.options.target ?? 'auto';
      let value;
      if (typeof given !== 'string' || !(SETUP_TARGETS as readonly string[]).includes(given)) {
        value = envelope<AgentResult>('agent', [diagnostic('DG3103', `--target ${JSON.stringify(given)} is not a supported agent target.`, { hint: `Use one of ${SETUP_TARGETS.join(', ')}.` })]);
      } else {
        const fs = host.project(directory);
        const target = given as SetupTarget;
        const outcome = invocation.options.check ? { ...(await checkSetup(fs, target, host.version)), written: [] } : await writeSetup(fs, target, host.version);
        value = envelope<AgentResult>('agent', outcome.diagnostics, {
          targets: outcome.plan.targets,
          files: outcome.plan.files.map((f) => ({ path: f.path, state: outcome.written.includes(f.path) ? 'written' : f.state })),
          written: outcome.written,
        });
      }
      printReport(invocation, host, value, undefined, () => '');
      if (!invocation.options.json && value.ok && value.result && 'written' in value.result) {
        const r = value.result;
        host.print?.(r.files.map((f) => `${f.state === 'written' ? '✓ wrote' : f.state === 'current' ? '✓ current' : `! ${f.state}`} ${f.path}`).join('\n'));
      }
      return value;
    }
    const value = envelope<AgentResult>('agent', [diagnostic('DG0002', action === undefined ? 'platform agent needs an action.' : `Unknown agent action "${action}".`, { hint: USAGE })]);
    printReport(invocation, host, value, undefined, () => '');
    return value;
  },
};
