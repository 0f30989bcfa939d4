/** Writes docs/diagnostics.md from the catalogue. */
import { writeFileSync } from 'node:fs';
import { catalogueMarkdown } from '../src/core/diagnostics';

writeFileSync(new URL('../docs/diagnostics.md', import.meta.url), catalogueMarkdown());
