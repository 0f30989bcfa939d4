/**
 * The playground's layout, kept per project in localStorage and restored on reload: the bottom panel
 * (which one, its height, open, collapsed or maximised), split view and its pair of personas, the
 * widths of the file tree (or a lesson's text) and the editor, and the device size the previews are drawn at. What is stored is checked field by field: a value that is
 * missing, of the wrong type or out of range falls back to its default, so an old or hand-edited entry
 * never breaks the page.
 */
import { PERSONA_NAMES, type PersonaName } from '../../core/runtime';
import { projectEntry } from '../project-entry';

export const PANELS = ['problems', 'console', 'tests', 'events', 'data', 'deploy', 'terminal'] as const;
export type PanelName = (typeof PANELS)[number];
export type PanelState = 'open' | 'collapsed' | 'maximised';
/** The size the previews are drawn at: the pane's own, a phone's or a tablet's (preview-pane.tsx). */
export const DEVICES = ['full', 'phone', 'tablet'] as const;
export type Device = (typeof DEVICES)[number];

export interface Layout {
  panel: PanelName;
  panelState: PanelState;
  /** The open bottom panel's height in pixels. */
  panelHeight: number;
  split: boolean;
  /** The persona of split view's second preview (the first is the selected persona). */
  second: PersonaName;
  tree: number;
  /** What the first column shows in a project with a lesson: the lesson or the file tree; and the column's width for the lesson. */
  side: 'lesson' | 'files';
  lesson: number;
  editor: number;
  /** The editor wraps long lines. */
  wrap: boolean;
  device: Device;
}

export const DEFAULT_LAYOUT: Layout = { panel: 'problems', panelState: 'open', panelHeight: 150, split: false, second: 'bob', tree: 220, side: 'lesson', lesson: 360, editor: 640, wrap: false, device: 'full' };

/** Sizes outside these are not restored (a stored 0 or 1e9 would hide a pane). */
const LIMITS = { panelHeight: [80, 4000], tree: [120, 2000], lesson: [200, 2000], editor: [120, 4000] } as const;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

function size(value: unknown, [low, high]: readonly [number, number], fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= low && value <= high ? Math.round(value) : fallback;
}

/** A layout from whatever was stored (parsed JSON, or anything else). */
export function parseLayout(stored: unknown): Layout {
  const raw = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const d = DEFAULT_LAYOUT;
  return {
    panel: oneOf(raw.panel, PANELS, d.panel),
    panelState: oneOf(raw.panelState, ['open', 'collapsed', 'maximised'] as const, d.panelState),
    panelHeight: size(raw.panelHeight, LIMITS.panelHeight, d.panelHeight),
    split: typeof raw.split === 'boolean' ? raw.split : d.split,
    second: oneOf(raw.second, PERSONA_NAMES, d.second),
    tree: size(raw.tree, LIMITS.tree, d.tree),
    side: oneOf(raw.side, ['lesson', 'files'] as const, d.side),
    lesson: size(raw.lesson, LIMITS.lesson, d.lesson),
    editor: size(raw.editor, LIMITS.editor, d.editor),
    wrap: typeof raw.wrap === 'boolean' ? raw.wrap : d.wrap,
    device: oneOf(raw.device, DEVICES, d.device),
  };
}

/** The second persona split view shows beside `selected`: the chosen one, or another when they are the same. */
export function secondPersona(selected: PersonaName, chosen: PersonaName): PersonaName {
  if (chosen !== selected) return chosen;
  return PERSONA_NAMES.find((name) => name !== selected)!;
}

/** The layout kept per project (`platform-layout:<id>`); one that cannot be read is the default. */
const layouts = projectEntry('platform-layout', parseLayout, () => DEFAULT_LAYOUT);
export const loadLayout = layouts.load;
export const saveLayout = layouts.save;
/** A deleted project's layout goes with it. */
export const forgetLayout = layouts.forget;
