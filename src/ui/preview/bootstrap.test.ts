/**
 * The preview bootstrap (a string of JavaScript) sends exactly the protocol's shapes: it runs here in a
 * context of its own with a stand-in for the frame's page, is driven to send every message it can,
 * and each message, cloned as the port would, must pass `readFrameMessage`.
 */
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { readFrameMessage, type FrameMessageType } from '../../../worker/protocol/preview';
import { PREVIEW_BOOTSTRAP } from './bootstrap';

type Listener = (event: unknown) => unknown;

/** Every message type the frame may send: the compiler insists on each (a new one must be added here). */
const EVERY_TYPE: Record<FrameMessageType, true> = {
  pong: true,
  loaded: true,
  'server-replaced': true,
  'client-error': true,
  console: true,
  call: true,
  fetch: true,
  'cancel-body': true,
  download: true,
  'sign-in': true,
  'sign-out': true,
  'external-link': true,
};

/** Runs the bootstrap in a context of its own; what it posts on the page's port is kept, cloned. */
async function startBootstrap() {
  const posted: unknown[] = [];
  const listeners = new Map<string, Listener[]>();
  const parent = {};
  class Element {
    constructor(readonly attributes: Record<string, string>) {}
    getAttribute(name: string): string | null {
      return this.attributes[name] ?? null;
    }
    closest(): Element {
      return this;
    }
    get href(): string {
      return new URL(this.attributes.href ?? '', 'http://app.local/').href;
    }
  }
  class ObjectUrl extends URL {
    static override createObjectURL(): string {
      return 'blob:test';
    }
  }
  const pagePort = { onmessage: undefined as Listener | undefined, postMessage: (message: unknown) => posted.push(structuredClone(message)) };
  const context = vm.createContext({
    parent,
    Element,
    URL: ObjectUrl,
    Request,
    Response,
    ReadableStream,
    Blob,
    fetch: () => Promise.reject(new Error('no network')),
    console: { debug() {}, log() {}, info() {}, warn() {}, error() {} },
    MutationObserver: class {
      observe(): void {}
    },
    document: {
      title: '',
      documentElement: { lang: '', nodeType: 1, localName: 'html', getAttribute: () => null, setAttribute() {}, querySelectorAll: () => [] },
      head: { appendChild() {} },
    },
    addEventListener(type: string, listener: Listener) {
      listeners.set(type, [...(listeners.get(type) ?? []), listener]);
    },
  });
  // The app's code (a blob: URL in the frame) is imported by the bootstrap's `import(…)`, which a vm
  // script cannot run without Node's --experimental-vm-modules: here it is a function that loads nothing.
  const script = PREVIEW_BOOTSTRAP.replaceAll('import(', 'loadModule(');
  expect(script.split('loadModule(').length - 1).toBe(2);
  context.loadModule = () => Promise.resolve({});
  new vm.Script(script).runInContext(context);
  const dispatch = async (type: string, event: unknown) => {
    for (const listener of listeners.get(type) ?? []) await listener(event);
  };
  await dispatch('message', { source: parent, ports: [pagePort], data: { type: 'init', code: '', afterPrelude: false, title: 'App', lang: 'en', assets: {} } });
  const toFrame = (data: unknown) => pagePort.onmessage?.({ data, ports: [] });
  return { posted, context, dispatch, toFrame, Element };
}

describe('the preview bootstrap', () => {
  it('sends only messages readFrameMessage takes, every type of them', async () => {
    const { posted, context, dispatch, toFrame, Element } = await startBootstrap();
    toFrame({ type: 'ping', at: 5 });
    toFrame({ type: 'server-replaced', id: 7 });
    const appConsole = context.console as Record<string, (...args: unknown[]) => void>;
    for (const level of ['debug', 'log', 'info', 'warn', 'error']) appConsole[level]!('a line', { at: 1 }, new Error('with a stack'));
    appConsole.log!('x'.repeat(10_000));
    await dispatch('error', { error: new Error('boom'), message: 'Uncaught Error: boom' });
    await dispatch('error', { error: undefined, message: 'Script error.' });
    await dispatch('unhandledrejection', { reason: { not: 'an error' } });
    const host = vm.runInContext("globalThis[Symbol.for('platform.client.host')]", context) as Record<string, (...args: unknown[]) => unknown>;
    host.signIn!();
    host.signOut!();
    void host.call!('query', 'todos.list', { done: false });
    void host.call!('action', 'todos.add');
    await expect(host.call!('query', { name: 'x' })).rejects.toThrow(/named by a string/);
    const appFetch = context.fetch as (path: string, init?: RequestInit) => Promise<Response>;
    const answered = appFetch('/api/items?x=1', { method: 'POST', body: 'hello', headers: { 'x-test': 'yes' } });
    void appFetch('http://app.local//elsewhere');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const fetched = posted.find((m) => (m as { path?: string }).path === '/api/items?x=1') as { id: number };
    toFrame({ type: 'response', id: fetched.id, status: 200, headers: [['content-type', 'text/plain']], hasBody: true });
    await (await answered).body!.cancel();
    const click = (attributes: Record<string, string>) =>
      dispatch('click', { target: new Element(attributes), defaultPrevented: false, isTrusted: true, preventDefault() {} });
    await click({ href: '/report.csv', download: 'r'.repeat(5000) });
    await click({ href: 'https://example.com/elsewhere' });

    const types = new Set<string>();
    for (const message of posted) {
      expect(readFrameMessage(message), JSON.stringify(message)).toBeDefined();
      types.add((message as { type: string }).type);
    }
    expect([...types].sort()).toEqual(Object.keys(EVERY_TYPE).sort());
  });
});
