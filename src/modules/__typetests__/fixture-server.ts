// The server entrypoint of the type-test fixture app that `app.d.ts` registers.

import { authenticated, defineServer, endpoint, memberOf, mutation, ownedTable, query, workspaceTable } from 'platform/server';

type TodoView = { id: string; title: string; done: boolean; due?: Date };

export default defineServer({
  queries: {
    'todos.list': query({
      input: {},
      handler: (ctx) => ctx.db.table('todos').all(),
    }),
    'todos.get': query({
      input: { id: 'string' },
      handler: async (ctx, { id }): Promise<TodoView | null> => {
        const row = await ctx.db.table('todos').get(id);
        return row === null ? null : { id: row.id, title: row.title, done: row.done, due: row.due };
      },
    }),
    'todos.page': query({
      input: { cursor: 'json', done: 'boolean' },
      handler: (ctx, input) =>
        ctx.db.table('todos').page({
          where: { ownerId: ctx.auth.appUserId, done: input.done },
          cursor: typeof input.cursor === 'string' ? input.cursor : undefined,
        }),
    }),
    'notes.list': query({
      input: { workspaceId: 'string' },
      auth: [authenticated(), memberOf('workspaceId')],
      handler: (ctx, { workspaceId }) => ctx.db.table('notes').find({ where: { workspaceId } }),
    }),
  },
  mutations: {
    'todos.add': mutation({
      input: { title: 'string', due: 'datetime' },
      auth: authenticated(),
      handler: async (ctx, { title, due }) => {
        const row = await ctx.db.table('todos').insert({ title, due });
        return row.id;
      },
    }),
    'todos.remove': mutation({
      input: { id: 'string' },
      handler: async (ctx, { id }) => {
        await ctx.db.table('todos').delete(id);
      },
    }),
  },
  endpoints: {
    'GET /api/todos/:id/title': endpoint<'GET /api/todos/:id/title'>(async (_request, ctx) => {
      const row = await ctx.db.table('todos').get(ctx.params.id);
      return row === null ? new Response('not found', { status: 404 }) : new Response(row.title);
    }),
    'GET /api/health': endpoint(() => new Response('ok'), authenticated()),
  },
  authPolicies: { todos: ownedTable(), notes: workspaceTable() },
});
