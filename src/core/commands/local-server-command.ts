/**
 * What `platform dev` and `platform preview` share: the --host and --port options, the checks before
 * serving (a manifest, the state not held by a live server of the same mode, usable env values), the
 * discovery record while serving, and printing events as NDJSON (`--json`) or readable lines.
 */
import { diagnostic, envelope, type CommandEnvelope, type Diagnostic } from '../diagnostics/index.ts';
import { isWriteRefusal, type WritableFileSystem } from '../fs/index.ts';
import { readServerRecord, SERVER_RECORD_FORMAT, type LocalServerRecord, formatDevEvent, type DevEvent, type LocalHost, type LocalServer, readLocalEnv, serverRecordPath, type LocalMode } from '../local/index.ts';
import { formatDiagnostic } from './format.ts';
import { missingManifest } from './project-directory.ts';
import type { CommandHost, Invocation, OptionSpec } from './types.ts';

export const SERVER_OPTIONS: Record<string, OptionSpec> = {
  host: { type: 'string', valueName: '<address>', description: 'The address to listen on (default 127.0.0.1, loopback).' },
  port: { type: 'string', valueName: '<port>', description: 'The port to listen on; 0 (the default) picks a free one.' },
};

/** What a local server command needs from its host: the Node CLI's LocalHost. */
export type LocalCommandHost = CommandHost & { local?: LocalHost };

export interface LocalServerResult {
  mode: LocalMode;
  url?: string;
}

export interface Prepared {
  fs: WritableFileSystem;
  local: LocalHost;
  root: string;
  host: string;
  port: number;
  env: Record<string, string>;
  emit(event: DevEvent): void;
}

/** Prints a refusal the way the stream does (an envelope line with --json, readable lines without) and returns it. */
export function refuse(command: LocalMode, diagnostics: Diagnostic[], host: CommandHost, json: boolean): CommandEnvelope<LocalServerResult> {
  const value = envelope<LocalServerResult>(command, diagnostics, { mode: command });
  host.print?.(json ? JSON.stringify(value) : diagnostics.map(formatDiagnostic).join('\n'));
  return value;
}

/** The checks before serving; the prepared parts, or the refusal already printed. */
export async function prepareServer(mode: LocalMode, invocation: Invocation, commandHost: LocalCommandHost): Promise<Prepared | CommandEnvelope<LocalServerResult>> {
  const json = invocation.options.json === true;
  const local = commandHost.local;
  if (!local) return refuse(mode, [diagnostic('DG0001', `platform ${mode} runs only in the platform CLI on a machine (it starts workerd).`, { hint: 'Run it from a terminal with Node.js, in the app\'s directory.' })], commandHost, json);
  const directory = invocation.positionals[0] ?? '.';
  const host = typeof invocation.options.host === 'string' ? invocation.options.host : '127.0.0.1';
  const portText = typeof invocation.options.port === 'string' ? invocation.options.port : '0';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) return refuse(mode, [diagnostic('DG0002', `--port must be an integer from 0 to 65535 (got "${portText}").`, { hint: 'Write --port 0 to pick a free port.' })], commandHost, json);
  const fs = commandHost.project(directory);
  const missing = await missingManifest(fs, directory);
  if (missing) return refuse(mode, missing, commandHost, json);
  const running = await readServerRecord(fs, mode, local.processAlive);
  if (running) {
    return refuse(mode, [diagnostic('DG1812', `The ${mode} state of this project is held by a running platform ${mode} (process ${running.pid}, ${running.url}).`, { hint: `Use that server, or stop it (Ctrl-C in its terminal) before starting another.` })], commandHost, json);
  }
  const env = await readLocalEnv(fs, mode);
  if (!env.ok) return refuse(mode, [env.diagnostic], commandHost, json);
  const emit = (event: DevEvent) => commandHost.print?.(json ? JSON.stringify(event) : formatDevEvent(event));
  return { fs, local, root: local.resolve(directory), host, port, env: env.values, emit };
}

/** Publishes the running server for `platform db`, `export`, `import` and `inspect`. */
export async function publishServer(prepared: Prepared, mode: LocalMode, server: LocalServer): Promise<void> {
  const record: LocalServerRecord = { format: SERVER_RECORD_FORMAT, mode, url: server.url, pid: prepared.local.pid, startedAt: new Date().toISOString(), adminSecret: server.adminSecret };
  await prepared.fs.writeFile(serverRecordPath(mode), `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * Stops serving: the discovery record goes first, so nothing finds a server that is ending. A removal
 * refused (a link on the way, reported already when it was written) leaves the file as it is.
 */
export async function unpublishServer(prepared: Prepared, mode: LocalMode): Promise<void> {
  await prepared.local.removeFile(prepared.root, serverRecordPath(mode)).catch((error: unknown) => {
    if (!isWriteRefusal(error)) throw error;
  });
}
