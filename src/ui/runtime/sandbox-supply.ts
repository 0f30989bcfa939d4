/// <reference path="../../../worker/virtual-runtime-sandbox.d.ts" />
/**
 * Where the runtime host's sandboxes come from: sql.js's wasm, fetched once by the page (the sandbox
 * cannot fetch), and sandboxes loaded ahead of need, so that a start (or a restart after a stuck
 * handler) only has to start the app. The page prepares one before any project is open
 * (`prepareRuntime`); each host keeps one for its next start (`SpareSandboxes`).
 */
import sandboxCode from 'virtual:runtime-sandbox';
import wasmUrl from 'sql.js/dist/sql-wasm.wasm?url';
import type { RuntimeRequest } from '../../../worker/protocol/runtime';
import { SandboxFrame } from './sandbox-frame';

/** A sandbox loaded ahead of need, and where its messages go once a host takes it. */
export interface Spare {
  frame: SandboxFrame;
  /** Where its messages go: nowhere until a host takes it; `generation` -1 while spare. */
  owner: SpareOwner;
}

interface SpareOwner {
  /** The generation whose runtime this sandbox became (-1 while spare). */
  generation: number;
  message?(data: unknown): void;
  workerError?(message: string): void;
  /** The worker failed before a host took the sandbox: it is not taken. */
  failed?: boolean;
}

let wasmBytes: Promise<ArrayBuffer> | undefined;

/** sql.js's wasm, fetched once by the page (the sandbox cannot fetch). */
export function sqlWasm(): Promise<ArrayBuffer> {
  wasmBytes ??= fetch(wasmUrl).then((response) => {
    if (!response.ok) throw new Error(`sql.js's wasm could not be loaded (${response.status}).`);
    return response.arrayBuffer();
  });
  wasmBytes.catch(() => {
    wasmBytes = undefined;
  });
  return wasmBytes;
}

/**
 * A sandbox loaded ahead of need: its iframe and worker start, and once sql.js's wasm is here the
 * worker compiles it (`warm`), while nothing waits; a start then only loads the app. It holds no app
 * and is taken by one host, once (its worker refuses a second start).
 */
function loadSpare(container: HTMLElement): Spare {
  const owner: SpareOwner = { generation: -1 };
  const frame = new SandboxFrame({
    container,
    code: sandboxCode,
    onMessage: (data) => owner.message?.(data),
    onWorkerError: (message) => {
      if (owner.workerError) owner.workerError(message);
      else owner.failed = true;
    },
  });
  frame.booted.catch(() => undefined);
  void Promise.all([sqlWasm(), frame.booted])
    .then(([wasm]) => {
      const copy = wasm.slice(0);
      frame.post({ type: 'warm', wasm: copy } satisfies RuntimeRequest, [copy]);
    })
    .catch(() => undefined);
  return { frame, owner };
}

/** The sandbox prepared for the page's next project (prepareRuntime), until a host takes it. */
let pageSpare: Spare | undefined;

/**
 * Gets the runtime ready before any project is open (the start page, once idle): sql.js's wasm
 * fetched and a sandbox loaded with it compiled, which the next project's host takes as its first.
 */
export function prepareRuntime(): void {
  sqlWasm().catch(() => undefined);
  pageSpare ??= loadSpare(document.body);
}

/** The page's prepared sandbox, for a host whose sandboxes live in the page's body (once). */
function takePageSpare(container: HTMLElement): Spare | undefined {
  const spare = pageSpare;
  if (!spare || container !== spare.frame.container) return undefined;
  pageSpare = undefined;
  if (!spare.owner.failed) return spare;
  spare.frame.dispose();
  return undefined;
}

/** What a host gives its spares: its generation now, and where the current generation's messages go. */
export interface SpareRoute {
  generation(): number;
  receive(data: unknown): void;
  crashed(message: string): void;
}

/**
 * A host's sandbox for its next start, made ahead of need: its iframe loads and its worker starts
 * while nothing waits for it. Its messages go to whichever generation takes it, and only while that
 * generation is the host's current one.
 */
export class SpareSandboxes {
  readonly #container: HTMLElement;
  readonly #route: SpareRoute;
  #spare: Spare | undefined;

  constructor(container: HTMLElement, route: SpareRoute) {
    this.#container = container;
    this.#route = route;
  }

  /** Loads the spare (the page's prepared one, when it lives in this host's container), unless one is ready. */
  prepare(): void {
    if (this.#spare) return;
    const spare = takePageSpare(this.#container) ?? loadSpare(this.#container);
    const { owner } = spare;
    owner.message = (data) => {
      if (owner.generation === this.#route.generation()) this.#route.receive(data);
    };
    owner.workerError = (message) => {
      if (owner.generation === this.#route.generation()) this.#route.crashed(message);
    };
    this.#spare = spare;
  }

  /** The spare's sandbox, now the runtime of `generation` (loaded now when none was ready). */
  take(generation: number): SandboxFrame {
    this.prepare();
    const spare = this.#spare!;
    this.#spare = undefined;
    spare.owner.generation = generation;
    return spare.frame;
  }

  /** Removes the spare. */
  dispose(): void {
    this.#spare?.frame.dispose();
    this.#spare = undefined;
  }
}
