/**
 * Custom domains through the real CLI against a control plane listening on loopback: `platform domains
 * add|ls|status|remove`, verification through the control plane's resolver (a table the test publishes
 * records in), routing of a verified hostname to the app's production over HTTP, the hosting provider's
 * failures and cleanup, and every DG519x code on its condition.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../adapters/node/credentials';
import { CONTROL_PROTOCOL } from '../core/deploy';
import { TableResolver, type DomainProvider } from './domains';
import { compiler } from '../testing/control-plane-apps';
import { startControlPlane, type Started } from './main';
import { hostedRequest, platformOverLoopback, signIn } from '../testing/control-plane';

const ROOT = join(import.meta.dirname, '../..');
let work: string;
let started: Started;
let project: string;
let fake: Server;
let fakeUrl: string;
const resolver = new TableResolver();

/** The hosting provider as an in-memory implementation of its interface: attaches and releases, or fails when told to. */
class Provider implements DomainProvider {
  attached = new Set<string>();
  failAttach = false;
  failRelease = false;
  async attach(hostname: string) {
    if (this.failAttach) throw new Error('the provider is down');
    this.attached.add(hostname);
  }
  async release(hostname: string) {
    if (this.failRelease) throw new Error('certificate revocation timed out');
    this.attached.delete(hostname);
  }
}
const provider = new Provider();

const platform = (args: string[], options: { who?: string; controlUrl?: string } = {}) =>
  platformOverLoopback(args, { cwd: project, work: join(work, options.who ?? 'alice'), controlUrl: options.controlUrl ?? started.url, compiler });
const codes = (run: { envelope: { diagnostics: Array<{ code: string }> } }) => run.envelope.diagnostics.map((d) => d.code);
const visit = (hostname: string, path = '/') => hostedRequest(`http://${hostname}:${started.port}`, path);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-domains-'));
  project = join(work, 'shop');
  cpSync(join(ROOT, 'templates/endpoints'), project, { recursive: true });
  started = await startControlPlane({ dataDir: join(work, 'data'), port: 0, devicePollMs: 5, domains: { resolver, provider, perBuilder: 3 } });
  for (const who of ['alice', 'mallory']) {
    const token = await signIn(started.plane, who);
    await new FileCredentialStore(join(work, who, 'config')).write(started.url, { token, builder: { id: 'bld_x', name: who }, createdAt: new Date().toISOString() });
  }
  // Something that is not a control plane: JSON without the protocol, or a refusal with an error code.
  fake = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/v0/domains/refused.example.com')) {
      res.statusCode = 400;
      return res.end(JSON.stringify({ protocol: CONTROL_PROTOCOL, error: { code: 'invalid_request', message: 'no' } }));
    }
    res.end(JSON.stringify({ domains: 'all of them' }));
  });
  await new Promise<void>((done) => fake.listen(0, '127.0.0.1', done));
  fakeUrl = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
  await new FileCredentialStore(join(work, 'alice', 'config')).write(fakeUrl, { token: `xbs_${'A'.repeat(43)}`, builder: { id: 'bld_x', name: 'alice' }, createdAt: new Date().toISOString() });
}, 120_000);

afterAll(async () => {
  await started?.stop();
  await new Promise((done) => fake?.close(done));
  rmSync(work, { recursive: true, force: true });
});

