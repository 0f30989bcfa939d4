/**
 * Local state on disk: `platform state reset --state dev|preview|test --confirm <app>` (a recovery copy
 * first, its path printed), and `platform export` / `platform import` of a running local server's
 * database records as a `platform.state-export.v0` document, with the same core, format and checks as
 * the playground's Data panel (src/core/state, run inside the engine over the app's own database).
 */
import { diagnostic, envelope, type CommandEnvelope, type Diagnostic } from '../diagnostics/index.ts';
import { chunksOfFile, writerOf, type FileWriter, type WritableFileSystem } from '../fs/index.ts';
import { MANIFEST_FILE } from '../manifest/index.ts';
import { adminExportPage, adminImportTarget, readServerRecord, isLocalState, RECOVERY_DIR, statePath, type LocalMode } from '../local/index.ts';
import { streamExport, streamImport } from '../state/index.ts';
import { missingManifest } from './project-directory.ts';
import type { CommandDefinition, CommandHost, Invocation, OptionSpec } from './types.ts';

const DIR_OPTION: Record<string, OptionSpec> = {
  dir: { type: 'string', valueName: '<directory>', description: 'The project directory (default: the current directory).' },
};

/** The app's name from its manifest (what --confirm must equal), or why there is none. */
async function appName(fs: WritableFileSystem, directory: string): Promise<{ ok: true; name: string } | { ok: false; diagnostics: Diagnostic[] }> {
  const missing = await missingManifest(fs, directory);
  if (missing) return { ok: false, diagnostics: missing };
  try {
    const name = (JSON.parse((await fs.readText(MANIFEST_FILE)) ?? '') as { name?: unknown }).name;
    if (typeof name === 'string') return { ok: true, name };
  } catch {
    // Reported below.
  }
  return { ok: false, diagnostics: [diagnostic('DG1002', `${MANIFEST_FILE} has no readable "name".`, { file: MANIFEST_FILE, hint: 'Run platform check to see what is wrong with the manifest.' })] };
}

export interface StateResetResult {
  state: string;
  /** The recovery copy, project-relative; absent when there was no state to copy. */
  recovery?: string;
}

