import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { createWorkspace, inviteToWorkspace, leaveWorkspace, signIn, signOut, useAuth, useMutation, useQuery, useWorkspaces } from 'platform/client';
import { COLUMNS, type Column } from '../shared/board';
import './style.css';

const message = (failure: unknown) => (failure instanceof Error ? failure.message : String(failure));

function Board({ workspaceId }: { workspaceId: string }) {
  const cards = useQuery('cards.list', { workspaceId });
  const add = useMutation('cards.add');
  const move = useMutation('cards.move');
  const remove = useMutation('cards.remove');
  const [title, setTitle] = useState('');
  const next = (column: Column) => COLUMNS[(COLUMNS.indexOf(column) + 1) % COLUMNS.length]!;

  return (
    <section>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void add({ workspaceId, title }).then(() => setTitle(''));
        }}
      >
        <input aria-label="New card" placeholder="A new card" value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
        <button type="submit">Add</button>
      </form>
      {cards.error && <p class="error">{cards.error.message}</p>}
      <div class="columns">
        {COLUMNS.map((column) => (
          <div class="column" key={column}>
            <h2>{column}</h2>
            {cards.data
              ?.filter((card) => card.column === column)
              .map((card) => (
                <article key={card.id}>
                  <span>{card.title}</span>
                  <button type="button" title={`Move to ${next(column)}`} onClick={() => void move({ id: card.id, column: next(column) })}>
                    →
                  </button>
                  <button type="button" aria-label={`Delete ${card.title}`} onClick={() => void remove({ id: card.id })}>
                    ×
                  </button>
                </article>
              ))}
          </div>
        ))}
      </div>
    </section>
  );
}

/** Who is here: a guest is offered to sign in (deployed: a passkey; in the playground: switch persona). */
function Account() {
  const { auth } = useAuth();
  // Until the session is known the line keeps its place (an invisible button of the same size), so the
  // page does not move when it arrives.
  if (!auth)
    return (
      <p class="account" aria-hidden="true">
        <button type="button" tabIndex={-1} style={{ visibility: 'hidden' }}>
          Sign out
        </button>
      </p>
    );
  return (
    <p class="account">
      {auth.kind === 'guest' ? (
        <>
          <span class="muted">You are a guest. </span>
          <button type="button" onClick={() => signIn()}>
            Sign in
          </button>
        </>
      ) : (
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      )}
    </p>
  );
}

/** Creating a workspace, inviting someone to the selected one, leaving it: done by the platform, not by this app's server. */
function Workspaces({ selected, onSelect }: { selected: string | undefined; onSelect: (id: string | undefined) => void }) {
  const [name, setName] = useState('');
  const [link, setLink] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const act = (work: () => Promise<void>) => {
    setError(undefined);
    work().catch((failure: unknown) => setError(message(failure)));
  };
  return (
    <div class="workspaces">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          act(async () => {
            const workspace = await createWorkspace(name);
            setName('');
            onSelect(workspace.id);
          });
        }}
      >
        <input aria-label="Workspace name" placeholder="A new workspace" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <button type="submit">Create workspace</button>
      </form>
      {selected && (
        <p>
          <button type="button" onClick={() => act(async () => setLink((await inviteToWorkspace(selected)).url))}>
            Invite someone
          </button>{' '}
          <button
            type="button"
            onClick={() =>
              act(async () => {
                await leaveWorkspace(selected);
                setLink(undefined);
                onSelect(undefined);
              })
            }
          >
            Leave workspace
          </button>
        </p>
      )}
      {link && (
        <p>
          <label>
            Invitation link (one person, 7 days) <input aria-label="Invitation link" readOnly value={link} />
          </label>
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function App() {
  const { auth } = useAuth();
  // The workspaces the server sees (ctx.auth.workspaceIds), named by the platform where it knows a name.
  const workspaces = useQuery('me.workspaces', {});
  const { workspaces: named } = useWorkspaces();
  const [selected, setSelected] = useState<string | undefined>();
  useEffect(() => {
    if (!selected && workspaces.data?.length) setSelected(workspaces.data[0]);
  }, [workspaces.data, selected]);
  const nameOf = (id: string) => named?.find((workspace) => workspace.id === id)?.name ?? id;

  return (
    <main>
      <h1>Team board</h1>
      <Account />
      {workspaces.data?.length === 0 && <p class="muted">You are not a member of any workspace.</p>}
      <nav>
        {workspaces.data?.map((id) => (
          <button type="button" key={id} aria-pressed={id === selected} onClick={() => setSelected(id)}>
            {nameOf(id)}
          </button>
        ))}
      </nav>
      {auth?.kind === 'user' && <Workspaces selected={selected} onSelect={setSelected} />}
      {selected && workspaces.data?.includes(selected) && <Board workspaceId={selected} />}
    </main>
  );
}

render(<App />, document.getElementById('app')!);
