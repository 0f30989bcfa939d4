/**
 * `platform new <directory> [--template <id>] [--ui preact]`: a new app from a bundled template.
 * The target must be empty or absent (DG3001); the app is named after the directory when that is a
 * valid name. Frameworks are not offered by this version (DG3004 to DG3006).
 */
import { diagnostic, envelope, type Diagnostic } from '../diagnostics';
import { MANIFEST_FILE } from '../manifest';
import { didYouMean } from '../text/suggest';
import type { CommandDefinition } from './types';

export const DEFAULT_TEMPLATE = 'todo';
const UI_PROVIDERS = ['preact', 'react'];
const NAME = /^[a-z][a-z0-9-]{1,62}$/;

export interface Template {
  id: string;
  /** The template's one-line description (its manifest's app.description). */
  description: string;
  files: Record<string, string | Uint8Array>;
}

export interface NewResult {
  directory: string;
  template: string;
  name: string;
  files: number;
}

export const create: CommandDefinition<NewResult> = {
  name: 'new',
  summary: 'Create an app from a template in an empty or new directory.',
  positionals: [{ name: 'directory', required: true, description: 'Where to create the app (empty or absent).' }],
  options: {
    template: { type: 'string', valueName: '<id>', description: `A bundled template (default: ${DEFAULT_TEMPLATE}). See the list with --help.` },
    framework: { type: 'string', valueName: '<name>', description: 'Not offered by this version.' },
    ui: { type: 'string', valueName: '<provider>', description: 'The UI provider: preact (the default and, in this version, the only one).' },
  },
  async run(invocation, host) {
    const directory = invocation.positionals[0]!;
    const { template: templateOption, framework, ui } = invocation.options as Record<string, string | undefined>;
    const problems: Diagnostic[] = [];
    if (templateOption !== undefined && framework !== undefined) problems.push(diagnostic('DG3005', '--template and --framework cannot be used together.', { hint: 'Choose a template, or a framework.' }));
    if (ui !== undefined && framework !== undefined) problems.push(diagnostic('DG3004', '--ui cannot be used with --framework.', { hint: 'Drop --ui: a framework project brings its own UI.' }));
    if (problems.length) return envelope('new', problems);
    if (framework !== undefined) return envelope('new', [diagnostic('DG3006', `--framework ${framework} is not supported: this version scaffolds only its bundled templates.`, { hint: 'Use --template <id> instead.' })]);
    if (ui !== undefined && !UI_PROVIDERS.includes(ui)) {
      return envelope('new', [diagnostic('DG3003', `--ui ${ui} names no UI provider (valid: preact, react).`, { hint: didYouMean(ui, UI_PROVIDERS) ?? 'Omit --ui for Preact.' })]);
    }
    if (ui === 'react') return envelope('new', [diagnostic('DG3003', 'The react UI provider is not available in this version: the platform renders with Preact.', { hint: 'Omit --ui, or pass --ui preact.' })]);

    const templates = host.templates ? await host.templates() : [];
    const id = templateOption ?? DEFAULT_TEMPLATE;
    const template = templates.find((t) => t.id === id);
    if (!template) {
      const hint = didYouMean(id, templates.map((t) => t.id)) ?? `Bundled templates: ${templates.map((t) => t.id).join(', ') || 'none'}.`;
      return envelope('new', [diagnostic('DG3002', `--template ${id} names no bundled template.`, { hint })]);
    }

    const fs = host.project(directory);
    const kind = await fs.stat('');
    if (kind === 'file' || (kind === 'directory' && (await fs.readDir('')).length > 0)) {
      return envelope('new', [diagnostic('DG3001', `${directory} is ${kind === 'file' ? 'a file' : 'not empty'}; a new app needs an empty or new directory.`, { hint: 'Choose another directory, or empty this one.' })]);
    }
    const base = directory.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
    const manifest = JSON.parse(String(template.files[MANIFEST_FILE])) as { name: string };
    const name = NAME.test(base) ? base : manifest.name;
    for (const [path, data] of Object.entries(template.files)) {
      await fs.writeFile(path, path === MANIFEST_FILE ? `${JSON.stringify({ ...manifest, name }, null, 2)}\n` : data);
    }
    return envelope('new', [], { directory, template: template.id, name, files: Object.keys(template.files).length });
  },
  text({ result }) {
    if (!result) return '';
    return `✓ created ${result.name} in ${result.directory} from the ${result.template} template (${result.files} files).\n  Next: npx platform test ${result.directory}`;
  },
};
