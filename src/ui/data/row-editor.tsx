/**
 * The Data panel's row editor: a row's editable fields as text (typed by their declarations,
 * row-edit.ts), saved as a chosen persona through the runtime (`update-row`: the table API and its
 * policy, as the app's own mutations). A value refused here is never sent; a write the runtime
 * refuses shows its code and message and changes nothing.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { PersonaName } from '../../core/runtime';
import { encodeJson } from '../../modules/wire';
import type { ProjectSession } from '../playground/project-session';
import type { GridCell } from '../../../worker/protocol/runtime';
import { PersonaSelect, Refusal } from './data-tools';
import { editText, patchOf, type EditableField } from './row-edit';

export interface RowEditorProps {
  session: ProjectSession;
  table: string;
  id: string;
  /** The row as the grid holds it, by column. */
  values: Record<string, GridCell>;
  fields: EditableField[];
  /** The field to put the cursor in (the cell that was double-clicked). */
  focus?: string;
  /** Whom the edit acts as, first (the preview's persona). */
  persona: PersonaName;
  onSaved(message: string): void;
  onClose(): void;
}

type Shown = { kind: 'invalid'; field: string; message: string } | { kind: 'refused'; status?: number; code?: string; message: string };

export function RowEditor({ session, table, id, values, fields, focus, persona, onSaved, onClose }: RowEditorProps) {
  const start = useMemo(() => Object.fromEntries(fields.map((f) => [f.name, editText(values[f.name], f.type)])), [fields, values]);
  const [edited, setEdited] = useState<Record<string, string>>(start);
  const [as, setAs] = useState<PersonaName>(persona);
  const [shown, setShown] = useState<Shown | undefined>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    const target = form.current?.querySelector<HTMLElement>(`[data-field="${CSS.escape(focus ?? fields[0]?.name ?? '')}"]`);
    target?.focus();
  }, [id, focus]);

  const save = async (event: Event) => {
    event.preventDefault();
    const patch = patchOf(fields, start, edited);
    if (!patch.ok) return setShown({ kind: 'invalid', field: patch.field, message: patch.message });
    if (Object.keys(patch.patch).length === 0) return setShown({ kind: 'refused', message: 'Nothing changed.' });
    setBusy(true);
    try {
      const result = await session.inspect({ kind: 'update-row', persona: as, table, id, patch: encodeJson(patch.patch) });
      if (result.kind === 'refused') return setShown({ kind: 'refused', message: result.message });
      if (result.error) return setShown({ kind: 'refused', status: result.status, code: result.error.code, message: result.error.message });
      // Without live updates (a liveConnections budget of 0) the previews load again to show it.
      if (!(session.state.generation?.manifest.budgets?.liveConnections ?? 0)) session.reloadPreviews();
      onSaved(`Saved ${Object.keys(patch.patch).join(', ')} of ${table}/${id} as ${as}.`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="row-editor" ref={form} aria-label={`Edit ${table}/${id}`} onSubmit={(e) => void save(e)} onKeyDown={(e) => e.key === 'Escape' && onClose()}>
      <div class="row-editor-head">
        <strong>
          Edit <code>{table}/{id}</code>
        </strong>
        <PersonaSelect value={as} onChange={setAs} label="Edit as" />
        <span class="muted">through the runtime, under the table’s policy, as the app’s mutations are</span>
      </div>
      <div class="row-editor-fields">
        {fields.map((f) => {
          const invalid = shown?.kind === 'invalid' && shown.field === f.name;
          const common = {
            'data-field': f.name,
            'aria-label': f.name,
            'aria-invalid': invalid,
            value: edited[f.name] ?? '',
            onInput: (e: Event) => setEdited((current) => ({ ...current, [f.name]: (e.target as HTMLInputElement).value })),
          };
          return (
            <label key={f.name} class="row-editor-field">
              <span>
                {f.name} <span class="muted">{f.type}{f.optional ? ', optional' : ''}</span>
              </span>
              {f.type === 'boolean' ? (
                <select {...common} onChange={common.onInput}>
                  {f.optional && <option value="">(no value)</option>}
                  <option value="true">true</option>
                  <option value="false">false</option>
                </select>
              ) : f.enum ? (
                <select {...common} onChange={common.onInput}>
                  {f.optional && <option value="">(no value)</option>}
                  {f.enum.map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </select>
              ) : f.type === 'json' ? (
                <textarea {...common} rows={2} spellcheck={false} class="code-input" />
              ) : (
                <input {...common} type="text" spellcheck={false} placeholder={f.type === 'datetime' ? '2026-01-31 09:30:00Z' : f.optional ? '(no value)' : ''} />
              )}
            </label>
          );
        })}
      </div>
      <div class="row-editor-actions">
        <button type="submit" class="primary" disabled={busy}>
          Save as {as}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
      <div data-testid="edit-result">
        {shown?.kind === 'invalid' ? (
          <Refusal message={shown.message} testId="edit-invalid" />
        ) : shown ? (
          <Refusal message={shown.message} code={shown.code} testId="edit-refused" />
        ) : null}
      </div>
    </form>
  );
}
