/**
 * `<SplitPane>`: two panes and a handle between them. `direction="horizontal"` puts them side by side
 * (the handle is a vertical bar), `"vertical"` stacks them. The size is the first pane's, in pixels;
 * the second pane takes the rest.
 *
 * The handle is a focusable `separator`: drag it (pointer events, captured, so the drag survives
 * leaving the handle), or use the arrow keys (10 px, 50 px with Shift), Home/End for the limits.
 * `onSizeChange` is called when a drag ends and after each key, for the host to persist.
 *
 * With `anchor="second"` the size is the second pane's (a bottom panel: dragging the handle up makes it
 * taller, ArrowUp grows it); `fold` shrinks one pane away without unmounting either (the preview's frames
 * and the terminal live on): `"second"` keeps only the second pane's own height (a collapsed panel's tab
 * bar), `"first"` hides the first pane and gives the second all the room (a maximised panel).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface SplitPaneProps {
  direction: 'horizontal' | 'vertical';
  /** The first pane's size in pixels. Changes to it from the host are followed. */
  size: number;
  onSizeChange?(size: number): void;
  /** Limits of the first pane (pixels); the second pane keeps at least `minSecond`. */
  min?: number;
  max?: number;
  minSecond?: number;
  /** The handle's accessible name. */
  label?: string;
  children: [ComponentChildren, ComponentChildren];
  class?: string;
  /** Which pane `size` measures (default the first). */
  anchor?: 'first' | 'second';
  /** A pane folded away: the handle is hidden while folded. */
  fold?: 'first' | 'second';
}

const STEP = 10;
const BIG_STEP = 50;

export function SplitPane({ direction, size, onSizeChange, min = 120, max = Number.POSITIVE_INFINITY, minSecond = 160, label = 'Resize', children, class: className, anchor = 'first', fold }: SplitPaneProps) {
  const container = useRef<HTMLDivElement>(null);
  const [current, setCurrent] = useState(size);
  const [dragging, setDragging] = useState(false);
  const drag = useRef<{ start: number; size: number; pointer: number } | undefined>(undefined);
  const horizontal = direction === 'horizontal';
  // The pointer's movement grows the anchored pane when it moves away from the handle's side of it.
  const sign = anchor === 'second' ? -1 : 1;

  useEffect(() => setCurrent(size), [size]);

  /** The largest size the container allows now. */
  const upper = (): number => {
    const box = container.current?.getBoundingClientRect();
    const room = box ? (horizontal ? box.width : box.height) - (anchor === 'second' ? 0 : minSecond) : max;
    return Math.max(min, Math.min(max, room));
  };
  const clamp = (value: number) => Math.round(Math.max(min, Math.min(upper(), value)));

  // Keep within the container when the window shrinks.
  useEffect(() => {
    const element = container.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setCurrent((value) => clamp(value)));
    observer.observe(element);
    return () => observer.disconnect();
  }, [direction, min, max, minSecond]);

  const commit = (value: number) => {
    setCurrent(value);
    onSizeChange?.(value);
  };

  const onPointerDown = (event: PointerEvent) => {
    if (event.button !== 0) return;
    const handle = event.currentTarget as HTMLElement;
    handle.setPointerCapture(event.pointerId);
    handle.focus();
    drag.current = { start: horizontal ? event.clientX : event.clientY, size: current, pointer: event.pointerId };
    setDragging(true);
    event.preventDefault();
  };
  const onPointerMove = (event: PointerEvent) => {
    const state = drag.current;
    if (!state || state.pointer !== event.pointerId) return;
    setCurrent(clamp(state.size + sign * ((horizontal ? event.clientX : event.clientY) - state.start)));
  };
  const endDrag = (event: PointerEvent) => {
    const state = drag.current;
    if (!state || state.pointer !== event.pointerId) return;
    drag.current = undefined;
    setDragging(false);
    const value = clamp(state.size + sign * ((horizontal ? event.clientX : event.clientY) - state.start));
    commit(value);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.shiftKey ? BIG_STEP : STEP;
    const [toStart, toEnd] = horizontal ? ['ArrowLeft', 'ArrowRight'] : ['ArrowUp', 'ArrowDown'];
    const [less, more] = anchor === 'second' ? [toEnd, toStart] : [toStart, toEnd];
    let next: number | undefined;
    if (event.key === less) next = current - step;
    else if (event.key === more) next = current + step;
    else if (event.key === 'Home') next = min;
    else if (event.key === 'End') next = upper();
    if (next === undefined) return;
    event.preventDefault();
    commit(clamp(next));
  };

  const limit = Number.isFinite(upper()) ? upper() : undefined;
  const template =
    fold === 'first' ? '0 0 minmax(0, 1fr)' : fold === 'second' ? 'minmax(0, 1fr) 0 auto' : anchor === 'second' ? `minmax(0, 1fr) auto ${current}px` : `${current}px auto minmax(0, 1fr)`;
  return (
    <div
      ref={container}
      class={`ws-split ws-split-${direction}${dragging ? ' dragging' : ''}${fold ? ` ws-split-fold-${fold}` : ''}${className ? ` ${className}` : ''}`}
      style={{ [horizontal ? 'gridTemplateColumns' : 'gridTemplateRows']: template }}
    >
      <div class="ws-split-pane ws-split-first">
        {children[0]}
      </div>
      <div
        class="ws-split-handle"
        role="separator"
        tabIndex={0}
        aria-label={label}
        aria-orientation={horizontal ? 'vertical' : 'horizontal'}
        aria-valuenow={current}
        aria-valuemin={min}
        aria-valuemax={limit}
        data-testid="split-handle"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={endDrag}
        onPointerCancel={endDrag}
        onKeyDown={onKeyDown}
      />
      <div class="ws-split-pane ws-split-second">{children[1]}</div>
    </div>
  );
}
