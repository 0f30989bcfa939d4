/** The quick preview: a project made runnable module by module (Sucrase) before the compiler starts, and its worker's host. The folder's entry: what the rest of the code base imports of it. */
export { quickBundle, quickLibrary, type QuickLibrary } from './quick-bundle.ts';
export { QuickPreviewHost, type QuickPreviewRequest, type QuickPreviewResponse } from './quick-preview-host.ts';
