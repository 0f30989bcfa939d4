/** The command side of the admin route: finds the running local server of a project and asks it (`platform db`, `export`, `import`). */
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics';
import type { FileSystem } from '../fs';
import { ADMIN_PATH, ADMIN_PROTOCOL, ADMIN_SECRET_HEADER, type AdminAnswer, type AdminRequest, type AdminResult } from './admin';
import { findLocalServers, type ProcessAlive } from './discovery';
import type { LocalMode } from './paths';

export type AdminCall<R extends AdminResult['op']> = { ok: true; result: Extract<AdminResult, { op: R }>; mode: LocalMode; url: string } | { ok: false; diagnostic: Diagnostic };

type Body = Record<string, unknown>;
type Distributed<T> = T extends unknown ? Omit<T, 'protocol'> : never;

/**
 * Sends one admin request to the project's running server of `mode` (or, without one, to the only
 * server running). `missing` is the code for no running server: DG1820 for export and import, DG1840
 * for db. DG1841 when the server published no admin secret, DG1842 for an answer of another protocol.
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
  if (!answer || answer.protocol !== ADMIN_PROTOCOL || typeof answer.ok !== 'boolean') {
    return { ok: false, diagnostic: diagnostic('DG1842', `The running platform ${server.mode} answered the database request with HTTP ${response.status} and not a ${ADMIN_PROTOCOL} answer.`, { hint: `The server runs another version of the platform: restart platform ${server.mode} with this CLI.` }) };
  }
  if (!answer.ok) return { ok: false, diagnostic: (answer as { diagnostic: Diagnostic }).diagnostic };
  return { ok: true, result: (answer as { result: Extract<AdminResult, { op: R }> }).result, mode: server.mode, url: server.url };
}
