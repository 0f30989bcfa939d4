/**
 * `platform inspect [target]` and `platform logs [target]`: reads of a running app: its manifest, its
 * state (tables and row counts, a page of one table), its recent calls with what their handlers wrote,
 * and its state export. Without a target, the project's one running local server (`platform dev` or
 * `platform preview`, through its admin route); with one, a deployed app the builder owns, through the
 * control plane (tooling.md, Authentication 4): a hosted URL (`http://app-…--preview.localhost:4310/`),
 * an appId or an app's name. Codes: DG2001 to DG2004.
 */
import { diagnostic, envelope, type Diagnostic, type CommandEnvelope } from '../diagnostics/index.ts';
import { deployEnvironment, hostedTarget, type Environment, CALL_CURSOR, INSPECT_VIEWS, isInspectAnswer, type CallRecord, type InspectAnswer, type InspectView, ROUTES } from '../deploy/index.ts';
import { connect, CONTROL_URL_OPTION, DIR_OPTION, outcomeDiagnostic, resolveApp, type CodeFamily } from './control.ts';
import type { CommandDefinition, Invocation, CommandHost } from './types.ts';
import { adminExportPage, callAdmin, findLocalServers, type LocalMode } from '../local/index.ts';
import { writerOf, type FileWriter } from '../fs/index.ts';
import { MAX_STATE_EXPORT_BYTES, streamExport, type ExportPage } from '../state/index.ts';
import { quoteIdentifier } from '../runtime/index.ts';

/** A read of a local server: the same views, named by its mode and URL instead of an app and environment. */
export type LocalInspectAnswer = { local: true; mode: LocalMode; url: string } & (
  | { view: 'manifest'; manifest: Record<string, unknown> }
  | { view: 'state'; tables: Array<{ name: string; declared: boolean; rowCount: number; columns: Array<{ name: string; type: string; notNull: boolean; primaryKey: boolean }> }>; rows?: { table: string; total: number; columns: string[]; rows: unknown[][] } }
  | { view: 'logs'; calls: CallRecord[]; cursor: string }
);
/**
 * The export view: the document itself (printed; at most MAX_STATE_EXPORT_BYTES), or with `--out` the
 * file it was streamed to and its rows per table (the document is not printed).
 */
export type ExportViewAnswer = (Omit<Extract<InspectAnswer, { view: 'export' }>, 'page'> | { local: true; mode: LocalMode; url: string }) &
  ({ view: 'export'; document: Record<string, unknown> } | { view: 'export'; out: string; tables: Record<string, number> });
export type InspectResult = Exclude<InspectAnswer, { view: 'export' }> | LocalInspectAnswer | ExportViewAnswer;

const FAMILY: CodeFamily = {
  rejected: 'DG2002',
  untrusted: 'DG2002',
  failure: 'DG2002',
  // Another builder's app is not told apart from no app at all.
  specific: { not_owner: 'DG2003', app_not_found: 'DG2003', app_deleted: 'DG2003', not_deployed: 'DG2003', no_deployment: 'DG2003' },
};

interface Target {
  appId: string;
  environment: Environment;
}

/** The app and environment a command reads: from a hosted URL, else a reference or the project, in `--environment` (default preview). */
async function targetOf(invocation: Invocation, host: CommandHost): Promise<{ ok: true; value: Target; connection: Extract<Awaited<ReturnType<typeof connect>>, { ok: true }>['value'] } | { ok: false; diagnostics: Diagnostic[] }> {
  const given = invocation.positionals[0];
  const environmentOption = invocation.options.environment;
  let environment: Environment | undefined = 'preview';
  if (typeof environmentOption === 'string') {
    environment = deployEnvironment(environmentOption);
    if (!environment) return { ok: false, diagnostics: [diagnostic('DG2001', `--environment ${JSON.stringify(environmentOption)} is not a deployed environment.`, { hint: 'Use --environment preview or --environment production (prod).' })] };
  }
  let fromUrl: Target | undefined;
  if (given !== undefined && /^https?:\/\//i.test(given)) {
    let host: string | undefined;
    try {
      host = new URL(given).host;
    } catch {
      host = undefined;
    }
    fromUrl = hostedTarget(host);
    if (!fromUrl) return { ok: false, diagnostics: [diagnostic('DG2001', `${given} is not the address of a deployed app.`, { hint: 'Give the URL platform deploy printed (http://app-…--preview.localhost:4310), an appId, or the name of one of your apps.' })] };
  }
  const connection = await connect(invocation, host, FAMILY);
  if (!connection.ok) return connection;
  if (fromUrl) return { ok: true, value: fromUrl, connection: connection.value };
  const fs = host.project(typeof invocation.options.dir === 'string' ? invocation.options.dir : '.');
  const app = await resolveApp(connection.value, fs, given, { invocation: 'DG2001', noApp: 'DG2003', family: FAMILY });
  if (!app.ok) return app;
  return { ok: true, value: { appId: app.value, environment: environment! }, connection: connection.value };
}

