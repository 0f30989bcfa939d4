import { useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { signIn, signOut, useAuth, useMutation, useQuery } from 'platform/client';
import { checkTitle } from '../shared/todo';
import './style.css';

/** Todos belong to signed-in people: a guest is offered to sign in (deployed: a passkey; in the playground: switch persona). */
function Account() {
  const { auth } = useAuth();
  // Until the session is known the line keeps its place (an invisible button of the same size), so the
  // page does not move when it arrives.
  if (!auth)
    return (
      <p className="account" aria-hidden="true">
        <button type="button" tabIndex={-1} style={{ visibility: 'hidden' }}>
          Sign out
        </button>
      </p>
    );
  if (auth.kind === 'guest') {
    return (
      <p className="account">
        <span className="muted">Sign in to keep your own todos. </span>
        <button type="button" onClick={() => signIn()}>
          Sign in
        </button>
      </p>
    );
  }
  return (
    <p className="account">
      <button type="button" onClick={() => void signOut()}>
        Sign out
      </button>
    </p>
  );
}

function App() {
  const todos = useQuery('todos.list', {});
  const remaining = useQuery('todos.remaining', {});
  const add = useMutation('todos.add');
  const toggle = useMutation('todos.toggle');
  const remove = useMutation('todos.remove');
  const clearDone = useMutation('todos.clear');
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | undefined>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkTitle(title);
    if ('error' in checked) return setError(checked.error);
    try {
      await add({ title: checked.title });
      setTitle('');
      setError(undefined);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  return (
    <main>
      <h1>Todos</h1>
      <Account />
      <form onSubmit={submit}>
        <input aria-label="New todo" placeholder="What needs doing?" value={title} onChange={(e) => setTitle(e.target.value)} />
        <button type="submit">Add</button>
      </form>
      {error && <p className="error" role="alert">{error}</p>}
      {todos.loading && !todos.data && <p className="muted">Loading…</p>}
      {todos.error && <p className="error">{todos.error.message}</p>}
      <ul>
        {todos.data?.map((todo) => (
          <li key={todo.id} className={todo.done ? 'done' : ''}>
            <label>
              <input type="checkbox" checked={todo.done} onChange={() => void toggle({ id: todo.id })} />
              {todo.title}
            </label>
            <button type="button" aria-label={`Delete ${todo.title}`} onClick={() => void remove({ id: todo.id })}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <footer>
        <span>{remaining.data ?? 0} left</span>
        <button type="button" onClick={() => void clearDone({})}>
          Clear done
        </button>
      </footer>
    </main>
  );
}

createRoot(document.getElementById('app')!).render(<App />);
