/**
 * `platform init [directory]`: makes an existing framework project (a Vite app with its own
 * package.json) a platform app. It adds the platform's files (app.manifest.json, a server definition
 * under platform/server/, a placeholder client entry under platform/client/ and .platform/framework.json,
 * which records what it wrote) and touches nothing else; runs the framework's build with its package
 * script (`npm run build`); and builds the artifact, whose client is the framework's output
 * (src/core/build/framework.ts). Run again, it rewrites only its own unchanged files and rebuilds.
 */
import { buildProject, FRAMEWORK_RECORD, FRAMEWORKS, frameworkClient, readFrameworkRecord, type FrameworkKind, type FrameworkRecord } from '../build/index.ts';
import { diagnostic, envelope, hasErrors, type Diagnostic } from '../diagnostics/index.ts';
import { type FileSystem, type WritableFileSystem, normalizeProjectPath } from '../fs/index.ts';
import { sha256Hex } from '../hash/index.ts';
import { MANIFEST_FILE } from '../manifest/index.ts';
import type { CommandDefinition } from './types.ts';

const NAME = /^[a-z][a-z0-9-]{1,62}$/;
const SERVER_ENTRY = 'platform/server/index.ts';
const CLIENT_ENTRY = 'platform/client/main.ts';

export interface InitResult {
  directory: string;
  framework: FrameworkKind;
  /** Files init wrote (its own; nothing else is touched). */
  wrote: string[];
  artifactId?: string;
}

interface FrameworkPackage {
  name: string;
  kind: FrameworkKind;
  outDir: string;
  scripts: Record<string, unknown>;
}