/** Reads one view of the project's one running local server (DG2001 with none, or with both dev and preview). */
async function readLocal(command: string, invocation: Invocation, host: CommandHost, view: InspectView, query: Record<string, string>): Promise<CommandEnvelope<InspectResult>> {
  const fs = host.project(typeof invocation.options.dir === 'string' ? invocation.options.dir : '.');
  const servers = host.local ? await findLocalServers(fs, host.local.processAlive) : [];
  if (servers.length !== 1) {
    const message = servers.length ? 'Both platform dev and platform preview run for this project: say which app to read.' : 'No target: no platform dev or platform preview runs for this project, and no deployed app was named.';
    return envelope(command, [diagnostic('DG2001', message, { hint: servers.length ? 'Stop one of the two, or name a deployed app (its URL, appId or name).' : 'Start platform dev in the project, or name a deployed app: its URL, its appId or its name.' })]);
  }
  const [server] = servers;
  const alive = host.local!.processAlive;
  // The local server's own refusals are the inspector's "request failed", with the code it gave.
  const failed = (d: Diagnostic) => envelope<InspectResult>(command, [diagnostic('DG2002', d.message, { ...(d.hint ? { hint: d.hint } : {}), detail: { code: d.code } })]);
  const base = { local: true as const, mode: server!.mode, url: server!.url };
  if (view === 'manifest') {
    const answer = await callAdmin(fs, alive, server!.mode, { op: 'manifest' }, 'DG2002');
    return answer.ok ? envelope(command, [], { ...base, view, manifest: answer.result.manifest as unknown as Record<string, unknown> }) : failed(answer.diagnostic);
  }
  if (view === 'logs') {
    const answer = await callAdmin(fs, alive, server!.mode, { op: 'logs', ...(query.after ? { after: query.after } : {}) }, 'DG2002');
    return answer.ok ? envelope(command, [], { ...base, view, calls: answer.result.calls, cursor: answer.result.cursor }) : failed(answer.diagnostic);
  }
  const [tables, schema] = await Promise.all([callAdmin(fs, alive, server!.mode, { op: 'tables' }, 'DG2002'), callAdmin(fs, alive, server!.mode, { op: 'schema' }, 'DG2002')]);
  if (!tables.ok) return failed(tables.diagnostic);
  if (!schema.ok) return failed(schema.diagnostic);
  const columns = new Map(schema.result.tables.map((t) => [t.name, t.columns]));
  const state = { ...base, view: 'state' as const, tables: tables.result.tables.map((t) => ({ name: t.name, declared: t.declared, rowCount: t.rows, columns: columns.get(t.name) ?? [] })) };
  if (!query.table) return envelope(command, [], state);
  const table = state.tables.find((t) => t.name === query.table);
  if (!table) return envelope(command, [diagnostic('DG2002', `There is no table "${query.table}".`, { hint: 'Read the state without --table to list the tables.' })]);
  const limit = Math.min(Math.max(1, Number(query.limit ?? 50) || 50), 500);
  const offset = Math.max(0, Number(query.offset ?? 0) || 0);
  const order = table.declared ? ' ORDER BY "createdAt", "id"' : '';
  const page = await callAdmin(fs, alive, server!.mode, { op: 'sql', sql: `SELECT * FROM ${quoteIdentifier(table.name)}${order} LIMIT ${limit} OFFSET ${offset}` }, 'DG2002');
  if (!page.ok) return failed(page.diagnostic);
  return envelope(command, [], { ...state, rows: { table: table.name, total: table.rowCount, columns: page.result.columns.length ? page.result.columns : table.columns.map((c) => c.name), rows: page.result.rows } });
}

