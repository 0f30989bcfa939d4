/** Runs `work` when the page is idle (at most `timeout` ms later). */
export function whenIdle(work: () => void, timeout = 1000): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(work, { timeout });
  else setTimeout(work, 200);
}
