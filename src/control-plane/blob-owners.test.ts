/** Blobs are kept per builder: another builder naming a kept blob by its hash can neither use it nor learn that it exists. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from './control-plane';
import { build, deployBody, smallApp, withFile, type BuiltApp } from '../testing/control-plane-apps';
import { call, signIn } from '../testing/control-plane';

let work: string;
let plane: ControlPlane;
let secret: BuiltApp;

const json = async (response: Promise<Response>) => (await response).json() as Promise<Record<string, any>>;
const newApp = async (token: string) => (await json(call(plane, 'POST', '/v0/apps', { token, body: { name: 'small-app' } }))).app.id as string;
/** A deploy body carrying only the named files' blobs, leaving out the rest ("already kept"). */
function sendingOnly(app: BuiltApp, paths: string[]) {
  const body = deployBody(app);
  const keep = new Set(paths.map((p) => app.record.files[p]!.sha256));
  body.artifact.blobs = Object.fromEntries(Object.entries(body.artifact.blobs).filter(([hash]) => keep.has(hash)));
  return body;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-blobs-'));
  plane = await createControlPlane({ dataDir: join(work, 'data') });
  // Alice's app has a public file only she has: a secret in a blob.
  const base = await build(smallApp({ storage: false }));
  secret = withFile(base, 'public/secret.txt', 'alice-only: the launch code is 0000\n');
}, 120_000);

afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});

it('serves another builder neither the blob nor the fact that it is kept', async () => {
  const alice = await signIn(plane, 'alice');
  const mallory = await signIn(plane, 'mallory');
  const aliceApp = await newApp(alice);
  expect((await call(plane, 'POST', `/v0/apps/${aliceApp}/deployments`, { token: alice, body: deployBody(secret) })).status).toBe(201);

  // Mallory knows the hash (it is in the record) and sends everything but that blob.
  const malloryApp = await newApp(mallory);
  const without = Object.keys(secret.record.files).filter((p) => p !== 'public/secret.txt');
  const stolen = await json(call(plane, 'POST', `/v0/apps/${malloryApp}/deployments`, { token: mallory, body: sendingOnly(secret, without) }));
  expect(stolen.error.code).toBe('artifact_invalid');
  // The refusal is the one for a blob nobody ever sent.
  const nobody = withFile(secret, 'public/secret.txt', 'a file no one ever sent\n');
  const never = await json(call(plane, 'POST', `/v0/apps/${malloryApp}/deployments`, { token: mallory, body: sendingOnly(nobody, without) }));
  const anonymise = (message: string, app: BuiltApp) => message.replaceAll(app.record.files['public/secret.txt']!.sha256, '<hash>').replaceAll(app.id, '<id>');
  expect(anonymise(stolen.error.message, secret)).toBe(anonymise(never.error.message, nobody));
  // Nothing of Alice's reaches Mallory's origin.
  expect((await plane.app.request(new Request(`http://${malloryApp.replace('_', '-')}--preview.localhost:4310/secret.txt`))).status).toBe(404);

  // Alice may leave out what she sent before.
  const again = await newApp(alice);
  expect((await call(plane, 'POST', `/v0/apps/${again}/deployments`, { token: alice, body: sendingOnly(secret, []) })).status).toBe(201);
  // And Mallory, having sent the bytes herself, owns them too: content, not a name, is what counts.
  expect((await call(plane, 'POST', `/v0/apps/${malloryApp}/deployments`, { token: mallory, body: deployBody(secret) })).status).toBe(201);
}, 60_000);