/** Where an export's pages come from: the one local server, or a deployed app through the control plane; and who answers. */
type PageSource = { ok: true; page: (cursor: string | undefined) => Promise<{ ok: true; page: ExportPage } | { ok: false; diagnostics: Diagnostic[] }>; base: () => Record<string, unknown> } | { ok: false; diagnostics: Diagnostic[] };

async function exportPages(command: string, invocation: Invocation, host: CommandHost): Promise<PageSource> {
  if (invocation.positionals[0] === undefined) {
    const fs = host.project(typeof invocation.options.dir === 'string' ? invocation.options.dir : '.');
    const servers = host.local ? await findLocalServers(fs, host.local.processAlive) : [];
    if (servers.length !== 1) {
      const none = await readLocal(command, invocation, host, 'manifest', {});
      return { ok: false, diagnostics: none.diagnostics };
    }
    const server = servers[0]!;
    const local = host.local!;
    return {
      ok: true,
      base: () => ({ local: true, mode: server.mode, url: server.url }),
      page: async (cursor) => {
        const read = await adminExportPage(fs, local.processAlive, server.mode, cursor, local.transferRows, 'DG2002');
        if (read.ok) return read;
        const d = read.diagnostic;
        return { ok: false, diagnostics: [diagnostic('DG2002', d.message, { ...(d.hint ? { hint: d.hint } : {}), detail: { code: d.code, ...(d.detail?.code ? { refusal: d.detail.code } : {}) } })] };
      },
    };
  }
  const target = await targetOf(invocation, host);
  if (!target.ok) return target;
  const { appId, environment } = target.value;
  let base: Record<string, unknown> = {};
  const rows = host.local?.transferRows;
  return {
    ok: true,
    base: () => base,
    page: async (cursor) => {
      const query: Record<string, string> = { ...(cursor !== undefined ? { cursor } : {}), ...(rows !== undefined ? { maxRows: String(rows) } : {}) };
      const answer = await target.connection.client.call(ROUTES.inspect, { appId, environment, view: 'export' }, { query, check: (body) => isInspectAnswer(body, 'export') });
      const refusal = hostedRefusal(answer, appId);
      if (refusal) return { ok: false, diagnostics: [refusal] };
      const { page, ...rest } = (answer as { body: Extract<InspectAnswer, { view: 'export' }> }).body;
      base = rest;
      return { ok: true, page };
    },
  };
}

/** The export view: streamed to `--out` page by page (nothing printed but a summary), else the document, bounded. */
async function exportView(invocation: Invocation, host: CommandHost): Promise<CommandEnvelope<InspectResult>> {
  const source = await exportPages('inspect', invocation, host);
  if (!source.ok) return envelope('inspect', source.diagnostics);
  let failure: Diagnostic[] | undefined;
  const page = async (cursor: string | undefined) => {
    const read = await source.page(cursor);
    if (read.ok) return read;
    failure = read.diagnostics;
    return { ok: false as const, diagnostic: read.diagnostics[0]! };
  };
  const out = invocation.options.out;
  if (typeof out === 'string') {
    const unwritable = (error: unknown) => envelope<InspectResult>('inspect', [diagnostic('DG0002', `--out ${JSON.stringify(out)} cannot be written: ${error instanceof Error ? error.message : String(error)}`, { hint: 'Give a path inside the current directory.' })]);
    let writer: FileWriter;
    try {
      writer = await writerOf(host.project('.'), out);
    } catch (error) {
      return unwritable(error);
    }
    let written: Awaited<ReturnType<typeof streamExport>>;
    try {
      written = await streamExport(page, (text) => writer.write(text));
      if (written.ok) await writer.close();
      else await writer.abort();
    } catch (error) {
      await writer.abort().catch(() => undefined);
      return unwritable(error);
    }
    if (!written.ok) return envelope('inspect', failure ?? [written.diagnostic]);
    return envelope('inspect', [], { ...source.base(), view: 'export', out, tables: written.tables } as InspectResult);
  }
  const pieces: string[] = [];
  let size = 0;
  const gathered = await streamExport(page, async (text) => {
    size += text.length;
    if (size > MAX_STATE_EXPORT_BYTES) throw new TooLarge();
    pieces.push(text);
  }).catch((error: unknown) => {
    if (error instanceof TooLarge) return undefined;
    throw error;
  });
  if (!gathered) {
    return envelope('inspect', [diagnostic('DG2002', `The state export is over ${MAX_STATE_EXPORT_BYTES} characters, more than is printed: write it to a file with --out.`, { hint: 'Add --out state.json: the export is then streamed to the file, of any size.', detail: { code: 'state_export_too_large' } })]);
  }
  if (!gathered.ok) return envelope('inspect', failure ?? [gathered.diagnostic]);
  return envelope('inspect', [], { ...source.base(), view: 'export', document: JSON.parse(pieces.join('')) as Record<string, unknown> } as InspectResult);
}

