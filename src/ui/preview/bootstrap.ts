/**
 * The script that runs first inside a preview iframe (sandboxed, opaque origin, no network). It takes a
 * MessagePort from the playground and installs a fetch over it for the app's own routes (its /api
 * endpoints and the runtime's /_platform/v0/ wire routes, including the live-update stream), and the
 * platform/client host on that fetch: the client module speaks the wire itself, as on a hosted page.
 * Then it loads the client bundle from a blob: URL. The host's `send` takes the client module's
 * queries and mutations straight to the runtime worker, over a second port the playground hands over
 * (`runtime-port`): a wire route's request without HTTP (its body and live connection), answered with
 * what the route's response says (worker/protocol/runtime.ts, `PreviewCall`). While there is no such
 * port, `send` answers nothing and the client module uses the wire routes over `fetch`; so do calls
 * sent to a worker that is gone before it began them (a restart: `runtime-detach` says which calls the
 * playground answers itself). After an edit that changed the server alone, the playground asks
 * (`server-replaced`) whether the page showed the new server without loading again: the client module
 * ran its queries again, and nothing on the page came from elsewhere (an endpoint's answer, a call
 * outside the client module); otherwise the playground loads it again. It is plain JavaScript in a
 * string: the iframe gets it through srcdoc. The messages it sends and takes are those of
 * worker/protocol/preview.ts: each tag in the string is put there by `sends` or `takes`, which take only
 * the protocol's tags, so a tag renamed there cannot be left behind here.
 */
import { CONSOLE_LEVELS, PREVIEW_NAME_LIMIT, PREVIEW_TEXT_LIMIT, type FrameMessage, type PageMessage, type PreviewStart } from '../../../worker/protocol/preview';
import type { PreviewAnswer, PreviewCall } from '../../../worker/protocol/runtime';
import { scriptHashSource } from '../csp';

/** A tag the frame sends (to the page, or a call on its direct port to the runtime worker), as a JavaScript literal. */
const sends = (type: FrameMessage['type'] | PreviewCall['type']) => JSON.stringify(type);
/** A tag the frame takes (from the page, or a direct call's answer), as a JavaScript literal. */
const takes = (type: PageMessage['type'] | PreviewStart['type'] | PreviewAnswer['type']) => JSON.stringify(type);

