/**
 * The previews' calls that go straight to the runtime worker: the page makes a port per preview, tags
 * its worker end with the preview's persona (the page's word, never the preview's) and hands the other
 * end to the preview. The worker runs them in turn with the page's requests and says when each begins
 * (the host's watchdog watches it as it watches the page's own) and ends (its report, its Events
 * entry, its writes). A call that wrote is answered here once its commit is durable; a query never
 * waits for it. A restart gives every connected preview a port to the new worker.
 */
import type { PersonaName } from '../../core/runtime';
import type { Watchdog } from '../../core/host';
import { decodeJson, type CallAnswer } from '../../modules/wire';
import { previewAnswer, type RuntimeMessage, type RuntimeRequest, type TableSet } from '../../../worker/protocol/runtime';
import type { PreviewLink } from '../preview/preview-frame';
import { failure } from './runtime-jobs';
import type { SandboxFrame } from './sandbox-frame';

/** A connected preview: its persona and the calls of it the worker began. */
interface ConnectedPreview {
  persona: PersonaName;
  link: PreviewLink;
  /** Calls on its port the worker began and the page answers (they wrote, or were interrupted). */
  ran: Set<number>;
  /** Disconnected: calls it sent before may still run in this worker (kept until the worker goes). */
  closed: boolean;
}

/** A preview's call the worker began and has not ended: what runs in the sandbox now. */
export interface PreviewFlight {
  preview: number;
  id: number;
  persona: PersonaName;
  operation: string;
  began: number;
  /** Where its handler is in the server bundle (a stack frame's place), when the worker found it. */
  at?: string;
}

/** What the previews' calls need of the runtime host. */
export interface PreviewCallsHost {
  /** The worker's sandbox now (starting or running), if any. */
  frame(): SandboxFrame | undefined;
  readonly watchdog: Watchdog<number | PreviewFlight>;
  /** What runs in the sandbox changed. */
  activity(): void;
  /** Runs `answer` once every commit so far is durable. */
  afterDurable(answer: () => void): Promise<void>;
  /** A call's encoded report (console lines, failure), to the report listeners. */
  report(persona: PersonaName, operation: string, encoded: string | undefined): void;
  /** What a successful call wrote, to the write listeners. */
  wrote(wrote: TableSet, persona: PersonaName): void;
}

export class PreviewCalls {
  readonly #host: PreviewCallsHost;
  readonly #previews = new Map<number, ConnectedPreview>();
  #next = 1;
  /** A preview's call running in the sandbox (the page's own request, if any, waits behind it). */
  #flight: PreviewFlight | undefined;

  constructor(host: PreviewCallsHost) {
    this.#host = host;
  }

  /** The preview's call that runs in the sandbox now, if any. */
  get flight(): PreviewFlight | undefined {
    return this.#flight;
  }

  /**
   * Connects a preview as `persona` (given a port to the worker now when `attachNow`, and after every
   * restart). Returns the disconnection (the worker closes its end).
   */
  connect(persona: PersonaName, link: PreviewLink, attachNow: boolean): () => void {
    const key = this.#next++;
    const preview: ConnectedPreview = { persona, link, ran: new Set(), closed: false };
    this.#previews.set(key, preview);
    if (attachNow) this.#attach(key, preview);
    return () => {
      if (preview.closed) return;
      preview.closed = true;
      this.#host.frame()?.post({ type: 'preview-close', preview: key } satisfies RuntimeRequest);
    };
  }

  /** Gives every connected preview a port to the worker that now runs. */
  attachAll(): void {
    for (const [key, preview] of this.#previews) if (!preview.closed) this.#attach(key, preview);
  }

  #attach(key: number, preview: ConnectedPreview): void {
    const frame = this.#host.frame();
    if (!frame) return;
    const channel = new MessageChannel();
    frame.post({ type: 'preview-port', preview: key, persona: preview.persona } satisfies RuntimeRequest, [channel.port1]);
    preview.link.attach(channel.port2);
  }

  /**
   * The worker goes: calls it had not begun go through the page until the next one (each preview is
   * told which of its calls the worker began); disconnected previews are forgotten.
   */
  detachAll(): void {
    for (const [key, preview] of this.#previews) {
      if (preview.closed) this.#previews.delete(key);
      else preview.link.detach([...preview.ran]);
      preview.ran.clear();
    }
  }

  /** Forgets the call in flight (its worker is gone). */
  dropFlight(): void {
    this.#flight = undefined;
  }

  /** Answers the preview's call in flight with a failure, as the wire route's through the page would be: true when there was one. */
  interrupt(status: number, code: string, message: string): boolean {
    const running = this.#flight;
    if (!running) return false;
    this.#flight = undefined;
    this.#host.activity();
    this.#host.watchdog.close(running);
    const preview = this.#previews.get(running.preview);
    preview?.ran.delete(running.id);
    // No tables read or written.
    preview?.link.answer(previewAnswer(running.id, { status, error: failure(status, code, message).error! }));
    preview?.link.onCall({ persona: running.persona, operation: running.operation, status, durationMs: performance.now() - running.began });
    return true;
  }

  /** A preview's call began in the sandbox: watched as the page's own are (the worker is alive). */
  began(message: Extract<RuntimeMessage, { type: 'preview-began' }>): void {
    this.#host.watchdog.progress();
    const preview = this.#previews.get(message.preview);
    if (!preview) return;
    preview.ran.add(message.id);
    const flight: PreviewFlight = { preview: message.preview, id: message.id, persona: preview.persona, operation: `${message.kind} ${message.name}`, began: performance.now(), ...(message.at ? { at: message.at } : {}) };
    this.#flight = flight;
    this.#host.activity();
    this.#host.watchdog.open(flight);
  }

  /**
   * A preview's call ended: its report, its Events entry and its writes, as for a call through the
   * page; one that wrote is answered here, once its commit (sent ahead of this) is durable.
   */
  called(message: Extract<RuntimeMessage, { type: 'preview-called' }>): void {
    const flight = this.#flight;
    if (flight?.preview === message.preview && flight.id === message.id) {
      this.#host.watchdog.close(flight);
      this.#flight = undefined;
      this.#host.activity();
    }
    this.#host.watchdog.progress();
    const preview = this.#previews.get(message.preview);
    if (!preview) return;
    const { persona } = preview;
    const operation = `${message.kind} ${message.name}`;
    this.#host.report(persona, operation, message.report);
    const ended = () => {
      preview.link.onCall({ persona, operation, status: message.status, durationMs: message.durationMs });
      if (message.status === 200) this.#host.wrote(message.wrote, persona);
    };
    const relay = message.relay;
    if (!relay) {
      preview.ran.delete(message.id);
      ended();
      return;
    }
    let answer: CallAnswer;
    try {
      answer = { ...relay, ...(relay.result !== undefined ? { result: decodeJson(relay.result) } : {}) };
    } catch {
      answer = { status: 502, error: failure(502, 'runtime_protocol_error', 'The runtime answered with a result that is not wire JSON.').error! };
    }
    void this.#host.afterDurable(() => {
      preview.ran.delete(message.id);
      if (this.#previews.get(message.preview) === preview) preview.link.answer(previewAnswer(message.id, answer));
      ended();
    });
  }
}
