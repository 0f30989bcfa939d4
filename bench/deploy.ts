/**
 * The control plane on loopback: deploy latency (the HTTP deploy of a built artifact, and the whole
 * `platform deploy` including its build), and a query on a hosted app under 50 concurrent connections:
 * requests per second, p50 and p99 latency, and the count of failed requests, each with its goal (issue 12:
 * more than 2,152 requests/second, p99 under 50 ms, no failures).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main';
import { startControlPlane } from '../src/control-plane/main';
import { build, compiler, deployBody, templateFiles } from '../src/testing/control-plane-apps';
import { signIn } from '../src/testing/control-plane';
import { FileCredentialStore } from '../src/adapters/node/credentials';
import { load, post } from './load';
import { median, percentile, type Row } from './stats';

const ROOT = join(import.meta.dirname, '..');
const CONNECTIONS = 50;
const LOAD_MS = 5000;

async function api(url: string, path: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, json: await response.json() };
}

export async function deployRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const work = mkdtempSync(join(tmpdir(), 'platform-bench-deploy-'));
  const started = await startControlPlane({ dataDir: join(work, 'data'), port: 0, quotas: { deploysPerHour: 10_000, deploysPerDay: 10_000 } });
  try {
    const token = await signIn(started.plane, 'bench');
    const files = templateFiles('endpoints');
    const first = await build(files);
    const second = await build({ ...files, 'src/server/index.ts': files['src/server/index.ts']!.replace("?? 'Hello'", "?? 'Howdy'") });
    const created = await api(started.url, '/v0/apps', token, { name: 'endpoints' });
    const appId = created.json.app.id as string;

    // The HTTP deploy of a built artifact: upload, verification, probe, switch. Alternating artifacts, so each is a real switch.
    const deploys: number[] = [];
    for (let i = 0; i < 8; i++) {
      const body = deployBody(i % 2 ? second : first);
      const start = performance.now();
      const answer = await api(started.url, `/v0/apps/${appId}/deployments`, token, body);
      deploys.push(performance.now() - start);
      if (answer.status !== 201) throw new Error(`deploy failed: ${JSON.stringify(answer.json)}`);
    }
    rows.push({ name: 'deploy over HTTP of a built artifact (verify, probe, switch) p50', value: median(deploys), unit: 'ms' });
    rows.push({ name: 'deploy over HTTP of a built artifact p95', value: percentile(deploys, 95), unit: 'ms' });

    // `platform deploy` end to end, its build included (the compiler warm).
    const project = join(work, 'project');
    cpSync(join(ROOT, 'templates/endpoints'), project, { recursive: true });
    writeFileSync(join(project, 'platform.project.json'), JSON.stringify({ format: 'platform.project.v0', appId }));
    await new FileCredentialStore(join(work, 'config')).write(started.url, { token, builder: { id: 'bld_bench', name: 'bench' }, createdAt: new Date().toISOString() });
    const cli: number[] = [];
    for (let i = 0; i < 4; i++) {
      const server = join(project, 'src/server/index.ts');
      writeFileSync(server, readFileSync(server, 'utf8').replace(/\?\? '[A-Za-z]+'/, `?? 'Hi${i}'`));
      const start = performance.now();
      const code = await main(['deploy', '--json'], { cwd: project, compiler, env: { PLATFORM_CONFIG_DIR: join(work, 'config'), PLATFORM_CONTROL_URL: started.url }, stdout: { write: () => true }, stderr: { write: () => true } });
      cli.push(performance.now() - start);
      if (code !== 0) throw new Error('platform deploy failed');
    }
    rows.push({ name: '`platform deploy` (build + deploy, compiler warm) p50', value: median(cli), unit: 'ms' });

    // A query on the hosted app under 50 concurrent keep-alive connections.
    const origin = new URL(created.json.app.urls.preview);
    const target = { port: Number(origin.port), host: origin.host, path: '/_platform/v0/query/visits.count', body: JSON.stringify({ input: { path: 'home' } }) };
    const warm = new Agent({ keepAlive: true });
    for (let i = 0; i < 200; i++) await post(warm, target);
    warm.destroy();
    const { latencies, failed, seconds } = await load(target, LOAD_MS / 1000, CONNECTIONS);
    rows.push({ name: `hosted query, ${CONNECTIONS} connections: requests/second (goal > 2,152)`, value: latencies.length / seconds, unit: 'ops/s' });
    rows.push({ name: `hosted query, ${CONNECTIONS} connections: latency p50`, value: median(latencies), unit: 'ms' });
    rows.push({ name: `hosted query, ${CONNECTIONS} connections: latency p99 (goal < 50 ms)`, value: percentile(latencies, 99), unit: 'ms' });
    rows.push({ name: `hosted query, ${CONNECTIONS} connections: failed requests, of ${latencies.length + failed} (goal 0)`, value: failed, unit: 'count' });
  } finally {
    await started.stop();
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}
