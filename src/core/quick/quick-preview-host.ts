/**
 * What the quick preview worker does (worker/quick-preview.worker.ts), without the worker: its
 * messages, and the host that answers them. Sent a share link's location first (by the page's first
 * script), it decodes the link and bundles its files at once; a later request for the same files is
 * answered with that bundle, any other is bundled then.
 */
import { sameFiles } from '../bytes.ts';
import type { QuickBundle } from './quick-bundle.ts';

type Files = Record<string, string | Uint8Array>;

export type QuickPreviewRequest =
  /** The page's location hash: a share link's files are decoded and bundled at once, before the page asks. */
  | { type: 'link'; hash: string }
  | { type: 'bundle'; id: number; files: Files };

export type QuickPreviewResponse =
  /** The preview's files (`server/index.js`, `client/app.js`, …), and the milliseconds the bundle took. */
  | { type: 'bundled'; id: number; files: Record<string, Uint8Array>; ms: number }
  /** The quick path declined the project (why, for the console): the compiler bundles it. */
  | { type: 'declined'; id: number; reason: string; ms: number };

type Made = { outcome: QuickBundle; ms: number };

export interface QuickPreviewParts {
  bundle(files: Files): Promise<QuickBundle>;
  /** The files of the share link a location hash names, undefined when it names none or does not decode. */
  linkFiles(hash: string): Promise<Files | undefined>;
  now?(): number;
}

export class QuickPreviewHost {
  readonly #parts: QuickPreviewParts;
  /** The link's files and their bundle, made before the page asked (undefined: no link, or it does not decode). */
  #fromLink: Promise<{ files: Files; made: Promise<Made> } | undefined> = Promise.resolve(undefined);

  constructor(parts: QuickPreviewParts) {
    this.#parts = parts;
  }

  /** The answer to a request (none to a link's location). Each answer's bytes are its own: the worker transfers them. */
  async answer(request: QuickPreviewRequest): Promise<QuickPreviewResponse | undefined> {
    if (request.type === 'link') {
      this.#fromLink = this.#parts.linkFiles(request.hash).then((files) => (files ? { files, made: this.#make(files) } : undefined));
      return undefined;
    }
    const { id, files } = request;
    const early = await this.#fromLink;
    const { outcome, ms } = await (early && sameFiles(early.files, files) ? early.made : this.#make(files));
    if (!outcome.ok) return { type: 'declined', id, reason: outcome.reason, ms };
    return { type: 'bundled', id, files: Object.fromEntries([...outcome.files].map(([path, bytes]) => [path, bytes.slice()])), ms };
  }

  #make(files: Files): Promise<Made> {
    const now = this.#parts.now ?? (() => performance.now());
    const started = now();
    return this.#parts.bundle(files).then(
      (outcome) => ({ outcome, ms: now() - started }),
      (error: unknown) => ({ outcome: { ok: false, reason: `the quick preview failed: ${error instanceof Error ? error.message : String(error)}` }, ms: now() - started }),
    );
  }
}
