import { render } from 'preact';
import { useState } from 'preact/hooks';
import { useMutation, useQuery } from 'platform/client';
import './style.css';

function App() {
  const notes = useQuery('notes.list', {});
  const add = useMutation('notes.add');
  const remove = useMutation('notes.remove');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();

  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await add({ text });
      setText('');
      setError(undefined);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  return (
    <main>
      <h1>Notes</h1>
      <form onSubmit={submit}>
        <input aria-label="New note" placeholder="Write a note" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        <button type="submit">Add</button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      {notes.error && <p class="error">{notes.error.message}</p>}
      <ul>
        {notes.data?.map((note) => (
          <li key={note.id}>
            {note.text}
            <button type="button" aria-label={`Delete ${note.text}`} onClick={() => void remove({ id: note.id }).catch((failure: unknown) => setError(failure instanceof Error ? failure.message : String(failure)))}>
              Delete
            </button>
          </li>
        ))}
      </ul>
      {notes.data?.length === 0 && <p class="muted">No notes to show.</p>}
    </main>
  );
}

render(<App />, document.getElementById('app')!);
