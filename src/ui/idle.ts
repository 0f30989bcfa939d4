/** Runs `work` when the page is idle (at most `timeout` ms later), given the idle period's deadline if there is one. */
export function whenIdle(work: (deadline?: IdleDeadline) => void, timeout = 1000): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(work, { timeout });
  else setTimeout(work, 200);
}

/** Below this much of an idle period left, the next step waits for the next one. */
const SLICE_MS = 8;

/**
 * Runs `steps` one after another in the page's idle periods, as many in one period as fit (each
 * step is small), so an input event waits for one step at most, never for the whole list. A step
 * that cannot wait longer than `timeout` ms for an idle period runs then.
 */
export function whenIdleInSteps(steps: readonly (() => void)[], timeout = 1000): void {
  let next = 0;
  const run = (deadline?: IdleDeadline) => {
    do steps[next++]!();
    while (next < steps.length && deadline && !deadline.didTimeout && deadline.timeRemaining() > SLICE_MS);
    if (next < steps.length) whenIdle(run, timeout);
  };
  if (steps.length > 0) whenIdle(run, timeout);
}
