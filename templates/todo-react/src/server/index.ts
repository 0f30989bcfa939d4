import { authenticated, defineServer, mutation, ownedTable, query } from 'platform/server';
import { checkTitle } from '../shared/todo';

export type Todo = { id: string; title: string; done: boolean; createdAt: Date };

export default defineServer({
  queries: {
    // Every todo of the caller: the ownedTable policy filters reads to the caller's rows.
    'todos.list': query({
      input: {},
      handler: async (ctx): Promise<Todo[]> => {
        const rows = await ctx.db.table('todos').all();
        return rows.map((row) => ({ id: row.id, title: row.title, done: row.done, createdAt: row.createdAt }));
      },
    }),
    'todos.remaining': query({
      input: {},
      handler: async (ctx) => ctx.db.table('todos').count({ where: { ownerId: ctx.auth.appUserId, done: false } }),
    }),
  },
  mutations: {
    'todos.add': mutation({
      input: { title: 'string' },
      auth: authenticated(),
      handler: async (ctx, input) => {
        const checked = checkTitle(input.title);
        if ('error' in checked) throw new Error(checked.error);
        // ownerId is stamped by the ownedTable policy.
        const row = await ctx.db.table('todos').insert({ title: checked.title });
        return { id: row.id };
      },
    }),
    'todos.toggle': mutation({
      input: { id: 'string' },
      auth: authenticated(),
      handler: async (ctx, input) => {
        const todos = ctx.db.table('todos');
        const row = await todos.get(input.id);
        if (!row) throw new Error(`Record not found: todos/${input.id}`);
        await todos.update(input.id, { done: !row.done });
      },
    }),
    'todos.remove': mutation({
      input: { id: 'string' },
      auth: authenticated(),
      handler: async (ctx, input) => {
        await ctx.db.table('todos').delete(input.id);
      },
    }),
    'todos.clear': mutation({
      input: {},
      auth: authenticated(),
      handler: async (ctx) => {
        const todos = ctx.db.table('todos');
        const done = await todos.find({ where: { ownerId: ctx.auth.appUserId, done: true }, limit: 100 });
        for (const row of done) await todos.delete(row.id);
        return { removed: done.length };
      },
    }),
  },
  authPolicies: { todos: ownedTable() },
});