export const PREVIEW_BOOTSTRAP = String.raw`
(() => {
  // WebRTC would reach the network over UDP (STUN), which no CSP directive covers: the app has none.
  // Child frames cannot bring it back: they are opaque origins of their own, and the CSP lets only this
  // script (by hash) and blob: modules run, so a nested srcdoc's inline script does not run.
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceTransport', 'RTCSctpTransport']) delete globalThis[name];
  const HOST = Symbol.for('platform.client.host');
  // After a server-only edit the playground asks whether the page can show the new server without
  // loading again: only when the client module can run its queries again and nothing the page holds
  // came from elsewhere (an endpoint's answer, a call outside the client module).
  let serverReplaced;
  let heldOutside = false;
  const pending = new Map();
  let port;
  // The port straight to the runtime worker (its other end tagged there with this preview's persona).
  let direct;
  let next = 1;
  const request = (message, transfer) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    port.postMessage({ ...message, id }, transfer || []);
  });
  const settle = (data) => {
    const waiter = pending.get(data.id);
    if (!waiter) return;
    pending.delete(data.id);
    if (data.type === ${takes('error')}) waiter.reject(Object.assign(new Error(data.error.message), data.error));
    else waiter.resolve(data.type === ${takes('response')} ? data : data.type === ${takes('answer')} ? data.answer : data.result);
  };
  globalThis[HOST] = {
    // The wire routes over the port (below): the same client code path as a hosted page.
    fetch: (path, init) => globalThis.fetch(path, init),
    // The client module's queries and mutations, straight to the runtime worker; undefined: use fetch.
    send: (kind, name, body, live) => {
      if (!direct) return Promise.resolve(undefined);
      const message = live ? { type: ${sends('call')}, id: next++, kind, name, body, live } : { type: ${sends('call')}, id: next++, kind, name, body };
      return new Promise((resolve, reject) => {
        pending.set(message.id, { resolve, reject, direct: true });
        direct.postMessage(message);
      });
    },
    // A call through the playground, outside the client module (which the playground refuses unless
    // its name is a string of at most ${PREVIEW_NAME_LIMIT} characters).
    call: (kind, name, input) => {
      if (typeof name !== 'string' || name.length > ${PREVIEW_NAME_LIMIT}) return Promise.reject(new TypeError('A query or mutation is named by a string of at most ${PREVIEW_NAME_LIMIT} characters.'));
      if (kind !== 'mutation') heldOutside = true;
      return request({ type: ${sends('call')}, kind: kind === 'mutation' ? 'mutation' : 'query', name, input });
    },
    // People are personas here: signing in or out is switching persona, which the playground explains.
    signIn: () => port && port.postMessage({ type: ${sends('sign-in')} }),
    signOut: () => { if (port) port.postMessage({ type: ${sends('sign-out')} }); },
    // The client module's word on a server replaced under the page: true when it ran its queries again.
    onServerReplaced: (listener) => { serverReplaced = listener; },
  };
  // The app's public/ files: path → { url (blob:), type }.
  const assets = new Map();
  // Streamed bodies: request id → the ReadableStream's controller.
  const bodies = new Map();
  const nativeFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const req = new Request(input instanceof Request ? input : new URL(String(input), 'http://app.local/'), init);
    const url = new URL(req.url);
    if (url.origin !== 'http://app.local') return nativeFetch(req);
    const asset = (req.method === 'GET' || req.method === 'HEAD') && assets.get(url.pathname);
    if (asset) return new Response(req.method === 'HEAD' ? null : asset.blob, { status: 200, headers: { 'content-type': asset.type } });
    if (!url.pathname.startsWith('/_platform/') && !url.pathname.startsWith('/__platform/')) heldOutside = true;
    const body = req.method === 'GET' || req.method === 'HEAD' ? null : await req.arrayBuffer();
    const head = await request({ type: ${sends('fetch')}, method: req.method, path: url.pathname + url.search, headers: [...req.headers], body }, body ? [body] : []);
    // The body arrives in chunks as the runtime sends them (a stream() keeps flowing).
    const stream = head.hasBody ? new ReadableStream({
      start(controller) { bodies.set(head.id, controller); },
      cancel() { bodies.delete(head.id); port.postMessage({ type: ${sends('cancel-body')}, id: head.id }); },
    }) : null;
    return new Response(stream, { status: head.status, headers: head.headers });
  };
  const APP = 'http://app.local';
  const appUrl = (value) => {
    try {
      const url = new URL(value, APP + '/');
      return url.origin === APP ? url : undefined;
    } catch (error) {
      return undefined;
    }
  };
  // public/ files referenced by src, href (stylesheets, icons) or poster load from blob: URLs.
  const ATTRIBUTES = ['src', 'poster', 'href'];
  const rewrite = (element) => {
    for (const name of ATTRIBUTES) {
      if (name === 'href' && element.localName !== 'link') continue;
      const value = element.getAttribute(name);
      if (!value || value.startsWith('blob:')) continue;
      const url = appUrl(value);
      const asset = url && assets.get(url.pathname);
      if (asset) element.setAttribute(name, asset.url);
    }
  };
  const scan = (root) => {
    if (root.nodeType !== 1) return;
    rewrite(root);
    root.querySelectorAll('[src],[poster],link[href]').forEach(rewrite);
  };
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'attributes') rewrite(record.target);
      else record.addedNodes.forEach(scan);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ATTRIBUTES });
  // A click on a link is not followed by the frame (it would leave the app): a link into the app is
  // fetched as this persona and offered as a download by the playground; others are reported. Only
  // a person's click counts (isTrusted), never a script's.
  addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (!link || event.defaultPrevented || !event.isTrusted) return;
    const href = link.getAttribute('href');
    if (href.startsWith('#')) return;
    event.preventDefault();
    const url = appUrl(href);
    if (url) port.postMessage({ type: ${sends('download')}, path: url.pathname + url.search, name: (link.getAttribute('download') || '').slice(0, ${PREVIEW_NAME_LIMIT}) });
    else port.postMessage({ type: ${sends('external-link')}, href: String(link.href) });
  });
  const text = (value) => {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return value.stack && value.stack.includes(value.message) ? value.stack : value.name + ': ' + value.message;
    if (typeof value !== 'object' || value === null) return String(value);
    try { return JSON.stringify(value) ?? String(value); } catch (error) { return Object.prototype.toString.call(value); }
  };
  const cut = (value) => String(value).slice(0, ${PREVIEW_TEXT_LIMIT});
  const report = (error, fallback) => port && port.postMessage({
    type: ${sends('client-error')},
    message: cut(error instanceof Error ? error.name + ': ' + error.message : fallback !== undefined ? fallback : text(error)),
    stack: cut(error instanceof Error && error.stack || ''),
  });
  addEventListener('error', (event) => report(event.error, event.message));
  addEventListener('unhandledrejection', (event) => report(event.reason));
  // console.* goes to the playground's Console as well as to the frame's own console.
  for (const level of ${JSON.stringify(CONSOLE_LEVELS)}) {
    const original = console[level];
    console[level] = function (...args) {
      if (port) {
        const error = args.find((arg) => arg instanceof Error);
        port.postMessage({ type: ${sends('console')}, level, message: cut(args.map(text).join(' ')), stack: cut(error && error.stack || new Error().stack || '') });
      }
      return original.apply(this, args);
    };
  }
  // A vendor script (React) the playground runs here before the app is known: the app's code comes
  // later without it (afterPrelude).
  let prelude;
  addEventListener('message', async (event) => {
    if (event.data && event.data.type === ${takes('prelude')} && !prelude && !port && event.source === parent) {
      const url = URL.createObjectURL(new Blob([String(event.data.code)], { type: 'text/javascript' }));
      prelude = import(url).then(() => undefined, (error) => error || new Error('The preview vendor script failed.'));
      return;
    }
    // Only the playground (the parent) starts the app: another frame (a preview beside this one) that
    // posts an init first is ignored.
    if (!event.data || event.data.type !== ${takes('init')} || port || event.source !== parent) return;
    port = event.ports[0];
    // The document is made before the app is known (a frame kept ready for the next build): its name and language come now.
    document.title = String(event.data.title || '');
    document.documentElement.lang = String(event.data.lang || 'en');
    port.onmessage = ({ data, ports }) => {
      if (data.type === ${takes('ping')}) return port.postMessage({ type: ${sends('pong')}, at: data.at });
      if (data.type === ${takes('runtime-port')} && ports[0]) {
        direct = ports[0];
        direct.onmessage = (answer) => {
          if (answer.data && answer.data.type === ${takes('answer')}) settle(answer.data);
        };
        return;
      }
      if (data.type === ${takes('server-replaced')}) {
        let ok = false;
        try {
          ok = !heldOutside && typeof serverReplaced === 'function' && serverReplaced() === true;
        } catch (error) {
          report(error);
        }
        return port.postMessage({ type: ${sends('server-replaced')}, id: data.id, ok });
      }
      if (data.type === ${takes('runtime-detach')}) {
        // Calls the lost worker had not begun were not run: the client module sends them over fetch.
        direct = undefined;
        const ran = new Set(data.ran);
        for (const [id, waiter] of pending) {
          if (!waiter.direct || ran.has(id)) continue;
          pending.delete(id);
          waiter.resolve(undefined);
        }
        return;
      }
      if (data.type === ${takes('body-chunk')} || data.type === ${takes('body-end')} || data.type === ${takes('body-error')}) {
        const controller = bodies.get(data.id);
        if (!controller) return;
        if (data.type === ${takes('body-chunk')}) return controller.enqueue(new Uint8Array(data.chunk));
        bodies.delete(data.id);
        return data.type === ${takes('body-end')} ? controller.close() : controller.error(new Error(data.message));
      }
      settle(data);
    };
    for (const [path, file] of Object.entries(event.data.assets || {})) {
      const blob = new Blob([file.text], { type: file.type });
      assets.set(path, { blob, type: file.type, url: URL.createObjectURL(blob) });
    }
    if (event.data.css) {
      const style = document.createElement('style');
      style.textContent = event.data.css;
      document.head.appendChild(style);
    }
    try {
      scan(document.documentElement);
      if (event.data.afterPrelude) {
        const failed = await prelude;
        if (!prelude || failed) throw failed || new Error('The preview vendor script was not run.');
      }
      await import(URL.createObjectURL(new Blob([event.data.code], { type: 'text/javascript' })));
      port.postMessage({ type: ${sends('loaded')} });
    } catch (error) {
      report(error);
    }
  });
})();
`;

/**
 * What a preview may load and reach: the bootstrap (by its hash) and blob: scripts, inline and blob:
 * styles, data: and blob: media; no network, no form submission, no nested frames. (Navigating the
 * frame itself away is refused by the playground page's own `frame-src`, in index.html.)
 */
export const PREVIEW_CSP = [
  "default-src 'none'",
  `script-src ${scriptHashSource(PREVIEW_BOOTSTRAP)} blob:`,
  "style-src 'unsafe-inline' blob:",
  'img-src data: blob:',
  'font-src data: blob:',
  'media-src data: blob:',
  "connect-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
].join('; ');

/** The preview's document, the same for every app: the app's title and language come with its code (`init`). */
export function previewDocument(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}"><meta name="viewport" content="width=device-width, initial-scale=1"><title></title><script>${PREVIEW_BOOTSTRAP}</script></head><body><div id="app"></div></body></html>`;
}
