/** The Console panel: one list of the app's console lines and uncaught errors, newest last, each a click away from its line. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Span } from '../../core/diagnostics';
import type { ConsoleEntry, ConsoleLog, ConsoleSource } from './console-log';

/** The sources the bar can show alone: the previews' client code, the server's handlers, the tests. */
const SOURCES: ReadonlyArray<{ source: ConsoleSource; label: string }> = [
  { source: 'client', label: 'Client' },
  { source: 'server', label: 'Server' },
  { source: 'test', label: 'Tests' },
];

/** `src/client/main.tsx:12:5` */
export function locationText(location: { file: string; span: Span }): string {
  return `${location.file}:${location.span.line}:${location.span.column}`;
}

export function ConsolePanel({ log, onOpen }: { log: ConsoleLog; onOpen(file: string, span: Span): void }) {
  const [all, setEntries] = useState<readonly ConsoleEntry[]>(log.entries);
  useEffect(() => log.subscribe(() => setEntries(log.entries)), [log]);
  // One source alone (a test run's output apart from the previews'), or everything.
  const [only, setOnly] = useState<ConsoleSource | undefined>();
  const entries = only ? all.filter((entry) => entry.source === only) : all;
  const list = useRef<HTMLOListElement>(null);
  // Follow the newest line, unless the person scrolled up to read.
  const following = useRef(true);
  useEffect(() => {
    const element = list.current;
    if (element && following.current) element.scrollTop = element.scrollHeight;
  }, [entries]);
  return (
    <div class="console">
      <div class="console-bar">
        <span class="muted">
          {all.length === 0
            ? 'Nothing logged yet: console.log in client code, server handlers or tests shows here.'
            : `${entries.length} line${entries.length === 1 ? '' : 's'}${only ? ` of ${all.length}` : ''}`}
        </span>
        <span class="console-actions">
          <span role="group" aria-label="Show lines from" class="console-sources">
            <button type="button" class="link" aria-pressed={only === undefined} onClick={() => setOnly(undefined)}>
              All
            </button>
            {SOURCES.map(({ source, label }) => (
              <button type="button" key={source} class="link" aria-pressed={only === source} onClick={() => setOnly(only === source ? undefined : source)}>
                {label}
              </button>
            ))}
          </span>
          <button type="button" class="link" onClick={() => log.clear()} disabled={all.length === 0}>
            Clear
          </button>
        </span>
      </div>
      <ol
        class="console-lines"
        aria-label="Console"
        ref={list}
        onScroll={(event) => {
          const element = event.currentTarget;
          following.current = element.scrollTop + element.clientHeight >= element.scrollHeight - 4;
        }}
      >
        {entries.map((entry) => (
          <li key={entry.id} class={`console-line level-${entry.level}`} data-source={entry.source} data-level={entry.level}>
            <span class="console-source">
              {entry.source}
              {entry.persona ? ` · ${entry.persona}` : ''}
            </span>
            <pre class="console-message">
              {entry.uncaught ? 'Uncaught ' : ''}
              {entry.context ? <span class="muted">{entry.context}: </span> : null}
              {entry.message}
            </pre>
            {entry.location && (
              <button type="button" class="link console-location" onClick={() => onOpen(entry.location!.file, entry.location!.span)}>
                {locationText(entry.location)}
              </button>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
