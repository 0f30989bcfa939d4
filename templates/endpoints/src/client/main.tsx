import { render } from 'preact';
import { useState } from 'preact/hooks';
import { invalidateQueries, useQuery } from 'platform/client';
import './style.css';

function App() {
  const [name, setName] = useState('Ada');
  const [greeting, setGreeting] = useState('');
  const [lines, setLines] = useState<string[]>([]);
  const visits = useQuery('visits.count', { path: 'home' });

  const greet = async () => {
    const response = await fetch(`/api/greet/${encodeURIComponent(name)}`);
    setGreeting(((await response.json()) as { message: string }).message);
  };

  const count = async () => {
    setLines([]);
    const response = await fetch('/api/count/20');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      setLines((previous) => [...previous, ...parts]);
    }
  };

  const visit = async () => {
    await fetch('/api/visits/home', { method: 'POST' });
    invalidateQueries(['visits']);
  };

  return (
    <main>
      <h1>Endpoints and streams</h1>
      <section>
        <input aria-label="Name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <button type="button" onClick={() => void greet()}>
          GET /api/greet/:name
        </button>
        {greeting && <p>{greeting}</p>}
      </section>
      <section>
        <button type="button" onClick={() => void visit()}>
          POST /api/visits/home
        </button>
        <p>{visits.data ?? 0} visits</p>
      </section>
      <section>
        <button type="button" onClick={() => void count()}>
          Stream GET /api/count/20
        </button>
        <pre>{lines.join(' ')}</pre>
      </section>
    </main>
  );
}

render(<App />, document.getElementById('app')!);
