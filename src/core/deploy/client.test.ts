/**
 * The control plane client's credential binding: a credential goes only to the origin it is bound to.
 * The fetch is an in-memory one that records what would have gone over the network.
 */
import { describe, expect, it } from 'vitest';
import { ControlClient } from './client';
import { CONTROL_PROTOCOL } from './protocol';
import { ROUTES } from './routes';

const TOKEN = `xst_${'A'.repeat(43)}`;

function recorder() {
  const sent: Array<{ url: string; authorization: string | null }> = [];
  const fetch = async (request: Request) => {
    sent.push({ url: request.url, authorization: request.headers.get('authorization') });
    return Response.json({ protocol: CONTROL_PROTOCOL, ok: true, builder: { id: 'bld_x', name: 'ada' }, credential: { kind: 'service-token' } });
  };
  return { sent, fetch };
}

describe('ControlClient credential binding', () => {
  it('sends the credential to its own origin', async () => {
    const { sent, fetch } = recorder();
    const client = new ControlClient('http://localhost:4310', fetch, { token: TOKEN, origin: 'http://localhost:4310' });
    expect((await client.call(ROUTES.whoami, {})).kind).toBe('ok');
    expect(sent).toEqual([{ url: 'http://localhost:4310/v0/auth/whoami', authorization: `Bearer ${TOKEN}` }]);
  });

  it('is never made for another origin: a credential bound to one control plane is refused to a client of another', () => {
    const { sent, fetch } = recorder();
    for (const other of ['http://evil.localhost:4310', 'https://control.example.com', 'http://localhost:4311', 'https://localhost:4310']) {
      expect(() => new ControlClient(other, fetch, { token: TOKEN, origin: 'http://localhost:4310' }), other).toThrow(/is not given to a client of/);
    }
    expect(sent).toEqual([]);
  });

  it('sends nothing when a path would move the request to another origin, and the message names no secret', async () => {
    const { sent, fetch } = recorder();
    const client = new ControlClient('http://localhost:4310', fetch, { token: TOKEN, origin: 'http://localhost:4310' });
    const attempt = client.request('GET', '@evil.localhost:9/v0/auth/whoami', { check: () => true });
    await expect(attempt).rejects.toThrow(/would carry the credential of http:\/\/localhost:4310; nothing was sent/);
    await attempt.catch((error: Error) => expect(error.message).not.toContain(TOKEN));
    expect(sent).toEqual([]);
  });

  it('binds a bare token to the client\'s own origin, and withToken keeps the origin', async () => {
    const { sent, fetch } = recorder();
    const client = new ControlClient('http://localhost:4310', fetch, TOKEN);
    await client.call(ROUTES.whoami, {});
    await client.withToken(undefined).call(ROUTES.whoami, {});
    await expect(client.request('GET', '@evil.localhost:9/', { check: () => true })).rejects.toThrow(/nothing was sent/);
    expect(sent).toEqual([
      { url: 'http://localhost:4310/v0/auth/whoami', authorization: `Bearer ${TOKEN}` },
      { url: 'http://localhost:4310/v0/auth/whoami', authorization: null },
    ]);
  });
});
