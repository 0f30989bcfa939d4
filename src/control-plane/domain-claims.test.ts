/**
 * Custom domains under attack (issue 29, finding 4): a builder claims a hostname they do not own. The
 * claim stays pending, and it must neither hold the hostname past its verification deadline nor keep
 * out a builder who proves ownership with their own TXT record before it. In process, with an injected
 * clock, a table resolver and an in-memory hosting provider; both builders deploy a real production.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificationName } from '../core/deploy';
import { createControlPlane, type ControlPlane } from './control-plane';
import { DEFAULT_VERIFY_WITHIN_MS, Domains, TableResolver, type DomainProvider } from './domains';
import { build, deployBody, templateFiles } from '../testing/control-plane-apps';
import { call, signIn } from '../testing/control-plane';

/** The hosting provider as an in-memory implementation of its interface, keeping what it was asked in order. */
class Provider implements DomainProvider {
  readonly calls: string[] = [];
  attached = new Set<string>();
  async attach(hostname: string) {
    this.calls.push(`attach ${hostname}`);
    this.attached.add(hostname);
  }
  async release(hostname: string) {
    this.calls.push(`release ${hostname}`);
    this.attached.delete(hostname);
  }
}

const HOUR = 3_600_000;
let work: string;
let plane: ControlPlane;
let clock = Date.UTC(2026, 7, 1);
const resolver = new TableResolver();
const provider = new Provider();
let mallory: string;
let owner: string;
let malloryApp: string;
let ownerApp: string;
const json = async (response: Promise<Response>) => (await response).json() as Promise<Record<string, any>>;
const add = (token: string, appId: string, hostname: string) => call(plane, 'POST', `/v0/apps/${appId}/domains`, { token, body: { hostname } });
const status = (token: string, hostname: string) => call(plane, 'GET', `/v0/domains/${hostname}`, { token });
const listed = async (token: string) => ((await json(call(plane, 'GET', '/v0/domains', { token }))).domains as Array<{ hostname: string }>).map((d) => d.hostname);
const visit = (hostname: string) => plane.app.request(new Request(`http://${hostname}/`));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-domain-claims-'));
  plane = await createControlPlane({ dataDir: join(work, 'data'), now: () => clock, sessionTtlMs: 365 * 24 * HOUR, domains: { resolver, provider } });
  mallory = await signIn(plane, 'mallory');
  owner = await signIn(plane, 'owner');
  const app = await build(templateFiles('endpoints'));
  const production = async (token: string) => {
    const created = await json(call(plane, 'POST', '/v0/apps', { token, body: { name: 'endpoints' } }));
    const deployed = await call(plane, 'POST', `/v0/apps/${created.app.id}/deployments`, { token, body: deployBody(app, 'production') });
    if (deployed.status !== 201) throw new Error(`deploy failed: ${deployed.status} ${await deployed.text()}`);
    return created.app.id as string;
  };
  malloryApp = await production(mallory);
  ownerApp = await production(owner);
}, 180_000);

afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a squatted custom domain', () => {
  it('is released at its verification deadline (72 hours by default), and the owner can then claim it', async () => {
    clock += HOUR;
    const squatted = await json(add(mallory, malloryApp, 'shop.example.org'));
    expect(squatted.domain).toMatchObject({ state: 'pending', verifyBy: new Date(clock + DEFAULT_VERIFY_WITHIN_MS).toISOString() });
    expect(DEFAULT_VERIFY_WITHIN_MS).toBe(72 * HOUR);
    // Before the deadline the owner is refused, told when the claim lapses.
    const refused = await json(add(owner, ownerApp, 'shop.example.org'));
    expect(refused.error).toMatchObject({ code: 'domain_unavailable', resetAt: squatted.domain.verifyBy });
    clock += DEFAULT_VERIFY_WITHIN_MS - 1;
    expect((await add(owner, ownerApp, 'shop.example.org')).status).toBe(409);
    // At the deadline the unverified claim is gone: its builder no longer has it, the provider released it, and the owner claims it.
    clock += 1;
    expect((await status(mallory, 'shop.example.org')).status).toBe(404);
    expect(await listed(mallory)).not.toContain('shop.example.org');
    const claimed = await add(owner, ownerApp, 'shop.example.org');
    expect(claimed.status).toBe(201);
    expect(((await claimed.json()) as Record<string, any>).domain).toMatchObject({ appId: ownerApp, state: 'pending' });
    expect(provider.calls.slice(-2)).toEqual(['release shop.example.org', 'attach shop.example.org']);
    expect(await listed(mallory)).not.toContain('shop.example.org');
  });

  it('does not keep out a builder who proves ownership before the deadline: their TXT record takes the hostname at once', async () => {
    clock += HOUR;
    expect((await add(mallory, malloryApp, 'store.example.org')).status).toBe(201);
    const refused = await json(add(owner, ownerApp, 'store.example.org'));
    expect(refused.error.code).toBe('domain_unavailable');
    // The refusal names the record that would prove it the owner's (theirs, not the squatter's).
    const value = /platform-verify=[0-9a-f]{32}/.exec(refused.error.message)?.[0];
    expect(value).toBeDefined();
    expect(refused.error.message).toContain(verificationName('store.example.org'));
    const squatter = (await json(status(mallory, 'store.example.org'))).domain;
    expect(value).not.toBe(squatter.verification.value);
    resolver.set(verificationName('store.example.org'), [value!]);
    const taken = await json(add(owner, ownerApp, 'store.example.org'));
    expect(taken.domain).toMatchObject({ appId: ownerApp, state: 'active', verification: { value } });
    expect((await status(mallory, 'store.example.org')).status).toBe(404);
    expect(await listed(mallory)).not.toContain('store.example.org');
    // It routes to the owner's production, not the squatter's.
    const page = await visit('store.example.org');
    expect(page.status).toBe(200);
    const own = await plane.app.request(new Request(`http://${ownerApp.replace('_', '-')}.localhost:4310/`));
    expect(await page.text()).toBe(await own.text());
  });

  it('whose owner published the squatter\'s own record stays the squatter\'s: the DNS owner chose them', async () => {
    clock += HOUR;
    const claim = (await json(add(mallory, malloryApp, 'chosen.example.org'))).domain;
    const refused = await json(add(owner, ownerApp, 'chosen.example.org'));
    const theirs = /platform-verify=[0-9a-f]{32}/.exec(refused.error.message)![0];
    // Both records published: the claim that came first is verified first.
    resolver.set(verificationName('chosen.example.org'), [claim.verification.value, theirs]);
    expect((await json(add(owner, ownerApp, 'chosen.example.org'))).error.code).toBe('domain_unavailable');
    expect((await json(status(mallory, 'chosen.example.org'))).domain.state).toBe('active');
    // An active domain is not taken by another builder's record, nor released at any deadline.
    clock += DEFAULT_VERIFY_WITHIN_MS * 2;
    expect((await json(add(owner, ownerApp, 'chosen.example.org'))).error.code).toBe('domain_unavailable');
    expect((await visit('chosen.example.org')).status).toBe(200);
  });

  it('verified before its deadline but checked only after it is verified, not released', async () => {
    clock += HOUR;
    const claim = (await json(add(owner, ownerApp, 'late.example.org'))).domain;
    resolver.set(verificationName('late.example.org'), [claim.verification.value]);
    clock += DEFAULT_VERIFY_WITHIN_MS + HOUR;
    expect((await json(add(mallory, malloryApp, 'late.example.org'))).error.code).toBe('domain_unavailable');
    expect((await json(status(owner, 'late.example.org'))).domain.state).toBe('active');
  });

  it('lapses for its builder too (no longer listed or counted), and the deadline is an option', async () => {
    clock += HOUR;
    expect((await add(mallory, malloryApp, 'quota.example.org')).status).toBe(201);
    const row = (await plane.context.records.get('SELECT * FROM domains WHERE hostname = ?', ['quota.example.org']))!;
    const shorter = new Domains(plane.context, { resolver, provider, verifyWithinMs: 60_000 });
    expect(shorter.info(row).verifyBy).toBe(new Date(Number(row.createdAt) + 60_000).toISOString());
    clock += DEFAULT_VERIFY_WITHIN_MS;
    expect(await listed(mallory)).not.toContain('quota.example.org');
    expect((await status(mallory, 'quota.example.org')).status).toBe(404);
  });
});
