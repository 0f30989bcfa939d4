/**
 * What a command reports when the project's file system refused one of its writes (a link under
 * `.platform/`, say, in a cloned project): DG1813, the spec's code for local state that escapes its
 * container or traverses a link. `dev` and `preview` then stop; any other command answers with it (the
 * command line turns a refusal that reaches it into this envelope). Nothing was written through the link.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import { isWriteRefusal } from '../fs/index.ts';

/** The DG1813 diagnostic of a refused write, or undefined when `error` is another failure. */
export function refusedWriteDiagnostic(error: unknown): Diagnostic | undefined {
  if (!isWriteRefusal(error)) return undefined;
  const where = error.link ?? error.path;
  return diagnostic('DG1813', `${error.message} Nothing was written there.`, {
    hint: error.reason === 'link' ? `Remove the link ${where} (a project never needs links under .platform/), then run the command again.` : 'Report this: the platform asked to write outside the project.',
  });
}
