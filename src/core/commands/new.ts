/**
 * `platform new <directory> [--template <id>] [--ui preact|react]`: a new app from a bundled template (its
 * React variant `<id>-react` with --ui react), or
 * from the control plane's template catalogue (an exact catalogue id: downloaded, checked against its
 * SHA-256 and opened with the zip safety rules, DG3007 to DG3013). The target must be empty or absent
 * (DG3001); the app is named after the directory when that is a valid name. `--framework vite` makes a
 * Vite project with the platform's files instead (`platform init` builds it; DG3004 to DG3006).
 */
import { diagnostic, envelope, type Diagnostic } from '../diagnostics/index.ts';
import { MANIFEST_FILE } from '../manifest/index.ts';
import { CATALOGUE_ID, installFiles, readCatalogue } from '../templates/index.ts';
import { FRAMEWORKS, type FrameworkKind } from '../build/index.ts';
import { platformFiles, writePlatformFiles } from './init.ts';
import { didYouMean } from '../text/index.ts';
import { CONTROL_URL_OPTION, controlUrlOf } from './control.ts';
import type { CommandDefinition } from './types.ts';

export const DEFAULT_TEMPLATE = 'todo';
const UI_PROVIDERS = ['preact', 'react'];
const REACT_SUFFIX = '-react';
/** The Vite a new framework project asks for. */
const VITE_VERSION = '^8.3.8';
const NAME = /^[a-z][a-z0-9-]{1,62}$/;

export interface NewResult {
  directory: string;
  template: string;
  name: string;
  files: number;
}

/** A minimal Vite app (its own package.json, index.html, src/main.ts) that calls the platform server's query. */
function viteProject(name: string): Record<string, string> {
  return {
    'package.json': `${JSON.stringify({ name, private: true, type: 'module', scripts: { dev: 'vite', build: 'vite build', preview: 'vite preview' }, devDependencies: { vite: VITE_VERSION } }, null, 2)}\n`,
    'index.html': `<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="utf-8" />\n    <title>${name}</title>\n  </head>\n  <body>\n    <p id="greeting">Loading…</p>\n    <script type="module" src="/src/main.ts"></script>\n  </body>\n</html>\n`,
    'src/main.ts': `// Served by the platform, the app calls its server's query over HTTP (platform/server/index.ts).\nconst response = await fetch('/_platform/v0/query/greeting.hello', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":{}}' });\ndocument.getElementById('greeting')!.textContent = response.ok ? JSON.stringify(await response.json()) : 'The platform server is not running (npx vite dev serves the client alone).';\n`,
    '.gitignore': 'node_modules\ndist\n.platform/artifacts\n.platform/blobs\n',
  };
}

