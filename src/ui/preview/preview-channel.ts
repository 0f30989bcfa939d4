/**
 * A preview in a tab of its own ("Open in new tab"): the tab runs the same sandboxed preview frame
 * (preview-frame.ts: opaque origin, the same CSP, the persona bound on the trusted side), and its
 * calls reach the app's one runtime, in the playground tab that has the project open, over a
 * BroadcastChannel of the playground's origin. One runtime, so one set of data: what the tab writes,
 * the playground's previews and Data panel see, and the other way round.
 *
 * The channel carries only the playground's own messages: the app's code runs in the tab's sandboxed
 * frame, an opaque origin that cannot open a channel of this origin.
 */
import { isPersona, type PersonaName } from '../../core/runtime';
import { operationOf, reportFetch, type PreviewEvents, type PreviewLoad, type PreviewRuntime } from './preview-frame';
import { BodySender, bodyPoster, bodyReceiver, deliverBody, type BodyIn, type BodyMessage } from '../../core/host';

/** What a preview loads: the client bundle and what the page around it says. */
export interface PreviewApp extends PreviewLoad {
  /** The build it comes from: a new number loads the preview again. */
  number: number;
  /**
   * The build whose client it shows (the same as an earlier `number` when only the server changed
   * since): the playground's own previews keep their page then (preview-pane.tsx).
   */
  client: number;
}

type CallOutcome = Awaited<ReturnType<PreviewRuntime['call']>>;

/** A preview tab → the playground tab. `client` is the tab's own random id. */
export type TabRequest =
  | { type: 'hello'; client: string }
  | { type: 'ping'; client: string }
  | { type: 'bye'; client: string }
  | { type: 'call'; client: string; id: number; persona: PersonaName; kind: 'query' | 'mutation'; name: string; input: unknown }
  | { type: 'fetch'; client: string; id: number; persona: PersonaName; method: string; url: string; headers: Array<[string, string]>; body: ArrayBuffer | null }
  | { type: 'cancel'; client: string; id: number };

/** The playground tab → preview tabs. */
export type ServerMessage =
  /** The app to show (to everyone: on a hello and on every new build); none while nothing has built. */
  | { type: 'app'; app: PreviewApp | null }
  /** The playground tab closed the project: the previews wait for it to be opened again. */
  | { type: 'closed' }
  | { type: 'called'; client: string; id: number; outcome: CallOutcome }
  | { type: 'head'; client: string; id: number; status: number; headers: Array<[string, string]>; hasBody: boolean }
  | (BodyMessage<ArrayBuffer> & { client: string });

export const channelName = (projectId: string) => `platform-preview:${projectId}`;

/** The URL of a project's preview tab as `persona` (a route of the playground's own page). */
export function previewTabHref(projectId: string, persona: PersonaName, base: Pick<Location, 'origin' | 'pathname'> = location): string {
  return `${base.origin}${base.pathname}#/p/${projectId}/preview/${persona}`;
}

/** `{ projectId, persona }` of a preview tab's hash, or undefined. */
export function previewTabRoute(hash: string): { projectId: string; persona: PersonaName } | undefined {
  const match = /^#\/p\/([A-Za-z0-9_-]+)\/preview\/([a-z]+)$/.exec(hash);
  if (!match || !isPersona(match[2])) return undefined;
  return { projectId: match[1]!, persona: match[2] };
}

/** A tab not heard from for this long (it pings every PING_MS) is gone: its open bodies are cancelled. */
export const CLIENT_TIMEOUT_MS = 15_000;
export const PING_MS = 3_000;

/**
 * Serves the project's preview tabs from the playground tab: the app each should show and their
 * calls to the runtime. `changed()` after a new build; `close()` when the project closes.
 */
