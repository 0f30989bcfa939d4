/** Sign-in under attack: device-code floods, a stranger's wrong secrets, a forged Host, and credentials past their lifetime (server and CLI). */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../adapters/node/credentials';
import { runInProcess } from '../testing/cli';
import { EXPIRED_DEVICE_GRACE_MS, WRONG_SECRETS_PER_CODE } from './auth-routes';
import { MAX_PENDING_DEVICES, PENDING_DEVICES_PER_SOURCE } from './device-codes';
import { compiler } from '../testing/control-plane-apps';
import { createControlPlane, SERVICE_TOKEN_TTL_MS, SESSION_TTL_MS, type ControlPlane } from './control-plane';
import { startControlPlane } from './main';
import { clientSource } from './rate-limit';
import { approve, approveOverHttp, BASE, call, platformOverLoopback, signIn } from '../testing/control-plane';

let work: string;
let plane: ControlPlane;
let clock = Date.UTC(2026, 5, 1);
const json = async (response: Promise<Response>) => (await response).json() as Promise<Record<string, any>>;
const startDevice = () => json(call(plane, 'POST', '/v0/auth/device', { body: {} }));
const poll = (deviceCode: string) => json(call(plane, 'POST', '/v0/auth/device/token', { body: { deviceCode } }));
const poll2 = (target: ControlPlane, deviceCode: string) => json(call(target, 'POST', '/v0/auth/device/token', { body: { deviceCode } }));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-device-'));
  plane = await createControlPlane({ dataDir: join(work, 'data'), now: () => clock, deviceRequestsPerMinute: 5, deviceTtlMs: 60_000 });
});

afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});

