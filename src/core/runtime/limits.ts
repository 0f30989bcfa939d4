/**
 * The limits a runtime enforces: the manifest's budgets and storage limits over the platform defaults.
 * Defaults the specification leaves open are decided here (docs/decisions.md).
 */
import type { Manifest } from '../manifest/index.ts';

export interface Limits {
  queryRows: number;
  mutationWrites: number;
  requestBytes: number;
  responseBytes: number;
  liveConnections: number;
  streamedBytes: number;
  maxObjectBytes: number;
  readBytes: number;
  writeBytes: number;
  /** How long one handler call may run. */
  handlerDeadlineMs: number;
  /** How long a streamed response may last. */
  streamLifetimeMs: number;
  /**
   * The bytes an app environment's database (its rows and stored objects) may grow to: a write that
   * would grow it past this is refused whole (507 storage_quota_exceeded). An operator's limit, not the manifest's.
   */
  maxStoredBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  queryRows: 1000,
  mutationWrites: 1000,
  requestBytes: 1024 * 1024,
  responseBytes: 4 * 1024 * 1024,
  liveConnections: 0,
  streamedBytes: 64 * 1024 * 1024,
  maxObjectBytes: 26214400,
  readBytes: 33554432,
  writeBytes: 33554432,
  handlerDeadlineMs: 10_000,
  streamLifetimeMs: 300_000,
  maxStoredBytes: 1024 * 1024 * 1024,
};

export function limitsOf(manifest: Manifest, overrides: Partial<Limits> = {}): Limits {
  return { ...DEFAULT_LIMITS, ...manifest.budgets, ...manifest.storage, ...overrides };
}

/** Counts what one handler call spends; every call starts from zero. */
export class Meter {
  rowsRead = 0;
  rowsWritten = 0;
  bytesRead = 0;
  bytesWritten = 0;
  readonly limits: Limits;

  constructor(limits: Limits) {
    this.limits = limits;
  }
}