export const state: CommandDefinition<StateResetResult> = {
  name: 'state',
  summary: 'Reset local state (dev, preview or test) after writing a recovery copy.',
  positionals: [{ name: 'action', required: true, description: 'reset.' }],
  options: {
    ...DIR_OPTION,
    state: { type: 'string', valueName: '<dev|preview|test>', description: 'Which local state.' },
    confirm: { type: 'string', valueName: '<app>', description: 'The application name, exactly (a reset is destructive).' },
  },
  async run(invocation, host) {
    const action = invocation.positionals[0];
    if (action !== 'reset') return envelope('state', [diagnostic('DG0002', `Unknown state action "${action}".`, { hint: 'Write platform state reset --state dev --confirm <app>.' })]);
    const selector = invocation.options.state;
    if (!isLocalState(selector)) {
      return envelope('state', [diagnostic('DG1801', selector === undefined ? 'platform state reset needs --state.' : `--state must be dev, preview or test (got "${String(selector)}").`, { hint: 'Write --state dev, --state preview or --state test.' })]);
    }
    const directory = typeof invocation.options.dir === 'string' ? invocation.options.dir : '.';
    const fs = host.project(directory);
    const name = await appName(fs, directory);
    if (!name.ok) return envelope('state', name.diagnostics);
    const confirm = invocation.options.confirm;
    if (confirm === undefined) return envelope('state', [diagnostic('DG1810', `Resetting the ${selector} state is destructive: confirm it with --confirm ${name.name}.`, { hint: `Write platform state reset --state ${selector} --confirm ${name.name}.` })]);
    if (confirm !== name.name) return envelope('state', [diagnostic('DG1811', `--confirm "${String(confirm)}" does not equal the application name "${name.name}".`, { hint: `Write --confirm ${name.name}, exactly.` })]);
    const local = host.local;
    if (!local) return envelope('state', [diagnostic('DG0001', 'platform state reset runs only in the platform CLI on a machine.')]);
    if (selector !== 'test') {
      const running = await readServerRecord(fs, selector, local.processAlive);
      if (running) return envelope('state', [diagnostic('DG1812', `The ${selector} state is held by a running platform ${selector} (process ${running.pid}).`, { hint: `Stop platform ${selector} (Ctrl-C) first, then reset.` })]);
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const recovery = `${RECOVERY_DIR}/${selector}-${stamp}`;
    const reset = await local.resetState(local.resolve(directory), statePath(selector), recovery);
    if (!reset.ok) return envelope('state', [diagnostic(reset.code, `The ${selector} state could not be reset: ${reset.message}`, { hint: reset.code === 'DG1813' ? 'Remove the link under .platform/ and try again.' : 'Check the permissions and free space of .platform/, then try again.' })]);
    return envelope('state', [], { state: selector, ...(reset.copied ? { recovery } : {}) });
  },
  text({ result }) {
    if (!result) return '';
    return result.recovery ? `✓ ${result.state} state reset; the previous state is kept in ${result.recovery}` : `✓ ${result.state} state reset (it was empty; no recovery copy needed)`;
  },
};

/** `--state` of export and import: dev or preview, else DG1825. */
function transferMode<R>(command: string, invocation: Invocation): LocalMode | CommandEnvelope<R> {
  const selector = invocation.options.state;
  if (selector === 'dev' || selector === 'preview') return selector;
  return envelope<R>(command, [diagnostic('DG1825', selector === undefined ? `platform ${command} needs --state dev or --state preview.` : `platform ${command} works on dev or preview state only (got "${String(selector)}").`, { hint: `Write --state dev or --state preview.` })]);
}

/** A file named on the command line, as a directory to open and a name in it. */
function splitPath(path: string): { directory: string; name: string } {
  const at = path.lastIndexOf('/');
  return at < 0 ? { directory: '.', name: path } : { directory: path.slice(0, at) || '/', name: path.slice(at + 1) };
}

export interface ExportResult {
  state: LocalMode;
  out: string;
  tables: Record<string, number>;
}

export const exportCommand: CommandDefinition<ExportResult> = {
  name: 'export',
  summary: 'Write the database records of the running local dev or preview server to a platform.state-export.v0 file.',
  positionals: [],
  options: {
    ...DIR_OPTION,
    state: { type: 'string', valueName: '<dev|preview>', description: 'Which local server\'s state.' },
    out: { type: 'string', valueName: '<file>', description: 'The file to write.' },
  },
  async run(invocation, host) {
    const mode = transferMode<ExportResult>('export', invocation);
    if (typeof mode !== 'string') return mode;
    const out = invocation.options.out;
    if (typeof out !== 'string' || out === '') return envelope('export', [diagnostic('DG1825', 'platform export needs --out <file>.', { hint: 'Write --out state.json.' })]);
    const directory = typeof invocation.options.dir === 'string' ? invocation.options.dir : '.';
    const fs = host.project(directory);
    if (!host.local) return envelope('export', [diagnostic('DG0001', 'platform export runs only in the platform CLI on a machine.')]);
    const file = splitPath(out);
    // The file goes into a folder that exists: export makes no folders (a mistyped path makes none at the disk's root).
    const folder = host.project(file.directory);
    if ((await folder.stat('')) !== 'directory') {
      return envelope('export', [diagnostic('DG1821', `${out} could not be written: the folder ${file.directory} does not exist, and export makes no folders.`, { hint: 'Name a file in an existing folder, or make the folder first.' })]);
    }
    // Written page by page to a temporary file put in place at the end: an export that fails leaves any old file as it was.
    const local = host.local;
    let writer: FileWriter;
    try {
      writer = await writerOf(folder, file.name);
    } catch (error) {
      return envelope('export', [diagnostic('DG1821', `${out} could not be written: ${error instanceof Error ? error.message : String(error)}`, { hint: 'Choose a writable file path.' })]);
    }
    let exported: Awaited<ReturnType<typeof streamExport>>;
    try {
      exported = await streamExport((cursor) => adminExportPage(fs, local.processAlive, mode, cursor, local.transferRows, 'DG1820'), (text) => writer.write(text));
      if (exported.ok) await writer.close();
      else await writer.abort();
    } catch (error) {
      await writer.abort().catch(() => undefined);
      return envelope('export', [diagnostic('DG1821', `${out} could not be written: ${error instanceof Error ? error.message : String(error)}`, { hint: 'Choose a writable file path.' })]);
    }
    if (!exported.ok) return envelope('export', [exported.diagnostic]);
    const tables = exported.tables;
    return envelope('export', [], { state: mode, out, tables });
  },
  text({ result }) {
    if (!result) return '';
    const counts = Object.entries(result.tables).map(([name, n]) => `${name} ${n}`).join(', ');
    return `✓ exported the ${result.state} state to ${result.out}${counts ? ` (${counts})` : ''}`;
  },
};

export interface ImportResult {
  state: LocalMode;
  counts: Record<string, number>;
}

export const importCommand: CommandDefinition<ImportResult> = {
  name: 'import',
  summary: 'Replace the running local dev or preview server\'s database records with a platform.state-export.v0 file.',
  positionals: [{ name: 'file', required: false, description: 'The export file to import.' }],
  options: {
    ...DIR_OPTION,
    state: { type: 'string', valueName: '<dev|preview>', description: 'Which local server\'s state.' },
    environment: { type: 'string', valueName: '<name>', description: 'Refused: import writes local dev and preview state only.' },
    'control-url': { type: 'string', valueName: '<url>', description: 'Refused: import writes local dev and preview state only.' },
  },
  async run(invocation, host: CommandHost) {
    if (invocation.options.environment !== undefined || invocation.options['control-url'] !== undefined) {
      return envelope('import', [diagnostic('DG1823', 'platform import writes local dev and preview state only; it cannot target a deployed application.', { hint: 'Import into platform dev (--state dev), check the app there, then deploy.' })]);
    }
    const mode = transferMode<ImportResult>('import', invocation);
    if (typeof mode !== 'string') return mode;
    const path = invocation.positionals[0];
    if (path === undefined) return envelope('import', [diagnostic('DG1825', 'platform import needs the export file.', { hint: 'Write platform import state.json --state dev.' })]);
    const file = splitPath(path);
    const source = host.project(file.directory);
    const kind = await source.stat(file.name);
    if (kind === undefined) return envelope('import', [diagnostic('DG1825', `There is no file ${path}.`, { hint: 'Name an export written by platform export or the playground\'s Data panel.' })]);
    if (kind !== 'file') return envelope('import', [diagnostic('DG1821', `${path} could not be read.`, { hint: 'Name a readable file.' })]);
    const directory = typeof invocation.options.dir === 'string' ? invocation.options.dir : '.';
    if (!host.local) return envelope('import', [diagnostic('DG0001', 'platform import runs only in the platform CLI on a machine.')]);
    // Read in chunks and sent in batches: the document is checked here as it is read (DG1822), each batch
    // by the runtime against the schema in force (DG1824), and nothing is written unless all of it is.
    const target = adminImportTarget(host.project(directory), host.local.processAlive, mode, 'DG1820');
    let imported: Awaited<ReturnType<typeof streamImport>>;
    try {
      imported = await streamImport(() => chunksOfFile(source, file.name), target, host.local.transferRows !== undefined ? { batchRows: host.local.transferRows } : {});
    } catch (error) {
      return envelope('import', [diagnostic('DG1821', `${path} could not be read: ${error instanceof Error ? error.message : String(error)}`, { hint: 'Name a readable file.' })]);
    }
    if (!imported.ok) return envelope('import', [imported.diagnostic]);
    return envelope('import', [], { state: mode, counts: imported.counts });
  },
  text({ result }) {
    if (!result) return '';
    return `✓ imported into the ${result.state} state (${Object.entries(result.counts).map(([name, n]) => `${name} ${n}`).join(', ') || 'no tables'})`;
  },
};
