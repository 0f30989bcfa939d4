/**
 * Two control plane processes over one PostgreSQL (issue 32): they share builders, sessions, apps,
 * environment values and secrets; each app is hosted by the node that made it, and either node answers
 * for it, its API and its hosted origin, by passing the request to that node. A visitor cannot make a
 * node serve an app hosted elsewhere (a made-up forwarding mark is passed on like any request), and a
 * change made through one node is seen through the other. A control plane process killed with SIGKILL
 * while it writes keeps, in PostgreSQL, every write it acknowledged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, deployBody, templateFiles, type BuiltApp } from '../testing/control-plane-apps';
import { call, eventually, hostedRequest, signIn, signInOverHttp, startPlaneProcess } from '../testing/control-plane';
import { testDatabase } from '../testing/postgres';
import { startControlPlane, type Started } from './main';
import { FORWARDED_HEADER } from './nodes';

const database = await testDatabase();

describe.skipIf('skip' in database)(`two control planes over one PostgreSQL${'skip' in database ? ` (skipped: ${database.skip})` : ''}`, () => {
  let work: string;
  let a: Started;
  let b: Started;
  let token: string;
  let hello: BuiltApp;

  const origin = (node: Started, appId: string) => `http://${appId.replace('_', '-')}--preview.localhost:${node.port}`;
  const greet = async (node: Started, appId: string, headers: Record<string, string> = {}) => {
    const answer = await hostedRequest(origin(node, appId), '/api/greet/x', { headers });
    return answer.status === 200 ? (JSON.parse(answer.text) as { message: string }).message : answer.status;
  };
  const api = async (node: Started, method: string, path: string, body?: unknown) => {
    const response = await call(node.plane, method, path, { token, ...(body === undefined ? {} : { body }) });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    if ('skip' in database) return;
    work = mkdtempSync(join(tmpdir(), 'platform-nodes-'));
    const shared = { databaseUrl: database.url, port: 0, hostingPool: { processes: 1 } };
    a = await startControlPlane({ ...shared, dataDir: join(work, 'a') });
    b = await startControlPlane({ ...shared, dataDir: join(work, 'b') });
    // The greeting also names the request headers the app saw.
    const files = templateFiles('endpoints');
    const server = files['src/server/index.ts']!.replace('async (_request, ctx) => {\n      const greeting', 'async (request, ctx) => {\n      const greeting').replace('return Response.json({ message: `${greeting}, ${ctx.params.name}!` });', 'return Response.json({ message: `${greeting}, ${ctx.params.name}!`, headers: [...request.headers.keys()] });');
    expect(server).toContain('headers: [...request.headers.keys()]');
    hello = await build({ ...files, 'src/server/index.ts': server });
  }, 120_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('share builders, sessions and keys: a builder signed in through one is signed in through the other', async () => {
    expect(a.plane.context.nodes.self).not.toBe(b.plane.context.nodes.self);
    expect(a.plane.secrets.cookieKey.equals(b.plane.secrets.cookieKey)).toBe(true);
    expect(a.plane.secrets.envKey.equals(b.plane.secrets.envKey)).toBe(true);
    token = await signIn(a.plane, 'alice');
    expect((await api(b, 'GET', '/v0/auth/whoami')).body).toMatchObject({ builder: { name: 'alice' } });
  });

  it("serve an app made on one from both: its API and its origin are answered by the node hosting it", async () => {
    const made = await api(b, 'POST', '/v0/apps', { name: 'endpoints' });
    expect(made.status).toBe(201);
    const appId = made.body.app.id as string;
    expect((await api(a, 'GET', '/v0/apps')).body.apps.map((app: { id: string }) => app.id)).toContain(appId);

    // Deployed through A: passed to B, which keeps the artifact and runs the engine.
    const deployed = await api(a, 'POST', `/v0/apps/${appId}/deployments`, deployBody(hello));
    expect(deployed.body.deployment?.state, JSON.stringify(deployed.body)).toBe('completed');
    expect(await greet(a, appId)).toBe('Hello, x!');
    expect(await greet(b, appId)).toBe('Hello, x!');
    // The nodes' own headers (the mark, the visitor's address) never reach the app.
    const seen = JSON.parse((await hostedRequest(origin(a, appId), '/api/greet/x')).text) as { headers: string[] };
    expect(seen.headers.filter((name) => name.startsWith('x-platform-'))).toEqual([]);
    expect(b.plane.hosting.enginePid(appId, 'preview')).toBeGreaterThan(0);
    expect(a.plane.hosting.enginePid(appId, 'preview')).toBeUndefined();
    expect(a.plane.context.artifacts.has(deployed.body.deployment.artifactId)).toBe(false);

    // An environment value set through A is sealed with the shared key, read through B, and restarts B's engine with it.
    expect((await api(a, 'PUT', `/v0/apps/${appId}/env/preview/GREETING`, { value: 'Hi' })).status).toBe(200);
    expect((await api(b, 'GET', `/v0/apps/${appId}/env/preview/values`)).body.values).toEqual({ GREETING: 'Hi' });
    expect(await greet(a, appId)).toBe('Hi, x!');

    // Disabled through A: B's records say so, and A's cache of them is emptied by B's notice.
    expect((await api(a, 'POST', `/v0/apps/${appId}/disable`, {})).body.app.state).toBe('disabled');
    expect(await eventually(async () => (await greet(a, appId)) === 503, 10_000)).toBe(true);
    expect(await greet(b, appId)).toBe(503);
    expect((await api(b, 'POST', `/v0/apps/${appId}/enable`, {})).body.app.state).toBe('active');
    expect(await eventually(async () => (await greet(a, appId)) === 'Hi, x!', 10_000)).toBe(true);
  });

  it('does not let a visitor make a node serve an app it does not host', async () => {
    const appId = (await api(b, 'POST', '/v0/apps', { name: 'endpoints' })).body.app.id as string;
    expect((await api(b, 'POST', `/v0/apps/${appId}/deployments`, deployBody(hello))).body.deployment?.state).toBe('completed');
    // A made-up mark: A passes the request on as any other, and never starts the app itself.
    expect(await greet(a, appId, { [FORWARDED_HEADER]: 'made-up' })).toBe('Hello, x!');
    expect(a.plane.hosting.enginePid(appId, 'preview')).toBeUndefined();
    const forged = await call(a.plane, 'GET', `/v0/apps/${appId}/env/preview/values`, { token, headers: { [FORWARDED_HEADER]: 'made-up' } });
    expect(forged.status).toBe(200);
    expect(a.plane.hosting.enginePid(appId, 'preview')).toBeUndefined();
  });

  it('does not let a mark seen in passing make a node serve another request', async () => {
    // An app on A, and one on B; what A sends B for B's app is seen by a spy standing in B's place for a moment.
    const onA = (await api(a, 'POST', '/v0/apps', { name: 'endpoints' })).body.app.id as string;
    expect((await api(a, 'POST', `/v0/apps/${onA}/deployments`, deployBody(hello))).body.deployment?.state).toBe('completed');
    const onB = (await api(b, 'POST', '/v0/apps', { name: 'endpoints' })).body.app.id as string;
    expect((await api(b, 'POST', `/v0/apps/${onB}/deployments`, deployBody(hello))).body.deployment?.state).toBe('completed');
    const seen: Record<string, string | string[] | undefined>[] = [];
    const spy = createServer((request, response) => {
      seen.push(request.headers);
      response.end('spied');
    });
    await new Promise<void>((done) => spy.listen(0, '127.0.0.1', done));
    const bName = b.plane.context.nodes.self;
    const bAddress = String((await a.plane.context.records.get('SELECT address FROM nodes WHERE name = ?', [bName]))!.address);
    try {
      await a.plane.context.records.run('UPDATE nodes SET address = ? WHERE name = ?', [`http://127.0.0.1:${(spy.address() as AddressInfo).port}`, bName]);
      expect(await eventually(async () => (await hostedRequest(origin(a, onB), '/api/greet/x')).text === 'spied', 10_000)).toBe(true);
    } finally {
      await a.plane.context.records.run('UPDATE nodes SET address = ? WHERE name = ?', [bAddress, bName]);
      spy.close();
    }
    const mark = String(seen.at(-1)![FORWARDED_HEADER]);
    expect(mark).toMatch(/^\d+\./);
    // The mark on a request for A's app, sent to B: B does not serve it itself, it passes it to A.
    expect(await greet(b, onA, { [FORWARDED_HEADER]: mark })).toBe('Hello, x!');
    expect(b.plane.hosting.enginePid(onA, 'preview')).toBeUndefined();
    expect(a.plane.hosting.enginePid(onA, 'preview')).toBeGreaterThan(0);
  });

  it('answers 503 for an app whose node does not answer, and serves it again once it does', async () => {
    const appId = (await api(b, 'POST', '/v0/apps', { name: 'endpoints' })).body.app.id as string;
    expect((await api(b, 'POST', `/v0/apps/${appId}/deployments`, deployBody(hello))).body.deployment?.state).toBe('completed');
    const port = b.port;
    await b.stop();
    const answer = await hostedRequest(origin(a, appId), '/api/greet/x');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'runtime_unhealthy' } });
    expect((await api(a, 'GET', `/v0/apps/${appId}`)).status).toBe(503);
    b = await startControlPlane({ databaseUrl: (database as { url: string }).url, port, hostingPool: { processes: 1 }, dataDir: join(work, 'b') });
    expect(await greet(a, appId)).toBe('Hello, x!');
  });
});

describe.skipIf('skip' in database)(`a control plane over PostgreSQL killed with SIGKILL${'skip' in database ? ` (skipped: ${database.skip})` : ''}`, () => {
  it('loses no acknowledged write: every environment value it answered for is there after the restart', async () => {
    const fresh = await testDatabase();
    if ('skip' in fresh) return;
    const work = mkdtempSync(join(tmpdir(), 'platform-nodes-kill-'));
    const dataDir = join(work, 'data');
    let plane = await startPlaneProcess(dataDir, ['--database-url', fresh.url]);
    try {
      const token = await signInOverHttp(plane, 'alice');
      const send = (method: string, path: string, body?: unknown) =>
        fetch(`${plane.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const appId = ((await (await send('POST', '/v0/apps', { name: 'endpoints' })).json()) as { app: { id: string } }).app.id;
      // Writers in a loop; the kill lands among them.
      const acknowledged: string[] = [];
      let stop = false;
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const name = `VALUE_${w}_${i}`;
          try {
            if ((await send('PUT', `/v0/apps/${appId}/env/dev/${name}`, { value: String(i) })).status === 200) acknowledged.push(name);
          } catch {
            return;
          }
        }
      };
      const writers = [0, 1, 2, 3].map(writer);
      await eventually(() => acknowledged.length >= 40, 30_000);
      plane.child.kill('SIGKILL');
      await plane.exited;
      stop = true;
      await Promise.all(writers);
      const before = [...acknowledged];
      plane = await startPlaneProcess(dataDir, ['--database-url', fresh.url]);
      const listed = (await (await send('GET', `/v0/apps/${appId}/env/dev`)).json()) as { variables: { name: string }[] };
      const names = new Set(listed.variables.map((variable) => variable.name));
      expect(before.length).toBeGreaterThanOrEqual(40);
      expect(before.filter((name) => !names.has(name))).toEqual([]);
    } finally {
      plane.child.kill('SIGKILL');
      await plane.exited;
      rmSync(work, { recursive: true, force: true });
    }
  }, 120_000);
});
