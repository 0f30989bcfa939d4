/**
 * An owner's reads of a hosted app's data, answered inside its engine (worker/workerd-app.ts) between
 * calls: the tables with their schema and row counts (and a page of one table's rows), and the state
 * export. The control plane asks under INSPECT_PREFIX, a path it never forwards for a visitor.
 */
import type { InspectResult } from './runtime';
import type { ExportPage } from '../../src/core/state';

export const INSPECT_PREFIX = '/__platform/inspect/';

export type HostedInspection =
  | (Extract<InspectResult, { kind: 'overview' }> & { rows?: Extract<InspectResult, { kind: 'rows' }> })
  /** One page of the state export (core exportPage). */
  | { kind: 'export-page'; page: ExportPage }
  | { kind: 'refused'; message: string };