describe('device codes', () => {
  it('are rate limited per client address, saying when the next is allowed', async () => {
    clock += 120_000;
    for (let i = 0; i < 5; i++) expect((await call(plane, 'POST', '/v0/auth/device', { body: {} })).status).toBe(200);
    const refused = await call(plane, 'POST', '/v0/auth/device', { body: {} });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    const body = (await refused.json()) as { error: { code: string; resetAt: string } };
    expect(body.error).toMatchObject({ code: 'rate_limited', resetAt: new Date(clock + 60_000).toISOString() });
    clock += 60_001;
    expect((await call(plane, 'POST', '/v0/auth/device', { body: {} })).status).toBe(200);
  });

  it('an approved code polled twice at once becomes one session', async () => {
    clock += 120_000;
    const started = await startDevice();
    expect((await approve(plane, started.userCode, 'twice')).status).toBe(200);
    const [one, two] = await Promise.all([poll(started.deviceCode), poll(started.deviceCode)]);
    expect([one.token, two.token].filter((token) => typeof token === 'string')).toHaveLength(1);
    expect([one, two].map((answer) => answer.error?.code).filter(Boolean)).toEqual(['invalid_request']);
  });

  it('are rate limited per address over real HTTP too', async () => {
    const started = await startControlPlane({ dataDir: join(work, 'loopback'), port: 0, deviceRequestsPerMinute: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${started.url}/v0/auth/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await started.stop();
    }
  });

  it('are purged once expired (after a grace in which a polling terminal learns it), and their number is bounded', async () => {
    clock += 120_000;
    const old = await startDevice();
    await startDevice();
    clock += 60_001;
    expect((await poll(old.deviceCode)).error.code).toBe('expired_token');
    clock += EXPIRED_DEVICE_GRACE_MS;
    const before = Number((await plane.context.records.get('SELECT count(*) AS n FROM devices'))!.n);
    await startDevice();
    expect(Number((await plane.context.records.get('SELECT count(*) AS n FROM devices'))!.n)).toBe(1);
    expect(before).toBeGreaterThan(1);
    expect((await poll(old.deviceCode)).error.code).toBe('invalid_request');
    expect(MAX_PENDING_DEVICES).toBeLessThanOrEqual(1000);
  });
});

/** A device-code request to `target` in process, as if its socket came from `address`. */
async function startFrom(target: ControlPlane, address: string): Promise<{ status: number; body: Record<string, any> }> {
  const request = new Request(`${BASE}/v0/auth/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const response = await target.app.request(request, undefined, { incoming: { socket: { remoteAddress: address } } } as never);
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A device-code request over real HTTP on loopback, its socket bound to `localAddress` (any 127.x.y.z). */
function startOverHttp(url: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/v0/auth/device`, { method: 'POST', localAddress, agent: false, headers: { 'content-type': 'application/json' } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end('{}');
  });
}

const pendingBySource = async (target: ControlPlane, now: number) =>
  (await target.context.records.all("SELECT source, count(*) AS n FROM devices WHERE state = 'pending' AND expiresAt >= ? GROUP BY source", [now])).map((row) => Number(row.n));

describe('the cap on waiting device codes (issue 29: a few addresses filled it and locked every sign-in out)', () => {
  let capped: ControlPlane;
  let now = Date.UTC(2026, 6, 1);
  beforeAll(async () => {
    capped = await createControlPlane({ dataDir: join(work, 'capped'), now: () => now });
  });
  afterAll(() => capped.close());

  it('keys a source by network: an IPv4 /24, an IPv6 /64, an IPv4-mapped address as its IPv4', () => {
    expect(clientSource('203.0.113.9')).toBe(clientSource('203.0.113.250'));
    expect(clientSource('203.0.113.9')).not.toBe(clientSource('203.0.114.9'));
    expect(clientSource('::ffff:203.0.113.9')).toBe(clientSource('203.0.113.77'));
    expect(clientSource('2001:db8:1:2::1')).toBe(clientSource('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'));
    expect(clientSource('2001:db8:1:2::1')).not.toBe(clientSource('2001:db8:1:3::1'));
    expect(clientSource('fe80::1%eth0')).toBe(clientSource('fe80::2'));
    expect(clientSource('local')).toBe('local');
  });

  it('21 addresses asking as fast as allowed leave a new source able to start a sign-in', async () => {
    now += 3_600_000;
    for (let i = 1; i <= 21; i++) for (let n = 0; n < 10; n++) await startFrom(capped, `198.51.100.${i}`);
    const mine = await startFrom(capped, '192.0.2.10');
    expect(mine.status).toBe(200);
    expect(mine.body.userCode).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    // One network holds at most its share, however many of its addresses ask.
    expect(Math.max(...(await pendingBySource(capped, now)))).toBeLessThanOrEqual(PENDING_DEVICES_PER_SOURCE);
  });

  it('250 networks filling the whole cap still leave a new source able to start one; the evicted codes are told they expired', async () => {
    now += 3_600_000;
    const first = (await startFrom(capped, '10.0.0.1')).body.deviceCode as string;
    for (let i = 0; i < 250; i++) for (let n = 0; n < PENDING_DEVICES_PER_SOURCE; n++) await startFrom(capped, `10.${i >> 8}.${i & 255}.1`);
    const pending = (await pendingBySource(capped, now)).reduce((a, b) => a + b, 0);
    expect(pending).toBe(MAX_PENDING_DEVICES);
    for (const address of ['192.0.2.20', '2001:db8:5::1', '::ffff:172.16.9.9']) {
      const started = await startFrom(capped, address);
      expect(started.status, address).toBe(200);
      // A person's sign-in from a source holding only it is not the one evicted by the next stranger.
      await startFrom(capped, `10.200.${address.length}.7`);
      expect((await poll2(capped, started.body.deviceCode)).error.code, address).toBe('authorization_pending');
    }
    expect((await pendingBySource(capped, now)).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(MAX_PENDING_DEVICES);
    // The flood's oldest code was evicted: its terminal learns it expired (DG5005) and asks again.
    expect((await poll2(capped, first)).error.code).toBe('expired_token');
  }, 120_000);

  it('refuses a source past its share until one of its codes is used or expires', async () => {
    now += 3_600_000;
    const codes: string[] = [];
    for (let n = 0; n < PENDING_DEVICES_PER_SOURCE; n++) codes.push((await startFrom(capped, `2001:db8:77:1::${n + 1}`)).body.deviceCode as string);
    const refused = await startFrom(capped, '2001:db8:77:1::99');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', resetAt: new Date(now + 600_000).toISOString() });
    // Another /64 is another source.
    expect((await startFrom(capped, '2001:db8:77:2::1')).status).toBe(200);
    // Codes expire by their lifetime (10 minutes), and the share is free again.
    now += 600_001;
    expect((await startFrom(capped, '2001:db8:77:1::99')).status).toBe(200);
  });
});

describe('the cap over real HTTP from many loopback addresses', () => {
  it('21, then 250 more, source addresses flooding leave `platform auth login` from 127.0.0.1 able to sign in', async () => {
    const started = await startControlPlane({ dataDir: join(work, 'flooded'), port: 0, devicePollMs: 5 });
    try {
      const login = async (who: string) => {
        let approval: Promise<Response> | undefined;
        const run = await platformOverLoopback(['auth', 'login'], {
          cwd: work,
          work: join(work, `flooded-${who}`),
          controlUrl: started.url,
          compiler,
          onStderr(text) {
            const code = /code ([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
            if (code && !approval) approval = approveOverHttp(started.url, code, who, started.plane.secrets.operatorSecret);
          },
        });
        expect(run.envelope.diagnostics).toEqual([]);
        expect((await approval)?.status).toBe(200);
        return run.envelope;
      };
      // As filed: 21 source addresses, ten requests each.
      for (let i = 1; i <= 21; i++) await Promise.all(Array.from({ length: 10 }, () => startOverHttp(started.url, `127.0.${i}.1`)));
      expect((await login('first')).result).toMatchObject({ builder: { name: 'first' } });
      // 250 more networks, four codes each: with the first 21's, the whole cap is full.
      for (let i = 0; i < 250; i++) await Promise.all(Array.from({ length: 4 }, () => startOverHttp(started.url, `127.1.${i}.1`)));
      expect((await pendingBySource(started.plane, Date.now())).reduce((a, b) => a + b, 0)).toBe(MAX_PENDING_DEVICES);
      expect((await login('second')).result).toMatchObject({ builder: { name: 'second' } });
    } finally {
      await started.stop();
    }
  }, 180_000);
});

describe('the approval page', () => {
  it('cannot be locked by a stranger: wrong secrets spend only the code they were given for', async () => {
    clock += 120_000;
    // A stranger asks for codes of their own and guesses the secret on each, as often as allowed.
    for (let round = 0; round < 4; round++) {
      const theirs = await startDevice();
      for (let i = 0; i < WRONG_SECRETS_PER_CODE + 2; i++) await approve(plane, theirs.userCode, 'mallory', { secret: `guess-${round}-${i}` });
      expect((await poll(theirs.deviceCode)).error.code).toBe('access_denied');
    }
    // The operator approves their own code with the right secret at once.
    const mine = await startDevice();
    expect((await approve(plane, mine.userCode, 'operator')).status).toBe(200);
    expect((await poll(mine.deviceCode)).token).toMatch(/^xbs_/);
  });

  it('refuses a code for good after too many wrong secrets, even with the right one afterwards', async () => {
    clock += 120_000;
    const code = await startDevice();
    for (let i = 1; i < WRONG_SECRETS_PER_CODE; i++) expect((await approve(plane, code.userCode, 'eve', { secret: 'wrong' })).status).toBe(403);
    expect((await approve(plane, code.userCode, 'eve', { secret: 'wrong' })).status).toBe(429);
    expect((await approve(plane, code.userCode, 'eve')).status).toBe(404);
    expect((await poll(code.deviceCode)).error.code).toBe('access_denied');
  });

  it('takes its expected origin from the configured public origin, never from Host', async () => {
    clock += 120_000;
    const forged = await json(Promise.resolve(plane.app.request(new Request('http://evil.example/v0/auth/device', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))));
    expect(forged.verificationUri).toBe(`${BASE}/device`);
    // A page on evil.example posting to the control plane with Host: evil.example is not "same origin".
    const form = new URLSearchParams({ code: forged.userCode, builder: 'mallory', secret: plane.secrets.operatorSecret, decision: 'approve' });
    const posted = await plane.app.request(new Request('http://evil.example/device', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' }, body: form.toString() }));
    expect(posted.status).toBe(403);
    expect((await approve(plane, forged.userCode, 'operator', { headers: { origin: BASE } })).status).toBe(200);
  });
});

describe('credentials expire', () => {
  it('a session after its lifetime, answered credential_expired', async () => {
    clock += 120_000;
    const session = await signIn(plane, 'short');
    expect((await call(plane, 'GET', '/v0/auth/whoami', { token: session })).status).toBe(200);
    clock += SESSION_TTL_MS;
    const expired = await json(call(plane, 'GET', '/v0/auth/whoami', { token: session }));
    expect(expired.error).toMatchObject({ code: 'credential_expired', credential: 'session' });
    expect((await call(plane, 'GET', '/v0/apps', { token: session })).status).toBe(401);
  });

  it('a service token after its lifetime, which its listing shows', async () => {
    clock += 120_000;
    const session = await signIn(plane, 'automation');
    const created = await json(call(plane, 'POST', '/v0/tokens', { token: session, body: { name: 'ci' } }));
    expect(created.token.expiresAt).toBe(new Date(clock + SERVICE_TOKEN_TTL_MS).toISOString());
    expect((await call(plane, 'GET', '/v0/apps', { token: created.secret })).status).toBe(200);
    clock += SERVICE_TOKEN_TTL_MS;
    expect((await json(call(plane, 'GET', '/v0/apps', { token: created.secret }))).error).toMatchObject({ code: 'credential_expired', credential: 'service-token' });
  });

  it('and the CLI answers DG5002 for an expired session (stored, or refused by the control plane) and an expired service token', async () => {
    const cli = async (args: string[], env: Record<string, string>) => {
      const { stdout } = await runInProcess([...args, '--json'], { cwd: work, env: { PLATFORM_CONTROL_URL: BASE, ...env }, fetch: (request: Request) => Promise.resolve(plane.app.request(request)) });
      return JSON.parse(stdout) as { ok: boolean; diagnostics: Array<{ code: string; message: string; hint?: string }> };
    };
    clock += 120_000;
    // Stored with its end, already past (the CLI's clock is the real one): refused before anything is sent.
    const config = join(work, 'config-stored');
    await new FileCredentialStore(config).write(BASE, { token: await signIn(plane, 'stored'), builder: { id: 'bld_x', name: 'stored' }, createdAt: '2020-01-01T00:00:00.000Z', expiresAt: '2020-01-31T00:00:00.000Z' });
    const stored = await cli(['auth', 'status'], { PLATFORM_CONFIG_DIR: config });
    expect(stored.diagnostics.map((d) => d.code)).toEqual(['DG5002']);
    expect(stored.diagnostics[0]!.message).toContain('expired');
    // Stored without its end (an older file); the control plane says it expired.
    const older = join(work, 'config-older');
    await new FileCredentialStore(older).write(BASE, { token: await signIn(plane, 'older'), builder: { id: 'bld_x', name: 'older' }, createdAt: new Date().toISOString() });
    clock += SESSION_TTL_MS;
    const refused = await cli(['auth', 'status'], { PLATFORM_CONFIG_DIR: older });
    expect(refused.diagnostics.map((d) => d.code)).toEqual(['DG5002']);
    expect(refused.diagnostics[0]!.hint).toContain('auth login');
    // A service token past its lifetime.
    const session = await signIn(plane, 'robot');
    const token = (await json(call(plane, 'POST', '/v0/tokens', { token: session, body: { name: 'ci' } }))).secret as string;
    clock += SERVICE_TOKEN_TTL_MS;
    const service = await cli(['deployments', 'app_aaaaaaaaaaaaaaaaaaaaaaaaaa'], { PLATFORM_SERVICE_TOKEN: token, PLATFORM_CONFIG_DIR: join(work, 'config-none') });
    expect(service.diagnostics.map((d) => d.code)).toEqual(['DG5002']);
    expect(service.diagnostics[0]!.hint).toContain('token create');
  });

  it('a fresh sign-in stores when its session ends', async () => {
    clock += 120_000;
    const started = await startDevice();
    await approve(plane, started.userCode, 'fresh');
    const issued = await poll(started.deviceCode);
    expect(issued.expiresAt).toBe(new Date(clock + SESSION_TTL_MS).toISOString());
  });
});
