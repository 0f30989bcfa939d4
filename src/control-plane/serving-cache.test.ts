/**
 * The serving cache: hosted requests read no records once an app environment is known, and every
 * change that affects serving (deploy, promote, rollback, detach, disable, enable, delete, or a change
 * made to the records by any other path) is seen by the very next hosted request over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, deployBody, smallApp, templateFiles, type BuiltApp } from '../testing/control-plane-apps';
import { startControlPlane, type Started } from './main';
import { appRecords } from './app-records';
import { openRecords } from './records';
import { readServing, ServingCache } from './serving-cache';
import { call, hostedRequest, signIn } from '../testing/control-plane';

describe('ServingCache', () => {
  it('reads an app environment once, and again after any change to the records, in a transaction or not', async () => {
    const records = await openRecords({});
    let reads = 0;
    const cache = new ServingCache((appId, environment) => {
      reads++;
      return readServing(appRecords(records), appId, environment);
    });
    cache.watch(records);
    expect(await cache.lookup('app_a', 'preview')).toEqual({});
    expect(await cache.lookup('app_a', 'preview')).toEqual({});
    expect(reads).toBe(1);
    await records.run("INSERT INTO apps (id, name, ownerId, state, createdAt) VALUES ('app_a', 'a', 'bld_x', 'active', 0)");
    expect(await cache.lookup('app_a', 'preview')).toEqual({ state: 'active' });
    expect(reads).toBe(2);
    await records.transaction(async () => {
      await records.run("INSERT INTO serving (appId, environment, artifactId, deploymentId) VALUES ('app_a', 'preview', 'sha256:1', 'dep_1')");
      await records.run("UPDATE apps SET state = 'disabled' WHERE id = 'app_a'");
    });
    expect(await cache.lookup('app_a', 'preview')).toEqual({ state: 'disabled', artifactId: 'sha256:1' });
    expect(await cache.lookup('app_a', 'production')).toEqual({ state: 'disabled' });
    expect(reads).toBe(4);
    // A transaction that fails changes nothing on disk, and the cache starts again all the same.
    await expect(
      records.transaction(async () => {
        await records.run("UPDATE apps SET state = 'active' WHERE id = 'app_a'");
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await cache.lookup('app_a', 'preview')).toEqual({ state: 'disabled', artifactId: 'sha256:1' });
    // A change that fails is forgotten too.
    await expect(records.run('INSERT INTO nowhere VALUES (1)')).rejects.toThrow();
    expect(cache.size).toBe(0);
    // A read that began before a change is not kept: the next lookup reads again.
    let finish!: () => void;
    const slow = new ServingCache(async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      return { state: 'active' };
    });
    const looking = slow.lookup('app_a', 'preview');
    await new Promise((resolve) => setTimeout(resolve, 0));
    slow.clear();
    finish();
    await looking;
    expect(slow.size).toBe(0);
    await records.close();
  });

  it('stays bounded when asked about many unknown apps', async () => {
    const cache = new ServingCache(async () => ({}));
    for (let i = 0; i < 25_000; i++) await cache.lookup(`app_${i}`, 'preview');
    expect(cache.size).toBeLessThanOrEqual(10_000);
  });

  it('hands out entries that cannot be edited', async () => {
    const cache = new ServingCache(async () => ({ state: 'active', artifactId: 'sha256:1' }));
    expect(Object.isFrozen(await cache.lookup('app_a', 'preview'))).toBe(true);
  });
});

describe('hosted requests over HTTP see every change at once', { shuffle: false }, () => {
  let work: string;
  let started: Started;
  let token: string;
  let hello: BuiltApp;
  let howdy: BuiltApp;
  let withStorage: BuiltApp;
  let withoutStorage: BuiltApp;

  const origin = (appId: string, environment: 'preview' | 'production') => `http://${appId.replace('_', '-')}${environment === 'preview' ? '--preview' : ''}.localhost:${started.port}`;
  const greet = async (appId: string, environment: 'preview' | 'production') => {
    const answer = await hostedRequest(origin(appId, environment), '/api/greet/x');
    return answer.status === 200 ? (JSON.parse(answer.text) as { message: string }).message : answer.status;
  };
  const api = async (method: string, path: string, body?: unknown) => (await call(started.plane, method, path, { token, ...(body === undefined ? {} : { body }) })).json() as Promise<Record<string, any>>;
  const newApp = async (name: string) => (await api('POST', '/v0/apps', { name })).app.id as string;
  const deploy = async (appId: string, app: BuiltApp, environment = 'preview') => {
    const answer = await api('POST', `/v0/apps/${appId}/deployments`, deployBody(app, environment));
    expect(answer.deployment?.state, JSON.stringify(answer)).toBe('completed');
  };
  const query = async (appId: string, name: string) => {
    const answer = await hostedRequest(origin(appId, 'preview'), `/_platform/v0/query/${name}`, { method: 'POST', body: '{"input":{}}' });
    return JSON.parse(answer.text) as unknown;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'platform-serving-'));
    started = await startControlPlane({ dataDir: join(work, 'data'), port: 0 });
    token = await signIn(started.plane, 'alice');
    const files = templateFiles('endpoints');
    [hello, howdy, withStorage, withoutStorage] = await Promise.all([
      build(files),
      build({ ...files, 'src/server/index.ts': files['src/server/index.ts']!.replace("?? 'Hello'", "?? 'Howdy'") }),
      build(smallApp({ storage: true })),
      build(smallApp({ storage: false })),
    ]);
  }, 120_000);

  afterAll(async () => {
    await started?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('serves from memory once the app environment is known: no records are read', async () => {
    const appId = await newApp('endpoints');
    await deploy(appId, hello);
    expect(await greet(appId, 'preview')).toBe('Hello, x!');
    const records = started.plane.context.records;
    const get = records.get.bind(records);
    const all = records.all.bind(records);
    let reads = 0;
    records.get = (sql, params) => (reads++, get(sql, params));
    records.all = (sql, params) => (reads++, all(sql, params));
    try {
      for (let i = 0; i < 5; i++) expect(await greet(appId, 'preview')).toBe('Hello, x!');
    } finally {
      records.get = get;
      records.all = all;
    }
    expect(reads).toBe(0);
  });

  it('deploy, a second deploy, promote and rollback', async () => {
    const appId = await newApp('endpoints');
    // Known, with nothing deployed: that answer is cached too, and the deploy replaces it.
    expect(await greet(appId, 'preview')).toBe(404);
    await deploy(appId, hello);
    expect(await greet(appId, 'preview')).toBe('Hello, x!');
    await deploy(appId, howdy);
    expect(await greet(appId, 'preview')).toBe('Howdy, x!');
    expect(await greet(appId, 'production')).toBe(404);
    expect((await api('POST', `/v0/apps/${appId}/promote`, {})).deployment.artifactId).toBe(howdy.id);
    expect(await greet(appId, 'production')).toBe('Howdy, x!');
    await deploy(appId, hello, 'production');
    expect(await greet(appId, 'production')).toBe('Hello, x!');
    expect((await api('POST', `/v0/apps/${appId}/rollback`, { artifactId: howdy.id })).deployment.artifactId).toBe(howdy.id);
    expect(await greet(appId, 'production')).toBe('Howdy, x!');
    expect(await greet(appId, 'preview')).toBe('Howdy, x!');
  });

  it('storage detached and attached again', async () => {
    const appId = await newApp('small-app');
    await deploy(appId, withStorage);
    const put = await hostedRequest(origin(appId, 'preview'), '/_platform/v0/mutation/objects.put', { method: 'POST', body: JSON.stringify({ input: { key: 'notes/a' } }) });
    expect(put.status).toBe(200);
    expect(await query(appId, 'objects.list')).toEqual({ result: ['notes/a'] });
    await deploy(appId, withoutStorage);
    expect((await api('GET', `/v0/apps/${appId}`)).app.storage).toEqual({ preview: 'detached' });
    expect(await query(appId, 'objects.list')).toEqual({ result: [] });
    await deploy(appId, withStorage);
    expect(await query(appId, 'objects.list')).toEqual({ result: ['notes/a'] });
  });

  it('disable, enable, a change made to the records directly, and delete', async () => {
    const appId = await newApp('endpoints');
    await deploy(appId, hello);
    await api('POST', `/v0/apps/${appId}/promote`, {});
    expect(await greet(appId, 'preview')).toBe('Hello, x!');
    expect(await greet(appId, 'production')).toBe('Hello, x!');
    expect((await api('POST', `/v0/apps/${appId}/disable`, {})).app.state).toBe('disabled');
    expect(await greet(appId, 'preview')).toBe(503);
    expect(await greet(appId, 'production')).toBe(503);
    expect((await api('POST', `/v0/apps/${appId}/enable`, {})).app.state).toBe('active');
    expect(await greet(appId, 'preview')).toBe('Hello, x!');
    expect(await greet(appId, 'production')).toBe('Hello, x!');
    // Not through a route: the cache empties on any change to the records.
    await started.plane.context.records.run("UPDATE apps SET state = 'disabled' WHERE id = ?", [appId]);
    expect(await greet(appId, 'production')).toBe(503);
    await started.plane.context.records.run("UPDATE apps SET state = 'active' WHERE id = ?", [appId]);
    expect(await greet(appId, 'production')).toBe('Hello, x!');
    expect((await api('POST', `/v0/apps/${appId}/delete`, { confirm: 'endpoints' })).app.state).toBe('deleted');
    expect(await greet(appId, 'preview')).toBe(404);
    expect(await greet(appId, 'production')).toBe(404);
  });
});
