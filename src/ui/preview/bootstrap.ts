/**
 * The script that runs first inside a preview iframe (sandboxed, opaque origin, no network). It takes a
 * MessagePort from the playground, installs the platform/client host over it (queries, mutations, live
 * refresh) and a fetch for the app's own /api routes, then loads the client bundle from a blob: URL.
 * It is plain JavaScript in a string: the iframe gets it through srcdoc.
 */
export const PREVIEW_BOOTSTRAP = String.raw`
(() => {
  const HOST = Symbol.for('platform.client.host');
  const pending = new Map();
  const listeners = new Set();
  let port;
  let next = 1;
  const request = (message, transfer) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    port.postMessage({ ...message, id }, transfer || []);
  });
  globalThis[HOST] = {
    call: (kind, name, input) => request({ type: 'call', kind, name, input }),
    subscribe(listener) { listeners.add(listener); return () => listeners.delete(listener); },
  };
  const nativeFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const req = new Request(input instanceof Request ? input : new URL(String(input), 'http://app.local/'), init);
    const url = new URL(req.url);
    if (url.origin !== 'http://app.local') return nativeFetch(req);
    const body = req.method === 'GET' || req.method === 'HEAD' ? null : await req.arrayBuffer();
    const answer = await request({ type: 'fetch', method: req.method, path: url.pathname + url.search, headers: [...req.headers], body }, body ? [body] : []);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
  const report = (message) => port && port.postMessage({ type: 'client-error', message: String(message) });
  addEventListener('error', (event) => report(event.message));
  addEventListener('unhandledrejection', (event) => report(event.reason && event.reason.message || event.reason));
  addEventListener('message', async (event) => {
    if (!event.data || event.data.type !== 'init' || port) return;
    port = event.ports[0];
    port.onmessage = ({ data }) => {
      if (data.type === 'ping') return port.postMessage({ type: 'pong', at: data.at });
      if (data.type === 'refresh') return listeners.forEach((listener) => listener(data.wrote));
      const waiter = pending.get(data.id);
      if (!waiter) return;
      pending.delete(data.id);
      if (data.type === 'error') waiter.reject(Object.assign(new Error(data.error.message), data.error));
      else waiter.resolve(data.type === 'response' ? data : data.result);
    };
    if (event.data.css) {
      const style = document.createElement('style');
      style.textContent = event.data.css;
      document.head.appendChild(style);
    }
    try {
      await import(URL.createObjectURL(new Blob([event.data.code], { type: 'text/javascript' })));
      port.postMessage({ type: 'loaded' });
    } catch (error) {
      report(error && error.message || error);
    }
  });
})();
`;

/** What a preview may load and reach: inline and blob: scripts and styles, data: and blob: media, no network. */
export const PREVIEW_CSP = "default-src 'none'; script-src 'unsafe-inline' blob:; style-src 'unsafe-inline' blob:; img-src data: blob:; font-src data: blob:; media-src data: blob:; connect-src 'none'";

export function previewDocument(lang: string, title: string): string {
  const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="${escape(lang)}"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title><script>${PREVIEW_BOOTSTRAP}</script></head><body><div id="app"></div></body></html>`;
}
