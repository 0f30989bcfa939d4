/**
 * A preview of the app as one persona: a sandboxed iframe (opaque origin, CSP without network) running
 * the client bundle. Its calls reach the runtime through this trusted side, which binds the persona:
 * code in the preview cannot choose whom it acts as. The client module's queries and mutations (its
 * host's `send`) go straight to the runtime worker when the runtime offers it (`connectPreview`): over
 * a port this side made and tagged with the persona in the worker, so the preview still cannot choose
 * whom it acts as. What the frame and this side say to each other is worker/protocol/preview.ts; every
 * message from the frame is checked there (`readFrameMessage`) before this side acts on it.
 */
import type { PersonaName } from '../../core/runtime';
import type { PreviewAnswer } from '../../../worker/protocol/runtime';
import type { RuntimeErrorInfo } from '../../modules/types';
import { readFrameMessage, type FrameMessage, type PageMessage, type PreviewStart } from '../../../worker/protocol/preview';
import { downloadBytes } from '../download';
import { LIVE_PATH, liveNotAllowed, wireRoute } from '../../modules/wire';
import { afterPreviewVendor, previewVendorOf } from '../../core/bundle';
import { previewDocument } from './bootstrap';
import { BodySender, bodyPoster } from '../../core/host';

/** What a preview needs from the runtime (RuntimeHost implements it). */
export interface PreviewRuntime {
  call(persona: PersonaName, kind: 'query' | 'mutation', name: string, input: unknown): Promise<{ status: number; result?: unknown; error?: RuntimeErrorInfo }>;
  fetch(persona: PersonaName, request: Request): Promise<Response>;
  /**
   * Gives the preview a port straight to the runtime worker for its calls, tagged there with `persona`
   * (RuntimeHost; a preview tab's runtime has none: its calls go through the page). Returns the
   * disconnection.
   */
  connectPreview?(persona: PersonaName, link: PreviewLink): () => void;
}

/** One call's entry in the Events: who made it, what it was, how it ended and how long it took. */
export interface CallEntry {
  persona: PersonaName;
  operation: string;
  status: number;
  durationMs: number;
}

/** The page's hold on a preview's direct path to the runtime worker (RuntimeHost drives it). */
export interface PreviewLink {
  /** A port to the runtime worker (the worker holds the other end, tagged with the persona). */
  attach(port: MessagePort): void;
  /**
   * The runtime worker the port reached is gone (a restart): calls sent on it go through the page
   * again, except those in `ran`, which the worker had begun: the page answers those itself.
   */
  detach(ran: number[]): void;
  /** The page's answer to a call sent on the port (one that wrote, once durable; or one interrupted). */
  answer(message: PreviewAnswer): void;
  /** A call sent on the port ended. */
  onCall(entry: CallEntry): void;
}

export interface PreviewEvents {
  /** A call the preview made, with how it ended and how long it took. */
  onCall?(entry: CallEntry): void;
  /** Client code threw and nothing caught it: its message and stack (the frame's word: text only). */
  onError?(message: string, stack: string): void;
  /** Client code wrote with `console`: the level, the line, and the stack where it was written. */
  onConsole?(line: { persona: PersonaName; level: string; message: string; stack: string }): void;
  onLoaded?(): void;
  /** The preview showed a server replaced under it without loading again: it ran its queries again (`serverReplaced`). */
  onRefreshed?(): void;
  /** The preview stopped answering its heartbeat (a loop in client code). */
  onUnresponsive?(): void;
  /** Something the person should know that is not an error (a download made, a link not followed). */
  onNotice?(message: string): void;
  /**
   * The preview's live connection was refused because the app's manifest allows none (its
   * `liveConnections` budget is 0): not a failure, and not a call entry (every load asks once).
   */
  onLiveOff?(): void;
  /**
   * The app called `signIn()` or `signOut()`: in the playground people are personas, so the answer is
   * to switch persona (the playground offers them in the preview). Without it, `onNotice` says so.
   */
  onAuthAsk?(kind: 'sign-in' | 'sign-out'): void;
  /**
   * A file a person's click in the preview asked to download, ready to save: the playground asks the
   * person in its own UI (`offer.save()` on their click there), never on the app's word alone.
   */
  onOffer?(offer: DownloadOffer): void;
  /** The preview's frame navigated (the app tried to leave): it no longer runs the app. */
  onNavigated?(): void;
}