/** The project's package.json read as a framework project: DG3201, DG3203 or DG3205 when it is not one. */
export async function readFrameworkPackage(fs: FileSystem, directory: string): Promise<{ ok: true; value: FrameworkPackage } | { ok: false; diagnostic: Diagnostic }> {
  const fail = (d: Diagnostic) => ({ ok: false as const, diagnostic: d });
  const kind = await fs.stat('package.json');
  if (kind !== 'file') return fail(diagnostic('DG3201', `${directory} has no package.json: init found no framework project there.`, { hint: 'Run init in a Vite project (a package.json that depends on vite), or create an app with `platform new`.' }));
  const text = (await fs.readText('package.json')) ?? '';
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch (error) {
    return fail(diagnostic('DG3203', `package.json cannot be read as JSON: ${error instanceof Error ? error.message : String(error)}.`, { file: 'package.json', hint: 'Fix package.json, then run init again.' }));
  }
  const invalid = (message: string, hint: string) => fail(diagnostic('DG3205', message, { file: 'package.json', hint }));
  if (typeof pkg !== 'object' || pkg === null || Array.isArray(pkg)) return invalid('package.json is not a JSON object.', 'A package.json is an object with name, scripts and dependencies.');
  const record = pkg as Record<string, unknown>;
  for (const key of ['scripts', 'dependencies', 'devDependencies'] as const) {
    if (record[key] !== undefined && (typeof record[key] !== 'object' || record[key] === null || Array.isArray(record[key]))) return invalid(`package.json's "${key}" is not an object.`, `Make "${key}" an object of names to strings.`);
  }
  const declared = { ...(record.dependencies as object | undefined), ...(record.devDependencies as object | undefined) };
  const found = (Object.keys(FRAMEWORKS) as FrameworkKind[]).find((k) => Object.prototype.hasOwnProperty.call(declared, FRAMEWORKS[k].package));
  if (!found) return fail(diagnostic('DG3201', `package.json declares no supported framework (${Object.values(FRAMEWORKS).map((f) => f.package).join(', ')}).`, { file: 'package.json', hint: 'init supports Vite projects: add vite to devDependencies, or create a platform app with `platform new`.' }));
  // The platform's settings of a framework project: package.json's "platform": { "outDir" }.
  const settings = record.platform;
  if (settings !== undefined && (typeof settings !== 'object' || settings === null || Array.isArray(settings))) return invalid('package.json\'s "platform" is not an object.', 'Write "platform": { "outDir": "dist" }, or remove it.');
  const outDir = (settings as { outDir?: unknown } | undefined)?.outDir ?? FRAMEWORKS[found].outDir;
  if (typeof outDir !== 'string' || !normalizeProjectPath(outDir) || normalizeProjectPath(outDir) === '') {
    return invalid(`package.json's "platform.outDir" (${JSON.stringify(outDir)}) is not a folder inside the project.`, 'Name the folder the framework builds into, relative to package.json (Vite: "dist").');
  }
  const base = directory.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
  const candidate = typeof record.name === 'string' ? record.name.replace(/^@[^/]+\//, '') : base;
  const name = NAME.test(candidate) ? candidate : NAME.test(base) ? base : 'framework-app';
  return { ok: true, value: { name, kind: found, outDir: normalizeProjectPath(outDir)!, scripts: (record.scripts as Record<string, unknown> | undefined) ?? {} } };
}

/** The files the platform adds to a framework project. */
export function platformFiles(name: string, kind: FrameworkKind): Record<string, string> {
  const manifest = {
    format: 'platform.application-source.v0',
    name,
    app: { title: name },
    entrypoints: { client: CLIENT_ENTRY, server: SERVER_ENTRY },
  };
  return {
    [MANIFEST_FILE]: `${JSON.stringify(manifest, null, 2)}\n`,
    [SERVER_ENTRY]: `import { defineServer, query } from 'platform/server';\n\n/** The app's server: queries, mutations and endpoints the ${kind} client calls at /_platform/v0/. */\nexport default defineServer({\n  queries: {\n    'greeting.hello': query({\n      input: {},\n      handler: () => 'hello from the platform',\n    }),\n  },\n});\n`,
    [CLIENT_ENTRY]: `// The client is the ${kind} build's output (see ${FRAMEWORK_RECORD}); this entry is compiled but not served.\nexport {};\n`,
  };
}

/**
 * Writes the platform's files unless one exists that init did not write (DG3202, nothing written);
 * a write that fails is DG3206. Returns the paths written.
 */
export async function writePlatformFiles(fs: WritableFileSystem, files: Record<string, string>, record: Omit<FrameworkRecord, 'owned'>): Promise<{ ok: true; wrote: string[] } | { ok: false; diagnostics: Diagnostic[] }> {
  const previous = await readFrameworkRecord(fs);
  const foreign: Diagnostic[] = [];
  for (const path of [...Object.keys(files), FRAMEWORK_RECORD]) {
    const kind = await fs.stat(path);
    if (kind === undefined) continue;
    if (path === FRAMEWORK_RECORD && previous) continue;
    const text = kind === 'file' ? await fs.readBytes(path) : undefined;
    const ours = text !== undefined && previous?.owned[path] === sha256Hex(text);
    if (!ours) foreign.push(diagnostic('DG3202', `${path} already exists and is not the platform's: init leaves it as it is.`, { file: path, hint: `Move or rename ${path}, then run init again; init writes only files it owns.` }));
  }
  if (foreign.length) return { ok: false, diagnostics: foreign };
  const owned: Record<string, string> = {};
  try {
    for (const [path, text] of Object.entries(files)) {
      await fs.writeFile(path, text);
      owned[path] = sha256Hex(text);
    }
    await fs.writeFile(FRAMEWORK_RECORD, `${JSON.stringify({ ...record, owned }, null, 2)}\n`);
  } catch (error) {
    return { ok: false, diagnostics: [diagnostic('DG3206', `Setting the project up for the platform failed: ${error instanceof Error ? error.message : String(error)}.`, { hint: 'Check that the project folder is writable and that platform/ and .platform/ are free for the platform, then run init again.' })] };
  }
  return { ok: true, wrote: [...Object.keys(files), FRAMEWORK_RECORD] };
}

export const init: CommandDefinition<InitResult> = {
  name: 'init',
  summary: 'Make an existing framework project (a Vite app) a platform app: add its files, run its build, make its output deployable.',
  positionals: [{ name: 'directory', required: false, description: 'The framework project (default: the current directory).' }],
  options: {},
  async run(invocation, host) {
    const directory = invocation.positionals[0] ?? '.';
    const fs = host.project(directory);
    const read = await readFrameworkPackage(fs, directory);
    if (!read.ok) return envelope('init', [read.diagnostic]);
    const { name, kind, outDir, scripts } = read.value;
    const script = FRAMEWORKS[kind].buildScript;
    if (typeof scripts[script] !== 'string') {
      return envelope('init', [diagnostic('DG3204', `package.json has no "${script}" script: init builds the ${kind} project with it.`, { file: 'package.json', hint: `Add "scripts": { "${script}": "vite build" } to package.json.` })]);
    }
    if (!host.runScript) return envelope('init', [diagnostic('DG3204', `This host cannot run package scripts, so the "${script}" script is unavailable.`, { hint: 'Run platform init from the command line.' })]);

    const written = await writePlatformFiles(fs, platformFiles(name, kind), { format: 'platform.framework.v0', kind, outDir });
    if (!written.ok) return envelope('init', written.diagnostics);

    const ran = await host.runScript(directory, script);
    if (ran.code !== 0) {
      const tail = ran.output.trim().split('\n').slice(-5).join('\n');
      return envelope('init', [diagnostic('DG3204', `The "${script}" script failed (exit ${ran.code}).${tail ? `\n${tail}` : ''}`, { file: 'package.json', hint: `Fix the build (npm run ${script}), then run init again.` })], { directory, framework: kind, wrote: written.wrote });
    }
    const output = await frameworkClient(fs, { outDir });
    if (output.diagnostics.length) return envelope('init', output.diagnostics, { directory, framework: kind, wrote: written.wrote });

    const built = await buildProject(fs, await host.compiler());
    const diagnostics = built.diagnostics;
    if (hasErrors(diagnostics) || !built.id) return envelope('init', diagnostics, { directory, framework: kind, wrote: written.wrote });
    return envelope('init', diagnostics, { directory, framework: kind, wrote: written.wrote, artifactId: built.id });
  },
  text({ result }) {
    if (!result) return '';
    const lines = [`✓ initialised the ${result.framework} project in ${result.directory}: wrote ${result.wrote.join(', ')}.`];
    if (result.artifactId) lines.push(`✓ built ${result.artifactId}: its client is the ${result.framework} build's output.`, '  Next: npx platform deploy');
    return lines.join('\n');
  },
};
