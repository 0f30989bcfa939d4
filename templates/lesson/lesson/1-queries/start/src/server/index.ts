import { defineServer, mutation, query } from 'platform/server';

export type Note = { id: string; text: string };

export default defineServer({
  queries: {
    // Step 1: answer with the rows of the notes table. For now it answers with none.
    'notes.list': query({
      input: {},
      handler: async (_ctx): Promise<Note[]> => [],
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
