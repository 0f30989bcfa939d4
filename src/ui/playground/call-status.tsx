/**
 * What the app's runtime is running, once a call has run past a second: which operation, as whom and
 * for how long, against the deadline at which the runtime stops it. A handler stuck in a loop shows
 * here while it runs, instead of a status that says only "Ready".
 */
import { useEffect, useState } from 'preact/hooks';
import type { RunningCall } from '../runtime/runtime-host';

/** What the status reads from the runtime (RuntimeHost implements it). */
export interface CallActivity {
  readonly running: RunningCall | undefined;
  readonly deadlineMs: number;
  onActivity(listener: () => void): () => void;
}

/** A call is shown once it has run this long: quicker ones would only flicker. */
export const SHOW_AFTER_MS = 1000;

/** "query todos.remaining as alice: 3 s (the runtime stops it at 10 s)" */
export function runningText(call: RunningCall, elapsedMs: number, deadlineMs: number): string {
  const who = call.persona ? ` as ${call.persona}` : '';
  return `Running ${call.operation}${who}: ${Math.floor(elapsedMs / 1000)} s (stopped at ${Math.round(deadlineMs / 1000)} s)`;
}

export function CallStatus({ runtime }: { runtime: CallActivity }) {
  const [call, setCall] = useState<RunningCall | undefined>(runtime.running);
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => runtime.onActivity(() => setCall(runtime.running)), [runtime]);
  useEffect(() => {
    if (!call) return undefined;
    setNow(performance.now());
    const timer = setInterval(() => setNow(performance.now()), 250);
    return () => clearInterval(timer);
  }, [call]);
  const elapsed = call ? now - call.since : 0;
  if (!call || elapsed < SHOW_AFTER_MS) return null;
  return (
    <span class="call-status" role="status" data-testid="call-status" title="A call the app's runtime is running now; past its deadline the runtime stops it and restarts">
      {runningText(call, elapsed, runtime.deadlineMs)}
    </span>
  );
}
