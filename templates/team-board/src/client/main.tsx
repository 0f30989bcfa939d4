import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useMutation, useQuery } from 'platform/client';
import { COLUMNS, type Column } from '../shared/board';

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

function App() {
  const workspaces = useQuery('me.workspaces', {});
  const [selected, setSelected] = useState<string | undefined>();
  useEffect(() => {
    if (!selected && workspaces.data?.length) setSelected(workspaces.data[0]);
  }, [workspaces.data, selected]);

  return (
    <main>
      <h1>Team board</h1>
      {workspaces.data?.length === 0 && <p class="muted">You are not a member of any workspace.</p>}
      <nav>
        {workspaces.data?.map((id) => (
          <button type="button" key={id} aria-pressed={id === selected} onClick={() => setSelected(id)}>
            {id}
          </button>
        ))}
      </nav>
      {selected && <Board workspaceId={selected} />}
    </main>
  );
}

render(<App />, document.getElementById('app')!);
