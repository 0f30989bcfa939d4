/** Messages between `platform test` (Node) and a test worker thread. */
import type { Manifest } from '../../core/manifest';
import type { TestEvent } from '../../core/testing/events';

export interface RunFileMessage {
  type: 'run';
  file: string;
  manifest: Manifest;
  /** File paths of the bundles written for this run. */
  serverPath: string;
  testPath: string;
  testMap: string;
  /** Tests already run (or stopped) by an earlier worker for this file. */
  skip: string[];
  only?: string;
  timeoutMs: number;
}

export type WorkerMessage =
  | { type: 'start'; name: string; location?: string }
  | { type: 'event'; event: TestEvent }
  | { type: 'done' };
