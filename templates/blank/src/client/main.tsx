import { render } from 'preact';
import { useQuery } from 'platform/client';
import './style.css';

function App() {
  const greeting = useQuery('greeting.hello', { name: 'world' });
  return (
    <main>
      <h1>{greeting.data ?? 'Loading…'}</h1>
      {greeting.error && <p role="alert">{greeting.error.message}</p>}
      <p>This page calls the query greeting.hello in src/server/index.ts: change either file and the preview follows.</p>
    </main>
  );
}

render(<App />, document.getElementById('app')!);
