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
        const text = input.text.trim();
        // A handler that throws refuses the call: nothing it wrote is kept, and the caller gets the message.
        if (!text) throw new Error('A note needs some text.');
        const row = await ctx.db.table('notes').insert({ text });
        return { id: row.id };
      },
    }),
    'notes.remove': mutation({
      input: { id: 'string' },
      handler: async (ctx, input) => {
        await ctx.db.table('notes').delete(input.id);
      },
    }),
  },
});
