/**
 * A preview of the app as one persona: a sandboxed iframe (opaque origin, CSP without network) running
 * the client bundle. Its calls reach the runtime through this trusted side, which binds the persona:
 * code in the preview cannot choose whom it acts as.
 */
import type { PersonaName } from '../../core/runtime/personas';
import { previewDocument } from './bootstrap';

/** What a preview needs from the runtime (RuntimeHost implements it). */
export interface PreviewRuntime {
  call(persona: PersonaName, kind: 'query' | 'mutation', name: string, input: unknown): Promise<{ status: number; result?: unknown; error?: { code: string; message: string; errorId: string } }>;
  fetch(persona: PersonaName, request: Request): Promise<Response>;
}

export interface PreviewEvents {
  /** A call the preview made, with how it ended and how long it took. */
  onCall?(entry: { persona: PersonaName; operation: string; status: number; durationMs: number }): void;
  onError?(message: string): void;
  onLoaded?(): void;
  /** The preview stopped answering its heartbeat (a loop in client code). */
  onUnresponsive?(): void;
}

const HEARTBEAT_MS = 1000;

export class PreviewFrame {
  readonly iframe: HTMLIFrameElement;
  readonly persona: PersonaName;
  readonly #port: MessagePort;
  readonly #runtime: PreviewRuntime;
  readonly #events: PreviewEvents;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #lastPong = Date.now();
  /** The port handed to the preview when its document has loaded. */
  #pending: MessagePort | undefined;

  constructor(container: HTMLElement, persona: PersonaName, runtime: PreviewRuntime, events: PreviewEvents = {}) {
    this.persona = persona;
    this.#runtime = runtime;
    this.#events = events;
    this.iframe = document.createElement('iframe');
    this.iframe.setAttribute('sandbox', 'allow-scripts allow-forms');
    this.iframe.setAttribute('title', `Preview as ${persona}`);
    this.iframe.className = 'preview-frame';
    const channel = new MessageChannel();
    this.#port = channel.port1;
    this.#port.onmessage = (event) => void this.#handle(event.data as Record<string, unknown>);
    this.#pending = channel.port2;
    container.appendChild(this.iframe);
  }

  /** Loads (or reloads) the client bundle. */
  load(app: { code: string; css?: string; title: string; lang: string }): void {
    const port = this.#pending;
    this.iframe.onload = () => {
      if (!port) return;
      this.#pending = undefined;
      this.iframe.contentWindow?.postMessage({ type: 'init', code: app.code, css: app.css }, '*', [port]);
      this.#startHeartbeat();
    };
    this.iframe.srcdoc = previewDocument(app.lang, app.title);
  }

  /** Tells the client that other callers wrote these tables, so it refreshes its queries. */
  refresh(wrote: { tables: string[]; storage: boolean }): void {
    this.#port.postMessage({ type: 'refresh', wrote });
  }

  #startHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#lastPong = Date.now();
    this.#heartbeat = setInterval(() => {
      if (Date.now() - this.#lastPong > HEARTBEAT_MS * 3) {
        clearInterval(this.#heartbeat);
        this.#events.onUnresponsive?.();
        return;
      }
      this.#port.postMessage({ type: 'ping', at: Date.now() });
    }, HEARTBEAT_MS);
  }

  async #handle(message: Record<string, unknown>): Promise<void> {
    const id = message.id as number;
    switch (message.type) {
      case 'pong':
        this.#lastPong = Date.now();
        return;
      case 'loaded':
        this.#events.onLoaded?.();
        return;
      case 'client-error':
        this.#events.onError?.(String(message.message));
        return;
      case 'call': {
        const started = performance.now();
        const kind = message.kind === 'mutation' ? 'mutation' : 'query';
        const outcome = await this.#runtime.call(this.persona, kind, String(message.name), message.input);
        this.#events.onCall?.({ persona: this.persona, operation: `${kind} ${String(message.name)}`, status: outcome.status, durationMs: performance.now() - started });
        if (outcome.error) this.#port.postMessage({ type: 'error', id, error: { status: outcome.status, ...outcome.error } });
        else this.#port.postMessage({ type: 'result', id, result: outcome.result });
        return;
      }
      case 'fetch': {
        const started = performance.now();
        const method = String(message.method);
        const request = new Request(new URL(String(message.path), 'http://app.local/'), {
          method,
          headers: message.headers as Array<[string, string]>,
          ...(message.body ? { body: message.body as ArrayBuffer } : {}),
        });
        const response = await this.#runtime.fetch(this.persona, request);
        const body = await response.arrayBuffer();
        this.#events.onCall?.({ persona: this.persona, operation: `${method} ${new URL(request.url).pathname}`, status: response.status, durationMs: performance.now() - started });
        this.#port.postMessage({ type: 'response', id, status: response.status, headers: [...response.headers], body }, [body]);
        return;
      }
      default:
        return;
    }
  }

  destroy(): void {
    clearInterval(this.#heartbeat);
    this.#port.close();
    this.iframe.remove();
  }
}
