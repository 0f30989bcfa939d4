/**
 * `platform inspect [target]` and `platform logs [target]`: an owner's reads of a deployed app's
 * environment through the control plane (tooling.md, Authentication 4): its manifest, its state (tables
 * and row counts, a page of one table), its recent calls with what their handlers wrote, and its state
 * export. The target is a hosted URL (`http://app-…--preview.localhost:4310/`), an appId or an app's
 * name, or the project's own app. Codes: DG2001 to DG2004.
 */
import { diagnostic, envelope, type Diagnostic } from '../diagnostics';
import { deployEnvironment, hostedTarget, type Environment } from '../deploy/ids';
import { INSPECT_VIEWS, isInspectAnswer, type CallRecord, type InspectAnswer, type InspectView } from '../deploy/protocol';
import { ROUTES } from '../deploy/routes';
import { connect, CONTROL_URL_OPTION, DIR_OPTION, outcomeDiagnostic, resolveApp, type CodeFamily } from './control';
import type { CommandDefinition, Invocation, CommandHost } from './types';
import type { CommandEnvelope } from '../diagnostics';

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

/** Reads one view; the app's own refusal (its state cannot come up, or is unavailable now) is DG2004 with its code, errorId and appId. */
async function read(command: string, invocation: Invocation, host: CommandHost, view: InspectView, query: Record<string, string>): Promise<CommandEnvelope<InspectAnswer>> {
  const target = await targetOf(invocation, host);
  if (!target.ok) return envelope(command, target.diagnostics);
  const { appId, environment } = target.value;
  const answer = await target.connection.client.call(ROUTES.inspect, { appId, environment, view }, { query, check: (body) => isInspectAnswer(body, view) });
  if (answer.kind === 'refused' && (answer.error.code === 'state_bootstrap_failed' || answer.error.code === 'state_unavailable')) {
    const hint = answer.error.code === 'state_bootstrap_failed' ? 'Fix the app and deploy again: its state cannot come up as deployed.' : 'Try again shortly: the app is not answering now.';
    return envelope(command, [diagnostic('DG2004', answer.error.message, { hint, detail: { code: answer.error.code, errorId: answer.error.errorId ?? null, appId } })]);
  }
  if (answer.kind !== 'ok') return envelope(command, [outcomeDiagnostic(answer, FAMILY)]);
  return envelope(command, [], answer.body);
}

const TARGET = [{ name: 'target', required: false, description: 'A deployed app\'s URL, an appId, or the name of one of your apps (default: the project\'s).' }];
const ENVIRONMENT_OPTION = { environment: { type: 'string' as const, valueName: '<preview|production>', description: 'Which environment to read (default: preview; a URL names its own).' } };
const AFTER_OPTION = { after: { type: 'string' as const, valueName: '<cursor>', description: 'Only calls after this cursor (printed by an earlier read).' } };

function callLine(call: CallRecord): string {
  const failure = call.error ? `  ${call.error.code}: ${call.error.message}${call.error.errorId ? ` (${call.error.errorId})` : ''}` : '';
  const head = `${call.at}  ${call.method.padEnd(6)} ${call.path}  ${call.status}  ${call.durationMs} ms  ${call.visitor}${failure}`;
  return [head, ...call.logs.map((line) => `    [${line.level}] ${line.message}`)].join('\n');
}

function logsText(answer: Extract<InspectAnswer, { view: 'logs' }>): string {
  const lines = answer.calls.length ? answer.calls.map(callLine) : [`no calls to ${answer.appId} (${answer.environment}) since the control plane started`];
  return [...lines, `cursor: ${answer.cursor}  (platform logs --after ${answer.cursor} reads on from here)`].join('\n');
}

function grid(columns: string[], rows: unknown[][]): string {
  const cells = rows.map((row) => row.map((value) => (value === null ? 'null' : typeof value === 'object' ? JSON.stringify(value) : String(value)).slice(0, 60)));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

function inspectText(answer: InspectAnswer): string {
  const since = answer.deployment ? `, deployed ${answer.deployment.createdAt} (${answer.deployment.kind})` : '';
  const head = `${answer.appId} ${answer.environment}: ${answer.artifactId}${since}`;
  switch (answer.view) {
    case 'manifest':
      return `${head}\n${JSON.stringify(answer.manifest, null, 2)}`;
    case 'state': {
      const tables = answer.tables.map((t) => `  ${t.name.padEnd(24)} ${String(t.rowCount).padStart(7)} row${t.rowCount === 1 ? ' ' : 's'}  ${t.declared ? '' : '(runtime) '}${t.columns.map((c) => c.name).join(', ')}`);
      const rows = answer.rows ? ['', `${answer.rows.table}: ${answer.rows.rows.length} of ${answer.rows.total} rows`, grid(answer.rows.columns, answer.rows.rows)] : [];
      return [head, 'tables:', ...tables, `operations: ${answer.operations.map((o) => o.name).join(', ') || 'none'}`, ...rows].join('\n');
    }
    case 'logs':
      return `${head}\n${logsText(answer)}`;
    case 'export':
      return JSON.stringify(answer.document, null, 2);
  }
}

export const inspect: CommandDefinition<InspectAnswer> = {
  name: 'inspect',
  summary: 'Read a deployed app you own: its manifest, state, recent calls (logs) or state export.',
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
    const result = await read('inspect', invocation, host, view, query);
    const out = invocation.options.out;
    if (result.ok && result.result?.view === 'export' && typeof out === 'string') {
      try {
        await host.project('.').writeFile(out, `${JSON.stringify(result.result.document, null, 2)}\n`);
      } catch (error) {
        return envelope('inspect', [diagnostic('DG0002', `--out ${JSON.stringify(out)} cannot be written: ${error instanceof Error ? error.message : String(error)}`, { hint: 'Give a path inside the current directory.' })]);
      }
    }
    return result;
  },
  text({ result }) {
    return result ? inspectText(result) : '';
  },
};

export const logs: CommandDefinition<InspectAnswer> = {
  name: 'logs',
  summary: 'The recent calls of a deployed app you own, with what their handlers wrote (console) and their errors.',
  positionals: TARGET,
  options: { ...AFTER_OPTION, ...ENVIRONMENT_OPTION, ...DIR_OPTION, ...CONTROL_URL_OPTION },
  run(invocation, host) {
    const after = invocation.options.after;
    return read('logs', invocation, host, 'logs', typeof after === 'string' ? { after } : {});
  },
  text({ result }) {
    return result?.view === 'logs' ? `${result.appId} ${result.environment}: ${result.artifactId}\n${logsText(result)}` : '';
  },
};
