/** Renaming and duplicating a project: the same controls in the project list and the workspace's header. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { duplicateProject, PROJECT_NAME_MAX, renameProject, type NameRefusal } from './store';

/** An inline form for a project's new name: Enter renames, Escape cancels; a refusal shows its code and message. */
export function RenameForm({ id, title, onDone }: { id: string; title: string; onDone(renamed?: string): void }) {
  const [value, setValue] = useState(title);
  const [refused, setRefused] = useState<NameRefusal | undefined>();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await renameProject(id, value);
    if (result.ok) return onDone(result.name);
    setRefused(result);
  };
  return (
    <form class="rename-form" onSubmit={(e) => void submit(e)} aria-label={`Rename ${title}`}>
      <input
        ref={input}
        value={value}
        aria-label="Project name"
        // A little over the limit can be typed, so a pasted long name is refused with a reason, not cut.
        maxLength={PROJECT_NAME_MAX * 4}
        aria-invalid={refused ? 'true' : undefined}
        aria-describedby={refused ? `rename-error-${id}` : undefined}
        onInput={(e) => {
          setValue((e.target as HTMLInputElement).value);
          setRefused(undefined);
        }}
        onKeyDown={(e) => e.key === 'Escape' && (e.preventDefault(), onDone())}
      />
      <button type="submit">Rename</button>
      <button type="button" class="link" onClick={() => onDone()}>
        Cancel
      </button>
      {refused && (
        <span class="rename-error" role="alert" id={`rename-error-${id}`} data-code={refused.code}>
          <code>{refused.code}</code>: {refused.message}
        </span>
      )}
    </form>
  );
}

/** Makes a copy of a stored project (files and data) and opens it. */
export async function openDuplicate(id: string): Promise<void> {
  const copy = await duplicateProject(id);
  if (copy) location.hash = `#/p/${copy.id}`;
}

/** The open project's name in the header, with Rename… and Duplicate. */
export function ProjectTitle({ id, title, onRenamed }: { id: string; title: string; onRenamed(title: string): void }) {
  const [renaming, setRenaming] = useState(false);
  if (renaming)
    return (
      <span class="project-title">
        <RenameForm
          id={id}
          title={title}
          onDone={(name) => {
            setRenaming(false);
            if (name !== undefined) onRenamed(name);
          }}
        />
      </span>
    );
  return (
    <span class="project-title">
      <span class="project-name" data-testid="project-name">
        {title}
      </span>
      <button type="button" class="link" onClick={() => setRenaming(true)} aria-label={`Rename ${title}`} title="Rename this project">
        Rename…
      </button>
      <button type="button" class="link" onClick={() => void openDuplicate(id)} aria-label={`Duplicate ${title}`} title="Open a copy of this project, with its files and data">
        Duplicate
      </button>
    </span>
  );
}
