// The bootstrap of a test worker thread: TypeScript through tsx, as in bin/platform.mjs.
import { register } from 'tsx/esm/api';

register();
await import('./test-worker.ts');
