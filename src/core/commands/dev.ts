/**
 * `platform dev [directory] [--host] [--port] [--json]`: builds the app, serves it on loopback in
 * workerd as the control plane hosts it, watches its files and rebuilds after a quiet window, runs the
 * tests on each generation that serves, streaming `platform.dev.v0` events (NDJSON with --json, readable
 * lines without) until Ctrl-C.
 */
import { envelope } from '../diagnostics/index.ts';
import { MANIFEST_FILE } from '../manifest/index.ts';
import { DevSession } from '../dev/index.ts';
import { compileDiagnostic, devEvent, readLocalEnv, readPersona, envFilePath } from '../local/index.ts';
import { prepareTests } from '../build/index.ts';
import { prepareServer, publishServer, refuse, SERVER_OPTIONS, unpublishServer, type LocalCommandHost, type LocalServerResult } from './local-server-command.ts';
import type { CommandDefinition } from './types.ts';

export const dev: CommandDefinition<LocalServerResult> = {
  name: 'dev',
  streams: true,
  summary: 'Serve the app locally in workerd, rebuild on every save, and stream platform.dev.v0 events.',
  positionals: [{ name: 'directory', required: false, description: 'The project directory (default: the current directory).' }],
  options: { ...SERVER_OPTIONS },
  async run(invocation, commandHost: LocalCommandHost) {
    const prepared = await prepareServer('dev', invocation, commandHost);
    if (!('local' in prepared)) return prepared;
    const { fs, local, root, emit } = prepared;
    // Listened for from the start: a stop asked for while the first build runs ends the server as any other.
    const stopped = local.stopped();
    let env = prepared.env;
    const server = await local.listen({ root, mode: 'dev', host: prepared.host, port: prepared.port, env: () => env, onCall: (call) => { if (call.error || call.logs.length) emit(devEvent('server.call', { mode: 'dev', call })); } });
    const runTests = commandHost.runTests;
    const session = new DevSession({
      fs,
      compiler: await commandHost.compiler(),
      // The tests run as `platform test` runs them, on each generation that serves, once the files are quiet.
      ...(runTests ? { tests: { prepare: (compiler) => prepareTests(fs, compiler), run: (prepared) => runTests(prepared, {}) } } : {}),
      host: local,
      server,
      root,
      emit,
      onReady: async (generation) => {
        await publishServer(prepared, 'dev', server);
        emit(devEvent('preview.ready', { mode: 'dev', url: server.url, urls: [server.url], persona: await readPersona(fs), generation }));
      },
    });
    const envFile = envFilePath('dev');
    const watcher = local.watch(root, (paths) => {
      if (paths.includes(envFile)) {
        // New env values restart the runtime with the next generation; an unusable file keeps the old ones.
        void readLocalEnv(fs, 'dev').then((read) => {
          if (read.ok) {
            env = read.values;
            session.changed([envFile]);
          } else {
            // compile.diagnostic carries DG1602 to DG1605 only (tooling.md, Events): the env part of the
            // rebuild failed and the server keeps the values it had; the file's own DG5134 says why.
            const why = `${envFile} changed but is unusable; the server keeps the values it had.`;
            emit(devEvent('compile.diagnostic', { ...compileDiagnostic('DG1602', why, { file: envFile, hint: 'Fix the file (a platform.env-local.v0 document) and save: the next rebuild takes the new values.' }), generation: 0, diagnostics: [read.diagnostic] }));
          }
        });
      }
      session.changed(paths);
    });
    if (typeof watcher === 'string') {
      emit(devEvent('compile.diagnostic', { ...compileDiagnostic('DG1604', `${MANIFEST_FILE} and the sources cannot be watched for changes: ${watcher}. The dev server serves, but does not rebuild.`, { file: MANIFEST_FILE, hint: 'Restart platform dev after each change, or free file watchers (on Linux: fs.inotify.max_user_watches).' }), generation: 0, diagnostics: [] }));
    } else if ((await local.isLink?.(root, MANIFEST_FILE)) === true) {
      emit(devEvent('compile.diagnostic', { ...compileDiagnostic('DG1604', `${MANIFEST_FILE} is a symbolic link: changes are seen under the file it points to, not under the manifest, so some are missed.`, { file: MANIFEST_FILE, hint: `Make ${MANIFEST_FILE} a regular file in the project directory.` }), generation: 0, diagnostics: [] }));
    }
    await session.start();
    // Ctrl-C, or a write refused under the project (DG1813): dev never serves on as if it had written.
    const end = await Promise.race([stopped.then((reason) => ({ reason })), session.halted.then((refused) => ({ refused }))]);
    if (typeof watcher !== 'string') watcher.close();
    await unpublishServer(prepared, 'dev');
    await session.close();
    await server.close();
    if ('refused' in end) return refuse('dev', [end.refused], commandHost, invocation.options.json === true);
    emit(devEvent('server.stopped', { mode: 'dev', reason: end.reason }));
    return envelope('dev', [], { mode: 'dev', url: server.url });
  },
};
