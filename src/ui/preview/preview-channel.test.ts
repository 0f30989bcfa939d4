/**
 * A preview tab and the playground tab that serves it (preview-channel.ts), over Node's real
 * BroadcastChannel, with an in-memory PreviewRuntime standing for the app's runtime; and the device
 * box a preview is drawn in (device.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PersonaName } from '../../core/runtime';
import type { PreviewRuntime } from './preview-frame';
import { PreviewTabClient, previewTabHref, previewTabRoute, servePreviewTabs, type PreviewApp } from './preview-channel';
import { deviceBox } from './device';

const APP: PreviewApp = { number: 1, client: 1, code: 'console.log(1)', title: 'Todos', lang: 'en', publicFiles: { 'logo.svg': '<svg/>' } };

/** What the runtime was asked, and a body that never ends until it is cancelled. */
function memoryRuntime() {
  const calls: Array<{ persona: PersonaName; kind: string; name: string; input: unknown }> = [];
  let cancelled: () => void = () => undefined;
  const cancel = new Promise<void>((resolve) => (cancelled = resolve));
  const runtime: PreviewRuntime = {
    async call(persona, kind, name, input) {
      calls.push({ persona, kind, name, input });
      return name === 'fails' ? { status: 400, error: { code: 'operation_failed', message: 'no', errorId: 'e1' } } : { status: 200, result: { persona, input } };
    },
    async fetch(persona, request) {
      const path = new URL(request.url).pathname;
      if (path === '/api/chunks') {
        const parts = ['a', 'b', 'c'].map((c) => new TextEncoder().encode(c));
        return new Response(new ReadableStream<Uint8Array>({ pull: (controller) => (parts.length ? controller.enqueue(parts.shift()!) : controller.close()) }));
      }
      if (path === '/api/forever') return new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined), cancel: () => cancelled() }));
      return new Response(`${persona} ${request.method} ${await request.text()}`, { status: 201, headers: { 'x-who': persona } });
    },
  };
  return { runtime, calls, cancel };
}

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const thing of open.splice(0)) thing.close();
});

/** A tab and what it heard of the app, in order. */
function tab(projectId: string) {
  const heard: Array<PreviewApp | null | 'closed'> = [];
  const waiters: Array<() => void> = [];
  const client = new PreviewTabClient(projectId, (app) => {
    heard.push(app);
    waiters.splice(0).forEach((wake) => wake());
  });
  open.push(client);
  /** Resolves once the tab heard `count` announcements. */
  const heardAt = async (count: number) => {
    while (heard.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return heard[count - 1];
  };
  /** Resolves once the last announcement the tab heard is `what`. */
  const lastHeard = async (what: PreviewApp | null | 'closed') => {
    while (JSON.stringify(heard.at(-1)) !== JSON.stringify(what)) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { client, heard, heardAt, lastHeard };
}

describe('a preview in a tab of its own', () => {
  it('is told the app on its hello and every new build; a closed project says so', async () => {
    let app: PreviewApp | undefined;
    const server = servePreviewTabs('p_one', memoryRuntime().runtime, () => app);
    const first = tab('p_one');
    expect(await first.heardAt(1)).toBeNull();
    app = APP;
    server.changed();
    expect(await first.heardAt(2)).toEqual(APP);
    // A new tab's hello is answered to every tab (each loads the build it is told, once).
    const second = tab('p_one');
    expect(await second.heardAt(1)).toEqual(APP);
    // Another project's tab hears nothing of this one.
    const other = tab('p_two');
    server.close();
    await first.lastHeard('closed');
    await second.lastHeard('closed');
    expect(other.heard).toEqual([]);
  });

  it('calls and fetches reach the runtime as the tab’s persona; bodies arrive chunk by chunk', async () => {
    const { runtime, calls } = memoryRuntime();
    const logged: string[] = [];
    open.push(servePreviewTabs('p_calls', runtime, () => APP, { onCall: ({ persona, operation, status }) => logged.push(`${persona} ${operation} ${status}`) }));
    const { client } = tab('p_calls');
    const when = new Date('2026-01-01T00:00:00Z');
    expect(await client.call('bob', 'mutation', 'todos.add', { title: 'x', when })).toEqual({ status: 200, result: { persona: 'bob', input: { title: 'x', when } } });
    expect(await client.call('guest', 'query', 'fails', {})).toEqual({ status: 400, error: { code: 'operation_failed', message: 'no', errorId: 'e1' } });
    expect(calls.map((c) => `${c.persona} ${c.kind} ${c.name}`)).toEqual(['bob mutation todos.add', 'guest query fails']);
    const posted = await client.fetch('alice', new Request('http://app.local/api/notes', { method: 'POST', body: 'hello' }));
    expect([posted.status, posted.headers.get('x-who'), await posted.text()]).toEqual([201, 'alice', 'alice POST hello']);
    const chunks: string[] = [];
    const reader = (await client.fetch('alice', new Request('http://app.local/api/chunks'))).body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(new TextDecoder().decode(value));
    }
    expect(chunks.join('')).toBe('abc');
    // Each shows in the playground's Events, as the previews' own calls do.
    expect(logged).toEqual(['bob mutation todos.add 200', 'guest query fails 400', 'alice POST /api/notes 201', 'alice GET /api/chunks 200']);
  });

  it('a body the tab stops reading is cancelled in the runtime (a live stream frees its slot)', async () => {
    const { runtime, cancel } = memoryRuntime();
    open.push(servePreviewTabs('p_cancel', runtime, () => APP));
    const { client } = tab('p_cancel');
    const response = await client.fetch('alice', new Request('http://app.local/api/forever'));
    await response.body!.cancel();
    await cancel;
  });

  it('a request naming no persona the playground knows is not served', async () => {
    const { runtime, calls } = memoryRuntime();
    open.push(servePreviewTabs('p_who', runtime, () => APP));
    const { client } = tab('p_who');
    void client.call('mallory' as PersonaName, 'query', 'todos.list', {});
    // Requests are served in order: a later good call is answered, the bad one never reached the runtime.
    await client.call('alice', 'query', 'todos.list', {});
    expect(calls.map((c) => c.persona)).toEqual(['alice']);
  });

  it('its address names the project and the persona; anything else is not a preview tab', () => {
    const href = previewTabHref('p_abc', 'bob', { origin: 'http://127.0.0.1:4173', pathname: '/' });
    expect(href).toBe('http://127.0.0.1:4173/#/p/p_abc/preview/bob');
    expect(previewTabRoute(new URL(href).hash)).toEqual({ projectId: 'p_abc', persona: 'bob' });
    for (const hash of ['#/p/p_abc/preview/mallory', '#/p/p_abc', '#/p/p_abc/preview/bob/x', '#/p/../preview/alice', '#/p/p_abc/preview/Alice']) expect(previewTabRoute(hash)).toBeUndefined();
  });
});

describe('device sizes', () => {
  it('draw the device’s viewport scaled down to fit, centred, never scaled up; Full fills the pane', () => {
    expect(deviceBox('full', { width: 500, height: 400 })).toBeUndefined();
    expect(deviceBox('phone', { width: 1000, height: 1000 })).toEqual({ width: 390, height: 844, scale: 1, left: 305, top: 78 });
    const small = deviceBox('phone', { width: 400, height: 422 })!;
    expect(small.scale).toBe(0.5);
    expect([small.left, small.top]).toEqual([102.5, 0]);
    expect(deviceBox('tablet', { width: 384, height: 2000 })).toMatchObject({ width: 768, height: 1024, scale: 0.5, left: 0, top: 744 });
  });
});
