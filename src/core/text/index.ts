/** Text helpers: spans, suggestions and wrapping. The folder's entry: what the rest of the code base imports of it. */
export { LineIndex } from './positions.ts';
export { didYouMean } from './suggest.ts';