describe('platform domains', { shuffle: false }, () => {
  it('refuses a bad invocation before calling anything (DG5190)', async () => {
    for (const args of [
      ['domains'],
      ['domains', 'attach', 'shop.example.com'],
      ['domains', 'add'],
      ['domains', 'add', 'https://shop.example.com'],
      ['domains', 'add', 'shop.example.com:8443'],
      ['domains', 'add', 'shop.example.com/path'],
      ['domains', 'add', '*.example.com'],
      ['domains', 'add', 'shöp.example.com'],
      ['domains', 'add', 'shop'],
      ['domains', 'add', 'shop-.example.com'],
      ['domains', 'add', '10.0.0.1'],
      ['domains', 'ls', 'shop.example.com'],
      ['domains', 'remove', 'shop.example.com', '--app', 'shop'],
    ]) {
      const run = await platform(args);
      expect(codes(run), args.join(' ')).toEqual(['DG5190']);
      expect(run.code).not.toBe(0);
    }
  });

  it('needs an app with a production deployment (DG5195) and a known app (DG5193)', async () => {
    expect(codes(await platform(['domains', 'add', 'shop.example.com']))).toEqual(['DG5190']); // no identity yet
    const deployed = await platform(['deploy', '.']);
    expect(deployed.envelope.diagnostics).toEqual([]);
    expect(codes(await platform(['domains', 'add', 'shop.example.com']))).toEqual(['DG5195']);
    expect(codes(await platform(['domains', 'add', 'shop.example.com', '--app', 'no-such-app']))).toEqual(['DG5193']);
    const production = await platform(['deploy', '.', '--environment', 'production']);
    expect(production.envelope.diagnostics).toEqual([]);
  }, 240_000);

  let appId: string;
  it('adds a domain pending its TXT record; it does not route until verified', async () => {
    const added = await platform(['domains', 'add', 'Shop.Example.COM']);
    expect(added.envelope.diagnostics).toEqual([]);
    const domain = added.envelope.result.domain;
    appId = domain.appId;
    expect(domain).toMatchObject({ hostname: 'shop.example.com', state: 'pending', verification: { type: 'TXT', name: '_platform-challenge.shop.example.com', value: expect.stringMatching(/^platform-verify=[0-9a-f]{32}$/) } });
    expect(provider.attached.has('shop.example.com')).toBe(true);
    expect((await visit('shop.example.com')).status).toBe(404);
    // Adding it again to the same app is the same domain.
    expect((await platform(['domains', 'add', 'shop.example.com'])).envelope.result.domain.verification).toEqual(domain.verification);
    // A wrong value, then the resolver failing, leave it pending.
    resolver.set(domain.verification.name, ['platform-verify=0000']);
    expect((await platform(['domains', 'status', 'shop.example.com'])).envelope.result.domain.state).toBe('pending');
    resolver.failing = true;
    expect((await platform(['domains', 'status', 'shop.example.com'])).envelope.result.domain.state).toBe('pending');
    resolver.failing = false;
    expect((await visit('shop.example.com')).status).toBe(404);

    resolver.set(domain.verification.name, ['unrelated', domain.verification.value]);
    const status = await platform(['domains', 'status', 'shop.example.com']);
    expect(status.envelope.result.domain).toMatchObject({ state: 'active', verifiedAt: expect.any(String) });
    const page = await visit('shop.example.com');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<');
    // The same page production serves at its own origin.
    const own = await hostedRequest(`http://${appId.replace('_', '-')}.localhost:${started.port}`, '/');
    expect(page.text).toBe(own.text);
    const listed = await platform(['domains', 'ls']);
    expect(listed.envelope.result.domains.map((d: { hostname: string; state: string }) => [d.hostname, d.state])).toEqual([['shop.example.com', 'active']]);
    expect((await platform(['domains', 'ls', '--app', appId])).envelope.result.domains).toHaveLength(1);
  }, 120_000);

  it('refuses reserved, taken and over-quota hostnames (DG5194), and hides one builder\'s domains from another (DG5193)', async () => {
    expect(codes(await platform(['domains', 'add', 'shop.localhost']))).toEqual(['DG5194']);
    expect(codes(await platform(['domains', 'add', 'www.example']))).toEqual(['DG5194']);
    // Mallory deploys her own app to production and tries to take alice's hostname, read it or remove it.
    const mallory = join(work, 'mallory-app');
    cpSync(join(ROOT, 'templates/endpoints'), mallory, { recursive: true });
    const asMallory = (args: string[]) => platformOverLoopback(args, { cwd: mallory, work: join(work, 'mallory'), controlUrl: started.url, compiler });
    expect((await asMallory(['deploy', '.', '--environment', 'production'])).envelope.diagnostics).toEqual([]);
    expect(codes(await asMallory(['domains', 'add', 'shop.example.com']))).toEqual(['DG5194']);
    expect(codes(await asMallory(['domains', 'status', 'shop.example.com']))).toEqual(['DG5193']);
    expect(codes(await asMallory(['domains', 'remove', 'shop.example.com']))).toEqual(['DG5193']);
    expect(codes(await asMallory(['domains', 'add', 'x.example.com', '--app', appId]))).toEqual(['DG5193']);
    expect((await asMallory(['domains', 'ls'])).envelope.result.domains).toEqual([]);
    expect((await visit('shop.example.com')).status).toBe(200);
    // Alice's quota here is 3 domains.
    expect((await platform(['domains', 'add', 'a.example.net'])).envelope.result.domain.state).toBe('pending');
    expect((await platform(['domains', 'add', 'b.example.net'])).envelope.result.domain.state).toBe('pending');
    expect(codes(await platform(['domains', 'add', 'c.example.net']))).toEqual(['DG5194']);
    expect(codes(await platform(['domains', 'status', 'unknown.example.org']))).toEqual(['DG5193']);
  }, 240_000);

  it('reports the hosting provider refusing an attachment (DG5196): nothing is attached', async () => {
    expect((await platform(['domains', 'remove', 'b.example.net'])).envelope.result).toEqual({ action: 'remove', removed: 'b.example.net' });
    provider.failAttach = true;
    expect(codes(await platform(['domains', 'add', 'c.example.net']))).toEqual(['DG5196']);
    provider.failAttach = false;
    expect(codes(await platform(['domains', 'status', 'c.example.net']))).toEqual(['DG5193']);
  });

  it('detaches routing at once on remove; a cleanup left pending is DG5197 until remove is repeated', async () => {
    provider.failRelease = true;
    expect(codes(await platform(['domains', 'remove', 'shop.example.com']))).toEqual(['DG5197']);
    expect((await visit('shop.example.com')).status).toBe(404);
    expect((await platform(['domains', 'status', 'shop.example.com'])).envelope.result.domain.state).toBe('cleanup_pending');
    expect(codes(await platform(['domains', 'add', 'shop.example.com']))).toEqual(['DG5194']);
    provider.failRelease = false;
    expect((await platform(['domains', 'remove', 'shop.example.com'])).envelope.ok).toBe(true);
    expect(provider.attached.has('shop.example.com')).toBe(false);
    expect(codes(await platform(['domains', 'status', 'shop.example.com']))).toEqual(['DG5193']);
    expect((await platform(['domains', 'ls'])).envelope.result.domains.map((d: { hostname: string }) => d.hostname)).toEqual(['a.example.net']);
  });

  it('does not trust an answer that is not the control plane\'s (DG5192), maps other refusals (DG5191) and an unreachable plane (DG5199)', async () => {
    expect(codes(await platform(['domains', 'ls'], { controlUrl: fakeUrl }))).toEqual(['DG5192']);
    expect(codes(await platform(['domains', 'status', 'refused.example.com'], { controlUrl: fakeUrl }))).toEqual(['DG5191']);
    const closed = fakeUrl.replace(/:\d+$/, ':1');
    await new FileCredentialStore(join(work, 'alice', 'config')).write(closed, { token: `xbs_${'A'.repeat(43)}`, builder: { id: 'bld_x', name: 'alice' }, createdAt: new Date().toISOString() });
    expect(codes(await platform(['domains', 'ls'], { controlUrl: closed }))).toEqual(['DG5199']);
  });
});