export function servePreviewTabs(projectId: string, runtime: PreviewRuntime, app: () => PreviewApp | undefined, events: Pick<PreviewEvents, 'onCall' | 'onLiveOff'> = {}): { changed(): void; close(): void } {
  const channel = new BroadcastChannel(channelName(projectId));
  const send = (message: ServerMessage) => channel.postMessage(message);
  /** Open response bodies by client, and when each client was last heard from. */
  const clients = new Map<string, { seen: number; bodies: Map<number, BodySender> }>();
  const clientOf = (id: string) => {
    let known = clients.get(id);
    if (!known) clients.set(id, (known = { seen: Date.now(), bodies: new Map() }));
    known.seen = Date.now();
    return known;
  };
  const drop = (id: string) => {
    for (const sender of clients.get(id)?.bodies.values() ?? []) sender.cancel();
    clients.delete(id);
  };
  const sweep = setInterval(() => {
    for (const [id, known] of clients) if (Date.now() - known.seen > CLIENT_TIMEOUT_MS) drop(id);
  }, PING_MS);
  const announce = () => {
    const current = app();
    send({ type: 'app', app: current ? { ...current } : null });
  };

  channel.onmessage = (event: MessageEvent<TabRequest>) => {
    const request = event.data;
    if (typeof request !== 'object' || request === null || typeof request.client !== 'string') return;
    const client = clientOf(request.client);
    switch (request.type) {
      case 'hello':
        announce();
        return;
      case 'ping':
        return;
      case 'bye':
        drop(request.client);
        return;
      case 'cancel':
        client.bodies.get(request.id)?.cancel();
        client.bodies.delete(request.id);
        return;
      case 'call':
        if (!isPersona(request.persona)) return;
        const kind = request.kind === 'mutation' ? 'mutation' : 'query';
        const started = performance.now();
        void runtime.call(request.persona, kind, String(request.name), request.input).then((outcome) => {
          events.onCall?.({ persona: request.persona, operation: `${kind} ${String(request.name)}`, status: outcome.status, durationMs: performance.now() - started });
          send({ type: 'called', client: request.client, id: request.id, outcome });
        });
        return;
      case 'fetch': {
        if (!isPersona(request.persona)) return;
        const { id } = request;
        void (async () => {
          let response: Response;
          const started = performance.now();
          const url = new URL(request.url, 'http://app.local/');
          try {
            response = await runtime.fetch(request.persona, new Request(url, { method: request.method, headers: request.headers, ...(request.body ? { body: request.body } : {}) }));
          } catch (error) {
            response = new Response(JSON.stringify({ error: String(error) }), { status: 400 });
          }
          reportFetch(events, { persona: request.persona, operation: operationOf(request.method, url.pathname), status: response.status, durationMs: performance.now() - started }, response);
          send({ type: 'head', client: request.client, id, status: response.status, headers: [...response.headers], hasBody: response.body !== null });
          if (!response.body) return;
          // No backpressure over the channel: the tab queues what arrives for its reader.
          const sender = new BodySender(response.body.getReader(), bodyPoster<ArrayBuffer>(id, (message) => send({ ...message, client: request.client }), (bytes) => bytes.buffer as ArrayBuffer), Infinity);
          client.bodies.set(id, sender);
          try {
            await sender.run();
          } finally {
            client.bodies.delete(id);
          }
        })();
        return;
      }
      default:
        return;
    }
  };
  return {
    changed: announce,
    close() {
      clearInterval(sweep);
      for (const id of [...clients.keys()]) drop(id);
      send({ type: 'closed' });
      channel.close();
    },
  };
}

/**
 * The preview tab's side: a PreviewRuntime whose calls go to the playground tab, and the app it
 * announces. Calls made while no playground tab answers wait for one (the tab may be reloading).
 */
export class PreviewTabClient implements PreviewRuntime {
  readonly #channel: BroadcastChannel;
  readonly #client = `tab_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  #next = 1;
  readonly #calls = new Map<number, (outcome: CallOutcome) => void>();
  readonly #heads = new Map<number, (response: Response) => void>();
  readonly #bodies = new Map<number, BodyIn>();
  readonly #ping: ReturnType<typeof setInterval>;

  constructor(projectId: string, onApp: (app: PreviewApp | null | 'closed') => void) {
    this.#channel = new BroadcastChannel(channelName(projectId));
    this.#channel.onmessage = (event: MessageEvent<ServerMessage>) => {
      const message = event.data;
      if (typeof message !== 'object' || message === null) return;
      if (message.type === 'app') return onApp(message.app);
      if (message.type === 'closed') return onApp('closed');
      if (message.client !== this.#client) return;
      switch (message.type) {
        case 'called':
          this.#calls.get(message.id)?.(message.outcome);
          this.#calls.delete(message.id);
          return;
        case 'head': {
          let stream: ReadableStream<Uint8Array> | null = null;
          if (message.hasBody) {
            const body = bodyReceiver(
              () => undefined,
              () => {
                this.#bodies.delete(message.id);
                this.#post({ type: 'cancel', client: this.#client, id: message.id });
              },
              Infinity,
            );
            this.#bodies.set(message.id, body);
            stream = body.stream;
          }
          this.#heads.get(message.id)?.(new Response(stream, { status: message.status, headers: message.headers }));
          this.#heads.delete(message.id);
          return;
        }
        case 'body-chunk':
        case 'body-end':
        case 'body-error':
          deliverBody(this.#bodies, message);
          return;
        default:
          return;
      }
    };
    this.#ping = setInterval(() => this.#post({ type: 'ping', client: this.#client }), PING_MS);
    this.hello();
  }

  /** Asks the playground tab for the app (again: after it said it closed, a reload may bring it back). */
  hello(): void {
    this.#post({ type: 'hello', client: this.#client });
  }

  #post(message: TabRequest): void {
    this.#channel.postMessage(message);
  }

  call(persona: PersonaName, kind: 'query' | 'mutation', name: string, input: unknown): Promise<CallOutcome> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#calls.set(id, resolve);
      this.#post({ type: 'call', client: this.#client, id, persona, kind, name, input });
    });
  }

  async fetch(persona: PersonaName, request: Request): Promise<Response> {
    const id = this.#next++;
    const body = request.method === 'GET' || request.method === 'HEAD' ? null : await request.arrayBuffer();
    return new Promise((resolve) => {
      this.#heads.set(id, resolve);
      this.#post({ type: 'fetch', client: this.#client, id, persona, method: request.method, url: request.url, headers: [...request.headers], body });
    });
  }

  close(): void {
    clearInterval(this.#ping);
    for (const controller of this.#bodies.values()) controller.error(new Error('The preview tab closed.'));
    this.#post({ type: 'bye', client: this.#client });
    this.#channel.close();
  }
}