class TooLarge extends Error {}

/** A hosted read's refusal as the inspector's diagnostic: its state cannot come up or is unavailable (DG2004), or the control plane's outcome. */
function hostedRefusal(answer: Awaited<ReturnType<Extract<Awaited<ReturnType<typeof connect>>, { ok: true }>['value']['client']['call']>>, appId: string): Diagnostic | undefined {
  if (answer.kind === 'refused' && (answer.error.code === 'state_bootstrap_failed' || answer.error.code === 'state_unavailable')) {
    const hint = answer.error.code === 'state_bootstrap_failed' ? 'Fix the app and deploy again: its state cannot come up as deployed.' : 'Try again shortly: the app is not answering now.';
    return diagnostic('DG2004', answer.error.message, { hint, detail: { code: answer.error.code, errorId: answer.error.errorId ?? null, appId } });
  }
  return answer.kind === 'ok' ? undefined : outcomeDiagnostic(answer, FAMILY);
}

/** Reads one view; the app's own refusal (its state cannot come up, or is unavailable now) is DG2004 with its code, errorId and appId. */
async function read(command: string, invocation: Invocation, host: CommandHost, view: InspectView, query: Record<string, string>): Promise<CommandEnvelope<InspectResult>> {
  // Refused before any server is asked, local or hosted alike (the control plane refuses it too).
  if (query.after !== undefined && !CALL_CURSOR.test(query.after)) {
    return envelope(command, [diagnostic('DG2002', `--after ${JSON.stringify(query.after)} is not a cursor from an earlier read of the logs.`, { hint: 'Give the cursor an earlier platform logs printed, or leave --after out to read every kept call.' })]);
  }
  if (invocation.positionals[0] === undefined) return readLocal(command, invocation, host, view, query);
  const target = await targetOf(invocation, host);
  if (!target.ok) return envelope(command, target.diagnostics);
  const { appId, environment } = target.value;
  const answer = await target.connection.client.call(ROUTES.inspect, { appId, environment, view }, { query, check: (body) => isInspectAnswer(body, view) });
  const refusal = hostedRefusal(answer, appId);
  if (refusal) return envelope(command, [refusal]);
  return envelope(command, [], (answer as { body: InspectResult }).body);
}

const TARGET = [{ name: 'target', required: false, description: 'A deployed app\'s URL, an appId, or the name of one of your apps (default: the project\'s running platform dev or preview).' }];
const ENVIRONMENT_OPTION = { environment: { type: 'string' as const, valueName: '<preview|production>', description: 'Which environment to read (default: preview; a URL names its own).' } };
const AFTER_OPTION = { after: { type: 'string' as const, valueName: '<cursor>', description: 'Only calls after this cursor (printed by an earlier read).' } };

function callLine(call: CallRecord): string {
  const failure = call.error ? `  ${call.error.code}: ${call.error.message}${call.error.errorId ? ` (${call.error.errorId})` : ''}` : '';
  const head = `${call.at}  ${call.method.padEnd(6)} ${call.path}  ${call.status}  ${call.durationMs} ms  ${call.visitor}${failure}`;
  return [head, ...call.logs.map((line) => `    [${line.level}] ${line.message}`)].join('\n');
}

/** Who was read: a deployed app's environment and what it serves, or a local server. */
function headOf(answer: InspectResult): string {
  if ('local' in answer) return `platform ${answer.mode} at ${answer.url}`;
  const since = answer.deployment ? `, deployed ${answer.deployment.createdAt} (${answer.deployment.kind})` : '';
  return `${answer.appId} ${answer.environment}: ${answer.artifactId}${since}`;
}

function logsText(answer: Extract<InspectResult, { view: 'logs' }>): string {
  const lines = answer.calls.length ? answer.calls.map(callLine) : ['no calls since the server started'];
  return [...lines, `cursor: ${answer.cursor}  (platform logs --after ${answer.cursor} reads on from here)`].join('\n');
}

