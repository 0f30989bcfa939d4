/**
 * A generation as the playground's session shows it: the core's generation (one servable build, its
 * manifest and its files by artifact path; src/core/generation) under the number the compile loop gave
 * it, with the number of the generation whose client it shows.
 */
import { type Generation, generationText, SERVER_BUNDLE } from '../../core/generation';

/** A build that compiled, numbered: what the runtime and the previews run. */
export interface NumberedGeneration extends Generation {
  number: number;
  /**
   * The generation whose client this one shows: its own number, or the one before's when the client
   * (its code, styles, public files, title and language: the core's `sameClient`) is the same, so that
   * only the server changed: the previews keep their pages and run their queries again (preview-pane.tsx).
   */
  client: number;
}

/** What the runtime starts from a generation: its manifest and its server's bundle. */
export function appOf(generation: Generation): { manifest: Generation['manifest']; serverCode: string } {
  return { manifest: generation.manifest, serverCode: generationText(generation, SERVER_BUNDLE) ?? '' };
}
