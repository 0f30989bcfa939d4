/** The Data panel's tools: stored objects, read-only SQL, a call as any persona, and the state tools. */
import { useEffect, useState } from 'preact/hooks';
import { PERSONA_NAMES, type PersonaName } from '../../core/runtime';
import { decodeJson, encodeJson } from '../../modules/wire';
import type { RuntimeErrorShape } from '../../modules/types';
import { noticeCodes, type ProjectSession } from '../playground/project-session';
import type { InspectResult, RuntimeHost } from '../runtime/runtime-host';
import { downloadBytes, safeFileName } from '../download';
import { exportedState } from '../share/share';
import type { OperationInfo, StoredObjectInfo } from '../../../worker/protocol/runtime';
import { GridView } from './grid-view';

const OBJECTS_PAGE = 100;

/** A refusal with its codes: `DG1824 state_import_schema_mismatch: …`. */
export function Refusal({ message, code, detailCode, testId }: { message: string; code?: string | undefined; detailCode?: string | undefined; testId?: string }) {
  return (
    <p role="alert" class="error-text" data-testid={testId} data-code={code} data-detail-code={detailCode}>
      {code && <strong>{code}</strong>}
      {code && detailCode ? ' ' : ''}
      {detailCode && <code>{detailCode}</code>}
      {code || detailCode ? ': ' : ''}
      {message}
    </p>
  );
}

/** "as [alice|bob|guest]": whom a call or an edit acts as. */
export function PersonaSelect({ value, onChange, label }: { value: PersonaName; onChange(persona: PersonaName): void; label: string }) {
  return (
    <label>
      as{' '}
      <select value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value as PersonaName)} aria-label={label}>
        {PERSONA_NAMES.map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </select>
    </label>
  );
}

