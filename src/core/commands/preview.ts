/**
 * `platform preview [directory] [--host] [--port] [--json]`: serves the last verified artifact (what
 * `platform build` wrote) locally in workerd with the preview state, and never compiles. DG1704 when
 * there is no artifact, it fails verification (with the reason's own code: DG1705 for a stale build),
 * or its server does not start.
 */
import { blobPath, verifyLatest } from '../build/index.ts';
import { diagnostic, envelope, type Diagnostic } from '../diagnostics/index.ts';
import type { Generation } from '../generation/index.ts';
import { devEvent, readPersona, refusedWriteDiagnostic } from '../local/index.ts';
import { prepareServer, publishServer, refuse, SERVER_OPTIONS, unpublishServer, type LocalCommandHost, type LocalServerResult } from './local-server-command.ts';
import type { CommandDefinition } from './types.ts';

export const preview: CommandDefinition<LocalServerResult> = {
  name: 'preview',
  streams: true,
  summary: 'Serve the last verified build artifact locally in workerd (never compiles), streaming platform.dev.v0 events.',
  positionals: [{ name: 'directory', required: false, description: 'The project directory (default: the current directory).' }],
  options: { ...SERVER_OPTIONS },
  async run(invocation, commandHost: LocalCommandHost) {
    const json = invocation.options.json === true;
    const prepared = await prepareServer('preview', invocation, commandHost);
    if (!('local' in prepared)) return prepared;
    const { fs, local, root, emit } = prepared;
    // Listened for from the start: a stop asked for while the artifact starts ends the server as any other.
    const stopped = local.stopped();
    const verification = await verifyLatest(fs);
    // What `build --verify` refuses, preview does not serve: a stale build (DG1705) included, since it
    // would show something other than the sources (tooling.md: preview runs the last verified artifact).
    const blocking = verification.diagnostics.filter((d) => d.severity === 'error');
    if (blocking.length || !verification.id || !verification.record) {
      const first = blocking[0];
      const why: Diagnostic = diagnostic('DG1704', `There is no verified artifact to preview${first ? `: ${first.message}` : '.'}`, { hint: 'Run platform build, then platform preview.' });
      return refuse('preview', [why, ...blocking], commandHost, json);
    }
    const { id, record } = verification;
    const files = new Map<string, Uint8Array>();
    for (const [path, entry] of Object.entries(record.files)) {
      const bytes = await fs.readBytes(blobPath(entry.sha256));
      if (bytes) files.set(path, bytes);
    }
    const generation: Generation = { manifest: record.manifest, files };
    const server = await local.listen({ root, mode: 'preview', host: prepared.host, port: prepared.port, env: () => prepared.env, onCall: (call) => { if (call.error || call.logs.length) emit(devEvent('server.call', { mode: 'preview', call })); } });
    let started;
    try {
      started = await server.promote(generation);
      if (started.ok) await publishServer(prepared, 'preview', server);
    } catch (error) {
      // A write refused under the project (a link where the engine's files or the record go): DG1813.
      const refused = refusedWriteDiagnostic(error);
      if (!refused) throw error;
      await unpublishServer(prepared, 'preview');
      await server.close();
      return refuse('preview', [refused], commandHost, json);
    }
    if (!started.ok) {
      await server.close();
      return refuse('preview', [diagnostic('DG1704', `The preview server could not start the artifact ${id} (${started.code}): ${started.message}`, { hint: started.code === 'provision_failed' ? 'The preview state does not fit this build\'s database: adopt it with platform state reset --state preview --confirm <app>.' : 'Fix the server module, run platform build, then platform preview again.' })], commandHost, json);
    }
    emit(devEvent('preview.ready', { mode: 'preview', url: server.url, urls: [server.url], persona: await readPersona(fs), generation: 1, artifactId: id }));
    const reason = await stopped;
    await unpublishServer(prepared, 'preview');
    await server.close();
    emit(devEvent('server.stopped', { mode: 'preview', reason }));
    return envelope('preview', [], { mode: 'preview', url: server.url });
  },
};