function parsedManifest(text: string | Uint8Array | undefined): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(String(text)) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export const create: CommandDefinition<NewResult> = {
  name: 'new',
  summary: 'Create an app from a template in an empty or new directory.',
  positionals: [{ name: 'directory', required: true, description: 'Where to create the app (empty or absent).' }],
  options: {
    template: { type: 'string', valueName: '<id>', description: `A bundled template (default: ${DEFAULT_TEMPLATE}), or an exact id of the control plane's template catalogue.` },
    framework: { type: 'string', valueName: '<name>', description: `A framework project with its own package.json and the platform's files (${Object.keys(FRAMEWORKS).join(', ')}); then npm install and platform init.` },
    ui: { type: 'string', valueName: '<provider>', description: 'The UI provider: preact (the default) or react (the template\'s React variant, <id>-react).' },
    ...CONTROL_URL_OPTION,
  },
  async run(invocation, host) {
    const directory = invocation.positionals[0]!;
    const { template: templateOption, framework, ui } = invocation.options as Record<string, string | undefined>;
    const problems: Diagnostic[] = [];
    if (templateOption !== undefined && framework !== undefined) problems.push(diagnostic('DG3005', '--template and --framework cannot be used together.', { hint: 'Choose a template, or a framework.' }));
    if (ui !== undefined && framework !== undefined) problems.push(diagnostic('DG3004', '--ui cannot be used with --framework.', { hint: 'Drop --ui: a framework project brings its own UI.' }));
    if (problems.length) return envelope('new', problems);
    if (framework !== undefined && !Object.prototype.hasOwnProperty.call(FRAMEWORKS, framework)) {
      const kinds = Object.keys(FRAMEWORKS);
      return envelope('new', [diagnostic('DG3006', `--framework ${framework} is not supported (supported: ${kinds.join(', ')}).`, { hint: didYouMean(framework, kinds) ?? 'Use --framework vite, or --template <id> for a platform app.' })]);
    }
    if (ui !== undefined && !UI_PROVIDERS.includes(ui)) {
      return envelope('new', [diagnostic('DG3003', `--ui ${ui} names no UI provider (valid: preact, react).`, { hint: didYouMean(ui, UI_PROVIDERS) ?? 'Omit --ui for Preact.' })]);
    }
    const templates = host.templates ? await host.templates() : [];
    const requested = templateOption ?? DEFAULT_TEMPLATE;
    // A bundled starter's React variant is the bundled template `<id>-react` (todo-react for todo).
    const id = ui === 'react' && !requested.endsWith(REACT_SUFFIX) && templates.some((t) => t.id === requested) ? `${requested}${REACT_SUFFIX}` : requested;
    const bundled = templates.find((t) => t.id === id);
    const unknown = (ids: string[], where: string) =>
      envelope<NewResult>('new', [diagnostic('DG3002', `--template ${id} names no ${where}.`, { hint: didYouMean(id, ids) ?? `Bundled templates: ${templates.map((t) => t.id).join(', ') || 'none'}.` })]);

    const fs = host.project(directory);
    const emptyTarget = async () => {
      const kind = await fs.stat('');
      if (kind === 'file' || (kind === 'directory' && (await fs.readDir('')).length > 0)) {
        return envelope<NewResult>('new', [diagnostic('DG3001', `${directory} is ${kind === 'file' ? 'a file' : 'not empty'}; a new app needs an empty or new directory.`, { hint: 'Choose another directory, or empty this one.' })]);
      }
      return undefined;
    };

    if (framework !== undefined) {
      const occupied = await emptyTarget();
      if (occupied) return occupied;
      const base = directory.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
      const name = NAME.test(base) ? base : 'vite-app';
      const kind = framework as FrameworkKind;
      const project = viteProject(name);
      for (const [path, text] of Object.entries(project)) await fs.writeFile(path, text);
      const written = await writePlatformFiles(fs, platformFiles(name, kind), { format: 'platform.framework.v0', kind, outDir: FRAMEWORKS[kind].outDir });
      if (!written.ok) return envelope('new', written.diagnostics);
      return envelope('new', [], { directory, template: `framework:${kind}`, name, files: Object.keys(project).length + written.wrote.length });
    }

    let files: Record<string, string | Uint8Array>;
    if (!bundled && id !== requested) {
      const variants = templates.filter((t) => t.id.endsWith(REACT_SUFFIX)).map((t) => t.id);
      return envelope('new', [diagnostic('DG3002', `--template ${requested} has no React variant: no bundled template is named ${id}.`, { hint: `React starters: ${variants.join(', ') || 'none'}; or omit --ui for the Preact ${requested}.` })]);
    }
    if (bundled) {
      const occupied = await emptyTarget();
      if (occupied) return occupied;
      files = bundled.files;
    } else {
      // Not a bundled starter: an exact id of the control plane's catalogue (an id of another form is none, asked of no one).
      if (!CATALOGUE_ID.test(id)) return unknown(templates.map((t) => t.id), 'bundled template or catalogue id');
      if (!host.controlPlane) return unknown(templates.map((t) => t.id), 'bundled template (this host reads no template catalogue)');
      const origin = controlUrlOf(invocation, host.controlPlane);
      if (!origin.ok) return envelope('new', origin.diagnostics);
      const catalogue = await readCatalogue(host.controlPlane.fetch, origin.value);
      if (!catalogue.ok) {
        // Offline, a near miss of a bundled name is most likely that name mistyped.
        if (catalogue.diagnostic.code === 'DG3007' && didYouMean(id, templates.map((t) => t.id))) return unknown(templates.map((t) => t.id), 'bundled template');
        return envelope('new', [catalogue.diagnostic]);
      }
      const entry = catalogue.value.templates.find((t) => t.id === id);
      if (!entry) return unknown([...templates.map((t) => t.id), ...catalogue.value.templates.map((t) => t.id)], 'bundled template or catalogue id');
      if (ui !== undefined) return envelope('new', [diagnostic('DG3013', `--ui cannot be used with the catalogue template ${id}: it fixes its own UI.`, { hint: 'Drop --ui.' })]);
      const occupied = await emptyTarget();
      if (occupied) return occupied;
      const installed = await installFiles(host.controlPlane.fetch, origin.value, entry);
      if (!installed.ok) return envelope('new', [installed.diagnostic]);
      files = installed.value;
    }
    const base = directory.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
    const manifest = parsedManifest(files[MANIFEST_FILE]);
    const name = NAME.test(base) || !manifest ? base : String(manifest.name);
    for (const [path, data] of Object.entries(files)) {
      // A catalogue template's manifest that is not a JSON object is written as it is: `check` reports it.
      await fs.writeFile(path, path === MANIFEST_FILE && manifest ? `${JSON.stringify({ ...manifest, name }, null, 2)}\n` : data);
    }
    return envelope('new', [], { directory, template: id, name, files: Object.keys(files).length });
  },
  text({ result }) {
    if (!result) return '';
    return `✓ created ${result.name} in ${result.directory} from the ${result.template} template (${result.files} files).\n  Next: npx platform test ${result.directory}`;
  },
};
