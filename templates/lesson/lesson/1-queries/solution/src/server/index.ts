import { defineServer, mutation, query } from 'platform/server';

export type Note = { id: string; text: string };

export default defineServer({
  queries: {
    // Every row of the notes table, oldest first.
    'notes.list': query({
      input: {},
      handler: async (ctx): Promise<Note[]> => {
        const rows = await ctx.db.table('notes').all();
        return rows.map((row) => ({ id: row.id, text: row.text }));
      },
    }),
  },
  mutations: {
    'notes.add': mutation({
      input: { text: 'string' },
      handler: async (ctx, input) => {
        const row = await ctx.db.table('notes').insert({ text: input.text });
        return { id: row.id };
      },
    }),
  },
});