/** A download the preview asked for, fetched as its persona and waiting for the person's yes. */
export interface DownloadOffer {
  persona: PersonaName;
  filename: string;
  path: string;
  type: string;
  size: number;
  /** Saves the file (call it from a click in the playground's own UI). */
  save(): void;
}

/**
 * Whether a person is acting in this preview right now: the page has transient user activation and
 * focus is in this frame. A click inside the preview activates the playground's page too (activation
 * reaches a frame's ancestors) and moves the page's focus to the frame; code in the preview can do
 * neither, and this is read in the playground's realm, where the app's code never runs. (Typing in
 * the editor activates the page as well, with the focus in the editor: that does not count.)
 */
function personActingIn(frame: HTMLIFrameElement): boolean {
  return pageActivated() && document.activeElement === frame;
}

function pageActivated(): boolean {
  return (navigator as Navigator & { userActivation?: { isActive: boolean } }).userActivation?.isActive === true;
}

/** How long an ask made during a person's activation may wait for the focus to reach its frame. */
const FOCUS_GRACE_MS = 500;

/**
 * `personActingIn`, allowing for the order things arrive in: a click in the frame activates the page
 * and moves the focus there, but the frame's message can reach the playground before the focus does.
 * So an ask made while the page is activated, with the focus not yet in the frame, waits (at most
 * {@link FOCUS_GRACE_MS}, and only while the activation lasts) for the focus to arrive. Without
 * activation there is nothing to wait for: the answer is no at once.
 */
async function personActingSoonIn(frame: HTMLIFrameElement): Promise<boolean> {
  if (personActingIn(frame)) return true;
  if (!pageActivated()) return false;
  return new Promise<boolean>((resolve) => {
    const deadline = performance.now() + FOCUS_GRACE_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const settle = (answer: boolean) => {
      done = true;
      clearTimeout(timer);
      window.removeEventListener('blur', check);
      resolve(answer);
    };
    // The focus entering the frame blurs the playground's window; a poll covers a focus that moved
    // without a blur (the window was not focused before the click).
    function check(): void {
      if (done) return;
      clearTimeout(timer);
      if (personActingIn(frame)) return settle(true);
      if (!pageActivated() || performance.now() >= deadline) return settle(false);
      timer = setTimeout(check, 20);
    }
    window.addEventListener('blur', check);
    timer = setTimeout(check, 20);
  });
}

const HEARTBEAT_MS = 1000;
/**
 * A heartbeat tick this late means the playground's own page was busy (its thread held by the editor,
 * a big project's tree, the compiler's start, on a loaded machine): the preview's answers may be
 * waiting in the page's queue, so the silence is not held against the preview (see #startHeartbeat).
 */
const PAGE_STALL_MS = HEARTBEAT_MS * 2;
/**
 * How long a preview may stay silent while its app's code is still being evaluated (before `loaded`):
 * a 200-file bundle on a loaded machine holds the frame's thread for seconds, and ending it then left no
 * preview at all. The runtime's own start deadline is the same. Once loaded, three missed beats end it.
 */
const START_PATIENCE_MS = 15_000;
/** How long a preview has to answer that it showed a replaced server (`serverReplaced`). */
const SERVER_REPLACED_WAIT_MS = 1000;

interface Asset {
  text: string;
  type: string;
}

const TYPES: Record<string, string> = {
  svg: 'image/svg+xml', css: 'text/css', js: 'text/javascript', mjs: 'text/javascript', json: 'application/json', txt: 'text/plain',
  html: 'text/html', md: 'text/markdown', csv: 'text/csv', xml: 'application/xml', webmanifest: 'application/manifest+json',
};