export function StorageTool({ session, version }: { session: ProjectSession; version: number }) {
  const [pages, setPages] = useState<StoredObjectInfo[][]>([]);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const load = async (after?: string) => {
    const result = await session.inspect({ kind: 'storage-list', limit: OBJECTS_PAGE, ...(after !== undefined ? { after } : {}) });
    if (result.kind === 'refused') return setError(result.message);
    setError(undefined);
    setPages((current) => (after === undefined ? [result.objects] : [...current, result.objects]));
    setMore(result.more);
  };
  useEffect(() => void load(), [session, version]);
  const download = async (key: string) => {
    const result = await session.inspect({ kind: 'storage-get', key });
    if (result.kind === 'refused') return setError(result.message);
    if (!result.object) return setError(`"${key}" is no longer stored.`);
    downloadBytes(safeFileName(key.split('/').pop() ?? key, 'object'), result.object.bytes, result.object.contentType);
  };
  const objects = pages.flat();
  return (
    <div class="storage-tool">
      {error && <Refusal message={error} />}
      {objects.length === 0 ? (
        <p class="muted">No stored objects.</p>
      ) : (
        <table class="data-grid" aria-label="Stored objects">
          <thead>
            <tr>
              <th scope="col">key</th>
              <th scope="col">size</th>
              <th scope="col">content type</th>
              <th scope="col">uploaded</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {objects.map((o) => (
              <tr key={o.key}>
                <td>{o.key}</td>
                <td>{o.size} bytes</td>
                <td>{o.contentType}</td>
                <td>{new Date(o.uploadedAt).toLocaleString()}</td>
                <td>
                  <button type="button" class="link" onClick={() => void download(o.key)} aria-label={`Download ${o.key}`}>
                    Download
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more && (
        <button type="button" onClick={() => void load(objects.at(-1)?.key)}>
          More objects
        </button>
      )}
    </div>
  );
}

export function SqlTool({ session }: { session: ProjectSession }) {
  const [sql, setSql] = useState('SELECT * FROM sqlite_master');
  const [result, setResult] = useState<Extract<InspectResult, { kind: 'sql' | 'refused' }> | undefined>();
  const [running, setRunning] = useState(false);
  const run = async () => {
    setRunning(true);
    setResult(await session.inspect({ kind: 'sql', sql }));
    setRunning(false);
  };
  return (
    <div class="sql-tool">
      <label class="stacked">
        Read-only SQL against the dev database
        <textarea
          class="code-input"
          rows={3}
          spellcheck={false}
          value={sql}
          onInput={(e) => setSql((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
              e.preventDefault();
              e.stopPropagation();
              void run();
            }
          }}
        />
      </label>
      <button type="button" onClick={() => void run()} disabled={running}>
        Run SQL
      </button>
      <div data-testid="sql-result">{result?.kind === 'refused' ? <Refusal message={result.message} /> : result ? <GridView grid={result.grid} label="SQL result" /> : null}</div>
    </div>
  );
}

type CallShown = { ok: true; text: string } | ({ ok: false } & RuntimeErrorShape);

export function CallTool({ session, runtime, persona, operations }: { session: ProjectSession; runtime: RuntimeHost; persona: PersonaName; operations: OperationInfo[] }) {
  const [as, setAs] = useState<PersonaName>(persona);
  const [operation, setOperation] = useState<string>('');
  const [input, setInput] = useState('{}');
  const [shown, setShown] = useState<CallShown | { ok: false; invalid: string } | undefined>();
  const chosen = operations.find((o) => `${o.kind} ${o.name}` === operation) ?? operations[0];
  const run = async () => {
    if (!chosen) return;
    let value: unknown;
    try {
      value = input.trim() === '' ? undefined : decodeJson(input);
    } catch (error) {
      return setShown({ ok: false, invalid: `The input is not JSON: ${error instanceof Error ? error.message : String(error)}` });
    }
    const outcome = await runtime.call(as, chosen.kind, chosen.name, value);
    if (outcome.status === 200) {
      setShown({ ok: true, text: outcome.result === undefined ? '(no result)' : JSON.stringify(JSON.parse(encodeJson(outcome.result)), null, 2) });
      // The persona's own preview is not told about its writes by the host: it loads again.
      if (outcome.wrote.tables.length || outcome.wrote.storage) session.reloadPreviews();
    } else {
      const error = outcome.error ?? { code: 'unknown', message: 'The call failed.', errorId: '' };
      setShown({ ok: false, status: outcome.status, code: error.code, message: error.message, errorId: error.errorId });
    }
  };
  if (operations.length === 0) return <p class="muted">The server declares no queries or mutations.</p>;
  return (
    <div class="call-tool">
      <div class="call-row">
        <PersonaSelect value={as} onChange={setAs} label="Persona" />
        <label>
          operation{' '}
          <select value={chosen ? `${chosen.kind} ${chosen.name}` : ''} onChange={(e) => setOperation((e.target as HTMLSelectElement).value)} aria-label="Operation">
            {operations.map((o) => (
              <option key={`${o.kind} ${o.name}`} value={`${o.kind} ${o.name}`}>
                {o.kind} {o.name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void run()}>
          Run
        </button>
      </div>
      <label class="stacked">
        <span>
          Input (JSON; <code>{'{"$date": "…"}'}</code> for a date)
        </span>
        <textarea class="code-input" rows={4} spellcheck={false} value={input} onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)} aria-label="Input" />
      </label>
      <div data-testid="call-result">
        {shown === undefined ? null : shown.ok ? (
          <pre class="call-output ok">{shown.text}</pre>
        ) : 'invalid' in shown ? (
          <Refusal message={shown.invalid} />
        ) : (
          <p role="alert" class="error-text">
            <strong>
              {shown.status} {shown.code}
            </strong>
            : {shown.message} <span class="muted">{shown.errorId}</span>
          </p>
        )}
      </div>
    </div>
  );
}

type StateShown = { tone: 'info'; message: string } | { tone: 'error'; message: string; code?: string | undefined; detailCode?: string | undefined };

export function StateTools({ session, onChanged }: { session: ProjectSession; onChanged(): void }) {
  const [shown, setShown] = useState<StateShown | undefined>();
  const [busy, setBusy] = useState(false);
  const recovery = session.state.recovery;
  const act = async (work: () => Promise<StateShown>) => {
    setBusy(true);
    try {
      setShown(await work());
    } finally {
      setBusy(false);
      onChanged();
    }
  };
  const exportNow = () =>
    act(async () => {
      const exported = await exportedState(session);
      if (!exported.ok) return { tone: 'error', message: exported.message, code: exported.code, detailCode: exported.detailCode };
      const rows = Object.values(exported.document.tables).reduce((n, list) => n + list.length, 0);
      downloadBytes(`${safeFileName(session.state.generation?.manifest.name ?? session.state.project.title, 'app')}-state.json`, exported.text, 'application/json');
      return { tone: 'info', message: `Exported ${rows} record${rows === 1 ? '' : 's'} (platform.state-export.v0).` };
    });
  const importFile = (file: File) =>
    act(async () => {
      const result = await session.importState(await file.text());
      if (result.kind === 'refused') return { tone: 'error', message: result.message, ...noticeCodes(result) };
      const rows = Object.values(result.counts).reduce((a, b) => a + b, 0);
      return { tone: 'info', message: `Imported ${rows} record${rows === 1 ? '' : 's'} from ${file.name}; the previous records were replaced.` };
    });
  return (
    <div class="state-tools">
      <p class="muted">
        The app’s database records as a <code>platform.state-export.v0</code> document. Stored objects are not part of it.
      </p>
      <div class="state-actions">
        <button type="button" disabled={busy} onClick={() => void exportNow()}>
          Export state
        </button>
        <label class={`button-like ${busy ? 'disabled' : ''}`}>
          Import state…
          <input
            type="file"
            accept=".json,application/json"
            class="visually-hidden"
            data-testid="import-state"
            disabled={busy}
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              const file = input.files?.[0];
              input.value = '';
              if (file) void importFile(file);
            }}
          />
        </label>
        <button type="button" disabled={busy} onClick={() => void act(async () => (await session.resetData(), { tone: 'info', message: 'The data was reset; a recovery copy of what it held was kept.' }))}>
          Reset data
        </button>
        {recovery && (
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              void act(async () => {
                const restored = await session.restoreRecovery();
                return restored.ok ? { tone: 'info', message: 'The data from before the reset is back.' } : { tone: 'error', message: restored.message };
              })
            }
          >
            Restore the data from before the reset ({new Date(recovery.savedAt).toLocaleTimeString()})
          </button>
        )}
      </div>
      <div data-testid="state-result">
        {shown?.tone === 'error' ? <Refusal message={shown.message} code={shown.code} detailCode={shown.detailCode} /> : shown ? <p role="status">{shown.message}</p> : null}
      </div>
    </div>
  );
}
