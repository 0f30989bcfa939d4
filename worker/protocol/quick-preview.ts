/** Messages between the page and the quick preview worker (worker/quick-preview.worker.ts): the core's, as the bundler's are. */
export type { QuickPreviewRequest, QuickPreviewResponse } from '../../src/core/quick';
