/** What the compile loops share: the adaptive quiet window. The folder's entry: what the rest of the code base imports of it. */
export { AdaptiveQuietWindow } from './quiet-window.ts';
