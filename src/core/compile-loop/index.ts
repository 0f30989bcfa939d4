/** The compile loop of `platform dev` and the playground, and the playground's adaptive quiet window. The folder's entry: what the rest of the code base imports of it. */
export { AdaptiveQuietWindow } from './quiet-window.ts';
export { CompileLoop, type Built, type CompileLoopHost, type Promoted, type QuietPolicy, type Settled } from './compile-loop.ts';
