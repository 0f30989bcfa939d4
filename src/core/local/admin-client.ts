/** The command side of the admin route: finds the running local server of a project and asks it (`platform db`, `export`, `import`). */
import type { Result } from '../result.ts';
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics/index.ts';
import type { FileSystem } from '../fs/index.ts';
import { ADMIN_PATH, ADMIN_PROTOCOL, ADMIN_SECRET_HEADER, type AdminAnswer, type AdminRequest, type AdminResult } from './admin.ts';
import { findLocalServers, type ProcessAlive } from './discovery.ts';
import { errorOfBody } from '../../modules/wire.ts';
import type { ImportTarget, ExportPageResult } from '../state/index.ts';
import type { LocalMode } from './paths.ts';

export type AdminCall<R extends AdminResult['op']> = Result<{ result: Extract<AdminResult, { op: R }>; mode: LocalMode; url: string }, { diagnostic: Diagnostic }>;

type Body = Record<string, unknown>;
type Distributed<T> = T extends unknown ? Omit<T, 'protocol'> : never;

/**
 * Sends one admin request to the project's running server of `mode` (or, without one, to the only
 * server running). `missing` is the code for no running server: DG1820 for export and import, DG1840
 * for db. DG1841 when the server published no admin secret; DG1840 when the engine answered with its
 * own failure (past its handler deadline, restarting), with the runtime's code in `detail.code`; DG1842
 * only for an answer of another protocol.
 */
export async function callAdmin<R extends AdminResult['op']>(fs: FileSystem, alive: ProcessAlive, mode: LocalMode | undefined, request: Distributed<AdminRequest> & { op: R }, missing: DiagnosticCode): Promise<AdminCall<R>> {
  const servers = await findLocalServers(fs, alive);
  const server = mode ? servers.find((s) => s.mode === mode) : servers[0];
  if (!server) {
    const which = mode ? `platform ${mode}` : 'platform dev or platform preview';
    return { ok: false, diagnostic: diagnostic(missing, `No running ${which} serves this project.`, { hint: `Start ${mode ? `platform ${mode}` : 'platform dev'} in the project directory, then run this again.` }) };
  }
  if (!server.adminSecret) {
    return { ok: false, diagnostic: diagnostic('DG1841', `The running platform ${server.mode} (process ${server.pid}) published no admin session secret.`, { hint: `Restart platform ${server.mode} with this version of the CLI.` }) };
  }
  let response: Response;
  try {
    response = await fetch(new URL(ADMIN_PATH, server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [ADMIN_SECRET_HEADER]: server.adminSecret },
      body: JSON.stringify({ protocol: ADMIN_PROTOCOL, ...request } as Body),
    });
  } catch (error) {
    return { ok: false, diagnostic: diagnostic(missing, `The running platform ${server.mode} at ${server.url} could not be reached: ${error instanceof Error ? error.message : String(error)}.`, { hint: `Check that platform ${server.mode} still runs, or start it again.` }) };
  }
  const answer = (await response.json().catch(() => undefined)) as Partial<AdminAnswer> | undefined;
  // The engine's own failure (a request past the handler deadline, the app restarting) is not another version.
  const failure = errorOfBody(answer);
  if (failure) {
    const hint = failure.code === 'handler_deadline_exceeded'
      ? `The engine of platform ${server.mode} did not answer within its handler deadline; try again, and report it if it recurs (each page of an export or import is bounded to stay far below it).`
      : `Check platform ${server.mode}'s output (the app may be restarting), then try again.`;
    return { ok: false, diagnostic: diagnostic('DG1840', `The running platform ${server.mode} could not answer the database request: ${failure.code}: ${failure.message}`, { hint, detail: { code: failure.code, ...(failure.errorId ? { errorId: failure.errorId } : {}) } }) };
  }
  if (!answer || answer.protocol !== ADMIN_PROTOCOL || typeof answer.ok !== 'boolean') {
    return { ok: false, diagnostic: diagnostic('DG1842', `The running platform ${server.mode} answered the database request with HTTP ${response.status} and not a ${ADMIN_PROTOCOL} answer.`, { hint: `The server runs another version of the platform: restart platform ${server.mode} with this CLI.` }) };
  }
  if (!answer.ok) return { ok: false, diagnostic: (answer as { diagnostic: Diagnostic }).diagnostic };
  return { ok: true, result: (answer as { result: Extract<AdminResult, { op: R }> }).result, mode: server.mode, url: server.url };
}

/** Reads one page of the running server's state export (`platform export`, `inspect --view export`). */
export async function adminExportPage(fs: FileSystem, alive: ProcessAlive, mode: LocalMode, cursor: string | undefined, maxRows: number | undefined, missing: DiagnosticCode): Promise<ExportPageResult> {
  const called = await callAdmin(fs, alive, mode, { op: 'export-page', ...(cursor !== undefined ? { cursor } : {}), ...(maxRows !== undefined ? { maxRows } : {}) }, missing);
  return called.ok ? { ok: true, page: called.result.page } : called;
}

/** The running server's engine as a streamed import's target: begin, rows, commit and abort as admin requests. */
export function adminImportTarget(fs: FileSystem, alive: ProcessAlive, mode: LocalMode, missing: DiagnosticCode): ImportTarget {
  let session: string | undefined;
  return {
    async begin(head) {
      const called = await callAdmin(fs, alive, mode, { op: 'import-begin', head }, missing);
      if (!called.ok) return called;
      session = called.result.session;
      return { ok: true };
    },
    async rows(table, first, rows) {
      const called = await callAdmin(fs, alive, mode, { op: 'import-rows', session: session!, table, first, rows }, missing);
      return called.ok ? { ok: true } : called;
    },
    async commit() {
      const called = await callAdmin(fs, alive, mode, { op: 'import-commit', session: session! }, missing);
      return called.ok ? { ok: true, counts: called.result.counts } : called;
    },
    async abort() {
      if (session !== undefined) await callAdmin(fs, alive, mode, { op: 'import-abort', session }, missing);
    },
  };
}
