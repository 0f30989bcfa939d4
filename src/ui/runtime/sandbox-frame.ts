/**
 * The sandboxed iframe that hosts the runtime worker. `sandbox="allow-scripts"` without
 * `allow-same-origin` gives it an opaque origin: no IndexedDB, no cookies, no storage, no access to
 * the playground's DOM. Its CSP (inherited by its blob worker) allows no network at all, no eval, and
 * only the bootstrap script (by hash), blob: scripts and workers, and WebAssembly (sql.js).
 *
 * The bootstrap receives the sandbox's code and two MessagePorts from this page, starts the code as a
 * classic blob worker, hands the runtime port to it untouched and reports on the frame port a worker
 * that failed. It never runs the app's code itself: the app runs only in the worker, so a synchronous
 * loop blocks the worker's thread, never the page's.
 */
import { scriptHashSource } from '../csp';
import type { FrameBoot, FrameEvent } from '../../../worker/protocol/runtime';

/** The bootstrap, in the iframe. Plain ES2015+ script, no dependencies. */
const BOOTSTRAP = `addEventListener('message', function boot(event) {
  if (event.source !== parent || !event.data || event.data.type !== 'boot' || event.ports.length !== 2) return;
  removeEventListener('message', boot);
  var runtimePort = event.ports[0], framePort = event.ports[1];
  var worker;
  try {
    worker = new Worker(URL.createObjectURL(new Blob([event.data.code], { type: 'text/javascript' })), { name: 'platform-runtime' });
  } catch (error) {
    framePort.postMessage({ type: 'worker-error', message: 'The runtime worker could not start: ' + error });
    return;
  }
  worker.addEventListener('error', function (error) {
    framePort.postMessage({ type: 'worker-error', message: String(error.message || 'The runtime worker failed.') });
  });
  worker.postMessage({ type: 'port' }, [runtimePort]);
});`;

/**
 * The sandbox's Content-Security-Policy. `'wasm-unsafe-eval'` is needed to compile sql.js;
 * `blob:` in script-src lets the worker import the app's bundle from a blob: URL; nothing may connect.
 */
export const SANDBOX_CSP = [
  "default-src 'none'",
  `script-src ${scriptHashSource(BOOTSTRAP)} blob: 'wasm-unsafe-eval'`,
  'worker-src blob:',
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The iframe's document. */
export function sandboxDocument(): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${SANDBOX_CSP}"><script>${BOOTSTRAP}</script></head><body></body></html>`;
}

export interface SandboxFrameOptions {
  container: HTMLElement;
  /** The sandbox worker's code. */
  code: string;
  /** Every message the worker sends on the runtime port (unchecked: the caller validates). */
  onMessage(data: unknown): void;
  /** The worker failed (could not load, or threw something it did not handle). */
  onWorkerError(message: string): void;
}

/** One sandboxed iframe and its runtime worker. Single use: a restart makes a new one. */
export class SandboxFrame {
  readonly #iframe: HTMLIFrameElement;
  /** Where the iframe is. */
  readonly container: HTMLElement;
  readonly #runtime = new MessageChannel();
  readonly #frame = new MessageChannel();
  #disposed = false;
  /** Resolves when the iframe has loaded and been handed the worker's code and ports. */
  readonly booted: Promise<void>;

  constructor(options: SandboxFrameOptions) {
    const iframe = document.createElement('iframe');
    iframe.setAttribute('sandbox', 'allow-scripts');
    iframe.setAttribute('referrerpolicy', 'no-referrer');
    iframe.setAttribute('allow', '');
    iframe.setAttribute('aria-hidden', 'true');
    iframe.setAttribute('tabindex', '-1');
    iframe.title = 'Application runtime sandbox';
    iframe.style.display = 'none';
    iframe.srcdoc = sandboxDocument();
    this.#iframe = iframe;
    this.container = options.container;

    this.#runtime.port1.onmessage = (event) => {
      if (!this.#disposed) options.onMessage(event.data);
    };
    this.#frame.port1.onmessage = (event: MessageEvent<FrameEvent>) => {
      const data = event.data as unknown;
      if (this.#disposed || typeof data !== 'object' || data === null) return;
      const message = data as Partial<FrameEvent>;
      switch (message.type) {
        case 'worker-error':
          options.onWorkerError(typeof message.message === 'string' ? message.message.slice(0, 2000) : 'The runtime worker failed.');
          break;
        default:
          break;
      }
    };

    this.booted = new Promise<void>((resolve, reject) => {
      iframe.addEventListener(
        'load',
        () => {
          const target = iframe.contentWindow;
          if (this.#disposed || !target) {
            reject(new Error('The runtime sandbox was removed before it loaded.'));
            return;
          }
          const boot: FrameBoot = { type: 'boot', code: options.code };
          // The iframe's origin is opaque ("null"): '*' is the only target origin that reaches it.
          target.postMessage(boot, '*', [this.#runtime.port2, this.#frame.port2]);
          resolve();
        },
        { once: true },
      );
    });
    options.container.append(iframe);
  }

  /** Sends a message to the runtime worker. */
  post(message: unknown, transfer: Transferable[] = []): void {
    if (!this.#disposed) this.#runtime.port1.postMessage(message, transfer);
  }

  /** Removes the iframe, which ends its worker and whatever the app's code was doing. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#runtime.port1.close();
    this.#frame.port1.close();
    this.#iframe.remove();
  }
}
