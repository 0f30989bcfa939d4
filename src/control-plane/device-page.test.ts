/**
 * The approval page names who asked (issue 33, Deploy: "the approval page speaks of a terminal though
 * the playground asked"): a sign-in started by a playground's Deploy panel (its Origin header, one of the
 * allowed playground origins) is shown as that playground's, on the page and in its answer; one started
 * by `platform auth login` (no Origin) or with an origin the control plane does not allow is a terminal's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from './control-plane';
import { approve, call } from '../testing/control-plane';

let work: string;
let plane: ControlPlane;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-device-page-'));
  plane = await createControlPlane({ dataDir: join(work, 'data'), corsOrigins: ['http://localhost:5180'] });
});

afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});

async function start(origin?: string): Promise<string> {
  const answer = await call(plane, 'POST', '/v0/auth/device', { body: {}, ...(origin ? { headers: { origin } } : {}) });
  return ((await answer.json()) as { userCode: string }).userCode;
}

const pageOf = async (code: string) => (await call(plane, 'GET', `/device?code=${code}`)).text();

describe('the approval page', () => {
  it("names the playground that asked, and says it is signed in once approved", async () => {
    const code = await start('http://localhost:5180');
    const page = await pageOf(code);
    expect(page).toContain('The playground at <strong>http://localhost:5180</strong> is waiting to deploy');
    expect(page).toContain('Code shown in the playground');
    expect(page).not.toContain('platform auth login');
    const approved = await approve(plane, code, 'ada');
    expect(approved.status).toBe(200);
    expect(await approved.text()).toContain('The playground at http://localhost:5180 is now signed in as ada.');
  });

  it('speaks of a terminal for platform auth login, and for an origin that is not an allowed playground', async () => {
    for (const origin of [undefined, 'https://evil.example']) {
      const code = await start(origin);
      const page = await pageOf(code);
      expect(page).toContain('A terminal running <code>platform auth login</code> is waiting.');
      expect(page).not.toContain('evil.example');
      const approved = await approve(plane, code, 'ada');
      expect(await approved.text()).toContain('The terminal is now signed in as ada.');
    }
  });
});
