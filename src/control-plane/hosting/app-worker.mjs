// The bootstrap of an app worker thread: TypeScript through tsx, as in bin/platform.mjs.
import { register } from 'tsx/esm/api';

register();
await import('./app-worker.ts');