function grid(columns: string[], rows: unknown[][]): string {
  const cells = rows.map((row) => row.map((value) => (value === null ? 'null' : typeof value === 'object' ? JSON.stringify(value) : String(value)).slice(0, 60)));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

function inspectText(answer: InspectResult): string {
  const head = headOf(answer);
  switch (answer.view) {
    case 'manifest':
      return `${head}\n${JSON.stringify(answer.manifest, null, 2)}`;
    case 'state': {
      const tables = answer.tables.map((t) => `  ${t.name.padEnd(24)} ${String(t.rowCount).padStart(7)} row${t.rowCount === 1 ? ' ' : 's'}  ${t.declared ? '' : '(runtime) '}${t.columns.map((c) => c.name).join(', ')}`);
      const rows = answer.rows ? ['', `${answer.rows.table}: ${answer.rows.rows.length} of ${answer.rows.total} rows`, grid(answer.rows.columns, answer.rows.rows)] : [];
      const operations = 'operations' in answer ? [`operations: ${answer.operations.map((o) => o.name).join(', ') || 'none'}`] : [];
      return [head, 'tables:', ...tables, ...operations, ...rows].join('\n');
    }
    case 'logs':
      return `${head}\n${logsText(answer)}`;
    case 'export': {
      if ('document' in answer) return JSON.stringify(answer.document, null, 2);
      const counts = Object.entries(answer.tables).map(([name, n]) => `${name} ${n}`).join(', ');
      return `✓ wrote the state export of ${headOf(answer)} to ${answer.out}${counts ? ` (${counts})` : ''}`;
    }
  }
}

export const inspect: CommandDefinition<InspectResult> = {
  name: 'inspect',
  summary: 'Read a running app: the local dev or preview server, or a deployed app you own (manifest, state, logs, export).',
  positionals: TARGET,
  options: {
    view: { type: 'string', valueName: '<manifest|state|logs|export>', description: 'What to read (default: manifest).' },
    table: { type: 'string', valueName: '<name>', description: 'With --view state: also a page of this table\'s rows.' },
    offset: { type: 'string', valueName: '<n>', description: 'With --table: the first row of the page (default 0).' },
    limit: { type: 'string', valueName: '<1-500>', description: 'With --table: rows in the page (default 50).' },
    out: { type: 'string', valueName: '<file>', description: 'With --view export: write the platform.state-export.v0 document to this file.' },
    ...AFTER_OPTION,
    ...ENVIRONMENT_OPTION,
    ...DIR_OPTION,
    ...CONTROL_URL_OPTION,
  },
  async run(invocation, host) {
    const given = invocation.options.view ?? 'manifest';
    if (typeof given !== 'string' || !(INSPECT_VIEWS as readonly string[]).includes(given)) {
      return envelope('inspect', [diagnostic('DG2001', `--view ${JSON.stringify(given)} is not one of ${INSPECT_VIEWS.join(', ')}.`, { hint: 'Use --view manifest, state, logs or export.' })]);
    }
    const view = given as InspectView;
    const query: Record<string, string> = {};
    for (const name of ['table', 'offset', 'limit', 'after'] as const) {
      const value = invocation.options[name];
      if (typeof value === 'string') query[name] = value;
    }
    if (view === 'export') {
      // --after means nothing here; a malformed one is refused as on every view.
      if (query.after !== undefined && !CALL_CURSOR.test(query.after)) return read('inspect', invocation, host, view, query);
      return exportView(invocation, host);
    }
    return read('inspect', invocation, host, view, query);
  },
  text({ result }) {
    return result ? inspectText(result) : '';
  },
};

export const logs: CommandDefinition<InspectResult> = {
  name: 'logs',
  summary: 'The recent calls of the local dev or preview server, or of a deployed app you own: errors and what handlers wrote (console).',
  positionals: TARGET,
  options: { ...AFTER_OPTION, ...ENVIRONMENT_OPTION, ...DIR_OPTION, ...CONTROL_URL_OPTION },
  run(invocation, host) {
    const after = invocation.options.after;
    return read('logs', invocation, host, 'logs', typeof after === 'string' ? { after } : {});
  },
  text({ result }) {
    return result?.view === 'logs' ? `${headOf(result)}\n${logsText(result)}` : '';
  },
};