/** The app's public/ files by the path they are served at (`public/logo.svg` at `/logo.svg`). */
function publicAssets(files: Record<string, string>): Record<string, Asset> {
  const assets: Record<string, Asset> = {};
  for (const [path, text] of Object.entries(files)) {
    const type = TYPES[path.slice(path.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';
    assets[`/${path}`] = { text, type: type.startsWith('text/') ? `${type}; charset=utf-8` : type };
  }
  return assets;
}

/** How a request shows in the event log: `query todos.list` for a wire route, else `GET /api/…`. */
export function operationOf(method: string, path: string): string {
  const wire = wireRoute(path);
  if (wire) return `${wire.kind} ${safeDecode(wire.encodedName)}`;
  if (path === LIVE_PATH) return 'live connection';
  return `${method} ${path}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** What the playground answers an app's `signIn()` or `signOut()`: people are personas here. */
export function authAskText(kind: 'sign-in' | 'sign-out'): string {
  return kind === 'sign-in'
    ? 'The app asked to sign in. In the playground people are personas: switch this preview to alice or bob (signed in) with the persona buttons; deployed, people sign in with a passkey.'
    : 'The app asked to sign out. In the playground people are personas: switch this preview to guest (signed out) with the persona buttons.';
}

/**
 * Tells `events` how a preview's request ended: a call entry, except for a live connection the app's
 * manifest does not allow, which is `onLiveOff` (said once by the playground, not logged as a failure).
 */
export function reportFetch(events: Pick<PreviewEvents, 'onCall' | 'onLiveOff'>, entry: CallEntry, response: Response): void {
  if (entry.operation === 'live connection' && liveNotAllowed(response)) events.onLiveOff?.();
  else events.onCall?.(entry);
}

/** The file name a Content-Disposition header gives, if any. */
function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const encoded = /filename\*=(?:UTF-8'')?([^;]+)/i.exec(header);
  if (encoded) {
    try {
      return decodeURIComponent(encoded[1]!.trim().replace(/^"|"$/g, ''));
    } catch {
      // fall through to the plain form
    }
  }
  return /filename="?([^";]+)"?/i.exec(header)?.[1]?.trim();
}

/**
 * `path` (from `/`, as the frame sends it) on the app's origin. Put after the origin, not resolved
 * against it: `//elsewhere/x` stays a path of the app.
 */
function appUrl(path: string): URL {
  return new URL(`http://app.local${path}`);
}

/** What a preview loads: the client bundle and what the page around it says. */
export interface PreviewLoad {
  code: string;
  css?: string;
  title: string;
  lang: string;
  /** Path under public/ → text, served at /. */
  publicFiles?: Record<string, string>;
}

export class PreviewFrame {
  readonly iframe: HTMLIFrameElement;
  readonly persona: PersonaName;
  readonly #port: MessagePort;
  readonly #runtime: PreviewRuntime;
  #events: PreviewEvents;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #lastPong = Date.now();
  /** When the heartbeat last ran (a late run means the page itself was busy). */
  #lastTick = Date.now();
  /** The port handed to the preview with the app; once. */
  #pending: MessagePort | undefined;
  /** Whether the frame's document has loaded (it waits for the app's code). */
  #documentLoaded = false;
  /** The app to start once the document has loaded. */
  #app: PreviewLoad | undefined;
  /** Response bodies being sent to the preview, by request id. */
  readonly #bodies = new Map<number, BodySender>();
  #assets: Record<string, Asset> = {};
  /** Ends the preview's direct path to the runtime worker. */
  #disconnect: (() => void) | undefined;
  /** The vendor script run in the frame ahead of its app (preload), sent or to be sent once the document loads. */
  #prelude: string | undefined;
  /** The app's code has run (`loaded`), and whether its client has thrown since. */
  #loaded = false;
  #errored = false;
  /** `serverReplaced` asks waiting for the preview's answer, by id. */
  readonly #asks = new Map<number, (ok: boolean) => void>();
  #nextAsk = 1;

  /**
   * Makes the frame and loads its document at once, before the app is known: `spare` keeps it hidden
   * (and not a `.preview-frame`) until `activate`, so the next build's preview starts in a document
   * that has already loaded.
   */
  constructor(container: HTMLElement, persona: PersonaName, runtime: PreviewRuntime, events: PreviewEvents = {}, options: { spare?: boolean } = {}) {
    this.persona = persona;
    this.#runtime = runtime;
    this.#events = events;
    this.iframe = document.createElement('iframe');
    this.iframe.setAttribute('sandbox', 'allow-scripts allow-forms');
    this.iframe.setAttribute('title', `Preview as ${persona}`);
    this.iframe.className = options.spare ? 'preview-frame-spare' : 'preview-frame';
    this.iframe.hidden = options.spare === true;
    const channel = new MessageChannel();
    this.#port = channel.port1;
    this.#port.onmessage = (event) => {
      // The frame runs the app's code, which can post anything on this port.
      const message = readFrameMessage(event.data);
      if (message) void this.#handle(message);
    };
    this.#pending = channel.port2;
    let loads = 0;
    this.iframe.onload = () => {
      // The srcdoc loads once; a second load is the frame navigating (a form post, `location = …`, a
      // script's click on a link). The page's CSP refuses any destination (frame-src), so what loaded
      // is an error page: the app is gone from this frame.
      if (++loads > 1) {
        clearInterval(this.#heartbeat);
        this.#events.onNavigated?.();
        return;
      }
      this.#documentLoaded = true;
      this.#sendPrelude();
      this.#start();
    };
    this.iframe.srcdoc = previewDocument();
    container.appendChild(this.iframe);
  }

  /** Whether a frame can move to another container with its document (`moveBefore`: nothing reloads). */
  static get movable(): boolean {
    return typeof (Element.prototype as Element & { moveBefore?: unknown }).moveBefore === 'function';
  }

  /** Moves the frame, its document loaded and kept, into `container` (false: it cannot move, see `movable`). */
  moveTo(container: HTMLElement): boolean {
    const move = (container as HTMLElement & { moveBefore?(node: Node, child: Node | null): void }).moveBefore;
    if (typeof move !== 'function') return false;
    move.call(container, this.iframe, null);
    return true;
  }

  /** A spare frame becomes the preview, with these events. */
  activate(events: PreviewEvents): void {
    this.#events = events;
    this.iframe.className = 'preview-frame';
    this.iframe.hidden = false;
  }

  /**
   * Runs the vendor script at the start of `code` (a React app's preview client, see previewVendorOf)
   * in this frame now, before its app is known: a spare frame loaded after a build whose client had
   * one. The next client that starts with the same script then runs only its app's part. Nothing for
   * code without one, or once the app is loading.
   */
  preload(code: string): void {
    if (this.#prelude !== undefined || this.#app) return;
    this.#prelude = previewVendorOf(code);
    if (this.#documentLoaded) this.#sendPrelude();
  }

  #sendPrelude(): void {
    if (this.#prelude !== undefined && !this.#app) this.#postToWindow({ type: 'prelude', code: this.#prelude });
  }

  /** To the frame's window (its bootstrap takes these from this page alone). */
  #postToWindow(message: PreviewStart, transfer: Transferable[] = []): void {
    this.iframe.contentWindow?.postMessage(message, '*', transfer);
  }

  /** To the frame, on its port. */
  #send(message: PageMessage, transfer: Transferable[] = []): void {
    this.#port.postMessage(message, transfer);
  }

  /** Starts the client bundle (once per frame): at once when the document has loaded, else when it does. */
  load(app: PreviewLoad): void {
    if (this.#app) return;
    this.#app = app;
    this.#assets = publicAssets(app.publicFiles ?? {});
    this.#start();
  }

  #start(): void {
    const app = this.#app;
    const port = this.#pending;
    if (!app || !port || !this.#documentLoaded) return;
    this.#pending = undefined;
    // The vendor script ran ahead in this frame: the app's part only.
    const prelude = this.#prelude !== undefined && app.code.startsWith(this.#prelude) ? this.#prelude : undefined;
    const code = prelude !== undefined ? afterPreviewVendor(app.code, prelude) : app.code;
    this.#postToWindow({ type: 'init', code, afterPrelude: prelude !== undefined, css: app.css, title: app.title, lang: app.lang, assets: this.#assets }, [port]);
    this.#startHeartbeat();
    // Its calls go straight to the runtime worker; the ports come over this frame's own port.
    this.#disconnect = this.#runtime.connectPreview?.(this.persona, {
      attach: (runtimePort) => this.#send({ type: 'runtime-port' }, [runtimePort]),
      detach: (ran) => this.#send({ type: 'runtime-detach', ran }),
      answer: (message) => this.#send(message),
      onCall: (entry) => this.#events.onCall?.(entry),
    });
  }

  /**
   * The app's server code was replaced under this preview (the client the same, the data kept): true
   * when the preview ran its queries again on the new server, so it shows what the new server answers
   * without loading again. False when it cannot say so: the app has not loaded or its client threw,
   * it does not use the client module's queries, something it shows came from elsewhere (an
   * endpoint, a one-off `query()`), or it did not answer within a second. Then the caller loads it again.
   */
  serverReplaced(): Promise<boolean> {
    if (!this.#loaded || this.#errored) return Promise.resolve(false);
    const id = this.#nextAsk++;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), SERVER_REPLACED_WAIT_MS);
      const settle = (ok: boolean) => {
        clearTimeout(timer);
        this.#asks.delete(id);
        resolve(ok);
      };
      this.#asks.set(id, settle);
      this.#send({ type: 'server-replaced', id });
    });
  }

  #startHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#lastPong = Date.now();
    this.#lastTick = Date.now();
    this.#heartbeat = setInterval(() => {
      const now = Date.now();
      // The page was busy, not (necessarily) the preview: the preview gets a fresh window to answer.
      // Before, a page busy for 3 s under load ended a healthy first preview ("stopped responding"):
      // the status said Ready and no preview came until the next build (e2e/open-fast.spec.ts).
      if (now - this.#lastTick > PAGE_STALL_MS) this.#lastPong = now;
      this.#lastTick = now;
      if (now - this.#lastPong > (this.#loaded ? HEARTBEAT_MS * 3 : START_PATIENCE_MS)) {
        clearInterval(this.#heartbeat);
        this.#events.onUnresponsive?.();
        return;
      }
      this.#send({ type: 'ping', at: Date.now() });
    }, HEARTBEAT_MS);
  }

  async #handle(message: FrameMessage): Promise<void> {
    switch (message.type) {
      case 'pong':
        this.#lastPong = Date.now();
        return;
      case 'loaded':
        // Its thread ran just now: the pings it could not answer while its code was evaluated are still
        // queued behind this message, and a beat before their pongs arrive must not count that time
        // against the shorter patience of a loaded preview (seen ending a preview whose code took 4.5 s
        // to start, on a loaded machine).
        this.#lastPong = Date.now();
        this.#loaded = true;
        this.#events.onLoaded?.();
        return;
      case 'server-replaced':
        this.#asks.get(message.id)?.(message.ok);
        return;
      case 'client-error':
        this.#errored = true;
        this.#events.onError?.(message.message, message.stack);
        return;
      case 'console':
        this.#events.onConsole?.({ persona: this.persona, level: message.level, message: message.message, stack: message.stack });
        return;
      case 'call': {
        const { id, kind, name } = message;
        const started = performance.now();
        const outcome = await this.#runtime.call(this.persona, kind, name, message.input);
        this.#events.onCall?.({ persona: this.persona, operation: `${kind} ${name}`, status: outcome.status, durationMs: performance.now() - started });
        if (outcome.error) this.#send({ type: 'error', id, error: { status: outcome.status, ...outcome.error } });
        else this.#send({ type: 'result', id, result: outcome.result });
        return;
      }
      case 'fetch': {
        const { id, method } = message;
        const started = performance.now();
        let request: Request;
        try {
          request = new Request(appUrl(message.path), { method, headers: message.headers, ...(message.body ? { body: message.body } : {}) });
        } catch (error) {
          // A request no browser would send (a header name or value `Request` refuses): the frame's fetch
          // fails as a browser's would, with the client's code for a fetch that never reached the server.
          this.#send({ type: 'error', id, error: { status: 0, code: 'network_error', message: `The request could not be made: ${error instanceof Error ? error.message : String(error)}`, errorId: '' } });
          return;
        }
        const response = await this.#runtime.fetch(this.persona, request);
        reportFetch(this.#events, { persona: this.persona, operation: operationOf(method, new URL(request.url).pathname), status: response.status, durationMs: performance.now() - started }, response);
        this.#send({ type: 'response', id, status: response.status, headers: [...response.headers], hasBody: response.body !== null });
        if (response.body) void this.#pump(id, response.body.getReader());
        return;
      }
      case 'cancel-body':
        this.#bodies.get(message.id)?.cancel();
        this.#bodies.delete(message.id);
        return;
      case 'download':
        // Anyone holding the port can send this (app code can capture it): only a person's click counts.
        if (!(await personActingSoonIn(this.iframe))) {
          const name = message.name ? `${message.name.slice(0, 100)} from ` : '';
          this.#events.onNotice?.(`The preview asked to save ${name}${message.path.slice(0, 200)} without a click in it: refused.`);
          return;
        }
        void this.#download(message.path, message.name);
        return;
      case 'sign-in':
      case 'sign-out':
        if (this.#events.onAuthAsk) this.#events.onAuthAsk(message.type);
        else this.#events.onNotice?.(authAskText(message.type));
        return;
      case 'external-link':
        this.#events.onNotice?.(`The preview does not follow links out of the app (${message.href.slice(0, 200)}).`);
        return;
      default: {
        const unknown: never = message;
        void unknown;
      }
    }
  }

  /** Sends a response body to the preview as it is read: a stream keeps flowing chunk by chunk. */
  async #pump(id: number, reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    // No backpressure on this port: the frame's bootstrap queues what arrives for the app's reader.
    const sender = new BodySender(reader, bodyPoster<ArrayBuffer>(id, (message, transfer) => this.#send(message, transfer), (bytes) => bytes.buffer as ArrayBuffer), Infinity);
    this.#bodies.set(id, sender);
    try {
      await sender.run();
    } finally {
      this.#bodies.delete(id);
    }
  }

  /**
   * A link into the app that a person clicked in the preview: a public file, or what the app answers
   * to GET as this persona, offered to the person to save (the preview itself cannot navigate or
   * download, and what it asks is not saved until the person says so in the playground).
   */
  async #download(path: string, name: string): Promise<void> {
    const url = appUrl(path);
    const asset = this.#assets[url.pathname];
    let bytes: Uint8Array | string;
    let type: string;
    let filename = name || safeDecode(url.pathname.split('/').pop() || '') || 'download';
    if (asset) ({ text: bytes, type } = asset);
    else {
      const started = performance.now();
      const response = await this.#runtime.fetch(this.persona, new Request(url, { method: 'GET' }));
      this.#events.onCall?.({ persona: this.persona, operation: `GET ${url.pathname}`, status: response.status, durationMs: performance.now() - started });
      if (!response.ok) {
        this.#events.onNotice?.(`GET ${url.pathname} answered ${response.status}: nothing to download.`);
        return;
      }
      bytes = new Uint8Array(await response.arrayBuffer());
      type = response.headers.get('content-type') ?? 'application/octet-stream';
      filename = name || dispositionName(response.headers.get('content-disposition')) || filename;
    }
    const size = typeof bytes === 'string' ? new TextEncoder().encode(bytes).length : bytes.length;
    const save = () => {
      downloadBytes(filename, bytes, type);
      this.#events.onNotice?.(`Downloaded ${filename} (${size} bytes) from ${url.pathname}.`);
    };
    this.#events.onOffer?.({ persona: this.persona, filename, path: url.pathname, type, size, save });
  }

  destroy(): void {
    for (const settle of [...this.#asks.values()]) settle(false);
    this.#disconnect?.();
    this.#disconnect = undefined;
    for (const sender of this.#bodies.values()) sender.cancel();
    this.#bodies.clear();
    clearInterval(this.#heartbeat);
    this.#port.close();
    this.iframe.remove();
  }
}
