/**
 * A credential goes only to the origin it is bound to (docs/decisions.md, Command line): through the
 * CLI's own entry (`main`), against a real control plane in process at the configured origin. Every
 * request the CLI makes is recorded; one for another origin is what an attacker's listener would get.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../adapters/node/credentials';
import { runInProcess } from '../../testing/cli';
import { createControlPlane, type ControlPlane } from '../../control-plane/control-plane';
import { compiler } from '../../testing/control-plane-apps';
import { BASE, call, signIn } from '../../testing/control-plane';
import { CONTROL_PROTOCOL } from '../deploy';

let work: string;
let plane: ControlPlane;
let serviceToken: string;
let session: string;
/** Every request the CLI sent, with its Authorization header. */
const sent: Array<{ origin: string; authorization: string | null }> = [];
const elsewhere = () => sent.filter((r) => r.origin !== BASE);

/** The network as the CLI meets it: the control plane at BASE, and at any other origin someone who answers as one would. */
async function network(request: Request): Promise<Response> {
  const origin = new URL(request.url).origin;
  sent.push({ origin, authorization: request.headers.get('authorization') });
  if (origin === BASE) return plane.app.request(request);
  return Response.json({ protocol: CONTROL_PROTOCOL, builder: { id: 'bld_evil', name: 'evil' }, credential: { kind: 'service-token' } });
}

async function cli(args: string[], env: Record<string, string>): Promise<{ ok: boolean; result?: any; diagnostics: Array<{ code: string; message: string; hint?: string }> }> {
  const { stdout } = await runInProcess([...args, '--json'], { cwd: work, compiler, env: { PLATFORM_CONFIG_DIR: join(work, 'none'), ...env }, fetch: network });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-bound-'));
  plane = await createControlPlane({ dataDir: join(work, 'plane'), devicePollMs: 5 });
  session = await signIn(plane, 'ada');
  await new FileCredentialStore(join(work, 'ada')).write(BASE, { token: session, builder: { id: 'bld_x', name: 'ada' }, createdAt: new Date().toISOString() });
  const created = (await (await call(plane, 'POST', '/v0/tokens', { token: session, body: { name: 'ci' } })).json()) as { secret: string };
  serviceToken = created.secret;
}, 60_000);

afterAll(async () => {
  await plane?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a credential is sent only to its own origin', () => {
  it.each([
    ['http://evil.localhost:4310'],
    ['http://127.0.0.1:4310'],
    ['https://control.example.com'],
  ])('with PLATFORM_SERVICE_TOKEN for PLATFORM_CONTROL_URL, --control-url %s is DG5002 and nothing is sent', async (other) => {
    sent.length = 0;
    for (const args of [['auth', 'status'], ['deployments'], ['link'], ['deploy', '--environment', 'preview']]) {
      const run = await cli([...args, '--control-url', other], { PLATFORM_SERVICE_TOKEN: serviceToken, PLATFORM_CONTROL_URL: BASE });
      expect(run.diagnostics.map((d) => d.code), args.join(' ')).toEqual(['DG5002']);
      expect(run.diagnostics[0]!.message).toContain(`configured for ${BASE}`);
      expect(JSON.stringify(run)).not.toContain(serviceToken);
    }
    expect(sent).toEqual([]);
  });

  it('without PLATFORM_CONTROL_URL the token is for the default control plane, and goes nowhere else', async () => {
    sent.length = 0;
    const run = await cli(['auth', 'status', '--control-url', 'https://control.example.com'], { PLATFORM_SERVICE_TOKEN: serviceToken });
    expect(run.diagnostics).toMatchObject([{ code: 'DG5002', message: expect.stringContaining('the default control URL') }]);
    expect(sent).toEqual([]);
    // The default is BASE: the token works there, named or not.
    expect((await cli(['auth', 'status'], { PLATFORM_SERVICE_TOKEN: serviceToken })).result).toMatchObject({ builder: { name: 'ada' }, credential: 'service-token' });
    expect((await cli(['auth', 'status', '--control-url', BASE], { PLATFORM_SERVICE_TOKEN: serviceToken })).result).toMatchObject({ controlUrl: BASE, credential: 'service-token' });
    expect(elsewhere()).toEqual([]);
    expect(sent.every((r) => r.authorization === `Bearer ${serviceToken}`)).toBe(true);
  });

  it('a PLATFORM_CONTROL_URL that is not usable is DG5001 even when --control-url is given', async () => {
    sent.length = 0;
    const run = await cli(['auth', 'status', '--control-url', BASE], { PLATFORM_SERVICE_TOKEN: serviceToken, PLATFORM_CONTROL_URL: 'http://control.example.com' });
    expect(run.diagnostics).toMatchObject([{ code: 'DG5001', message: expect.stringContaining('PLATFORM_CONTROL_URL') }]);
    expect(sent).toEqual([]);
  });

  it('a stored session goes only to the origin it was stored for', async () => {
    sent.length = 0;
    const config = { PLATFORM_CONFIG_DIR: join(work, 'ada') };
    expect((await cli(['auth', 'status', '--control-url', 'http://evil.localhost:4310'], config)).diagnostics.map((d) => d.code)).toEqual(['DG5002']);
    expect(sent).toEqual([]);
    expect((await cli(['auth', 'status', '--control-url', BASE], config)).result).toMatchObject({ builder: { name: 'ada' }, credential: 'session' });
    expect(sent).toEqual([{ origin: BASE, authorization: `Bearer ${session}` }]);
  });
});
