// Which entry `platform` runs: the prebuilt CLI (build/cli/, see scripts/build-cli.ts) while none of the
// sources it was built from (build/cli/inputs.json) is newer than the build, else none (the sources).
import { readFileSync, statSync } from 'node:fs';

/** The prebuilt entry's URL under the checkout `root` (a URL ending in /), or undefined when it is missing or stale. */
export function prebuiltEntry(root) {
  try {
    const { builtAt, inputs } = JSON.parse(readFileSync(new URL('build/cli/inputs.json', root), 'utf8'));
    for (const input of inputs) if (statSync(new URL(input, root)).mtimeMs > builtAt) return undefined;
    return new URL('build/cli/main.js', root);
  } catch {
    return undefined;
  }
}
