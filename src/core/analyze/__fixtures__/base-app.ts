/** A small valid app (owned todos, a shared helper, an endpoint, a test) that compile fixtures vary. */

export const BASE_MANIFEST = {
  format: 'platform.application-source.v0',
  name: 'todo-app',
  app: { title: 'Todos', favicon: '/favicon.svg' },
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
  capabilities: ['database'],
  database: {
    tables: {
      todos: {
        fields: { ownerId: { type: 'string' }, title: { type: 'string', maxLength: 200 }, done: { type: 'boolean', default: false } },
        indexes: { byOwner: ['ownerId'] },
      },
    },
  },
};

export const SERVER = `import { defineServer, query, mutation, endpoint, authenticated, ownedTable } from 'platform/server';
import { clean } from '../shared/text';

export default defineServer({
  queries: {
    'todos.list': query({
      input: {},
      handler: async (ctx) => {
        const rows = await ctx.db.table('todos').find({ where: { ownerId: ctx.auth.appUserId } });
        return rows.map((row) => ({ id: row.id, title: row.title, done: row.done }));
      },
    }),
  },
  mutations: {
    'todos.add': mutation({
      input: { title: 'string' },
      auth: authenticated(),
      handler: async (ctx, input) => {
        const row = await ctx.db.table('todos').insert({ title: clean(input.title) });
        return { id: row.id };
      },
    }),
  },
  endpoints: {
    'GET /api/health': endpoint(async () => new Response('ok')),
  },
  authPolicies: { todos: ownedTable() },
});
`;

export const CLIENT = `import { render } from 'preact';
import { useState } from 'preact/hooks';
import { useQuery, useMutation } from 'platform/client';
import { clean } from '../shared/text';

function App() {
  const { data } = useQuery('todos.list', {});
  const add = useMutation('todos.add');
  const [title, setTitle] = useState('');
  return (
    <main>
      <ul>{data?.map((todo) => <li key={todo.id}>{todo.title}</li>)}</ul>
      <input value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
      <button onClick={() => add({ title: clean(title) })}>Add</button>
    </main>
  );
}

render(<App />, document.getElementById('app')!);
`;

export const TEST = `import { test, expect, as } from 'platform/test';

test('alice adds a todo and sees it', async () => {
  await as('alice').mutation('todos.add', { title: 'milk' });
  expect(await as('alice').query('todos.list', {})).toHaveLength(1);
});
`;

export const SHARED = `export function clean(text: string): string {
  return text.trim();
}
`;

export function baseApp(): Record<string, string> {
  return {
    'app.manifest.json': `${JSON.stringify(BASE_MANIFEST, null, 2)}\n`,
    'src/server/index.ts': SERVER,
    'src/client/main.tsx': CLIENT,
    'src/shared/text.ts': SHARED,
    'tests/todos.test.ts': TEST,
    'public/favicon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
  };
}
