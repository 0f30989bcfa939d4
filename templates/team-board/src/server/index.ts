import { authenticated, defineServer, memberOf, mutation, query, workspaceTable } from 'platform/server';
import { isColumn, type Column } from '../shared/board';

export type Card = { id: string; title: string; column: Column; workspaceId: string };

export default defineServer({
  queries: {
    // The workspaces the caller belongs to, asserted by the platform.
    'me.workspaces': query({ input: {}, handler: async (ctx) => [...ctx.auth.workspaceIds] }),
    // memberOf refuses a caller outside the workspace; the policy would only filter.
    'cards.list': query({
      input: { workspaceId: 'string' },
      auth: memberOf('workspaceId'),
      handler: async (ctx, input): Promise<Card[]> => {
        const rows = await ctx.db.table('cards').find({ where: { workspaceId: input.workspaceId }, limit: 500 });
        return rows.map((row) => ({ id: row.id, title: row.title, column: row.column, workspaceId: row.workspaceId }));
      },
    }),
    // Without a guard, the workspaceTable policy alone filters: every card of every workspace of the caller.
    'cards.everywhere': query({
      input: {},
      handler: async (ctx) => (await ctx.db.table('cards').all()).map((row) => ({ title: row.title, workspaceId: row.workspaceId })),
    }),
  },
  mutations: {
    'cards.add': mutation({
      input: { workspaceId: 'string', title: 'string' },
      auth: [authenticated(), memberOf('workspaceId')],
      handler: async (ctx, input) => {
        const title = input.title.trim();
        if (!title) throw new Error('A card needs a title.');
        const row = await ctx.db.table('cards').insert({ workspaceId: input.workspaceId, title });
        return { id: row.id };
      },
    }),
    'cards.move': mutation({
      input: { id: 'string', column: 'string' },
      auth: authenticated(),
      handler: async (ctx, input) => {
        if (!isColumn(input.column)) throw new Error(`"${input.column}" is not a column.`);
        await ctx.db.table('cards').update(input.id, { column: input.column });
      },
    }),
    'cards.remove': mutation({
      input: { id: 'string' },
      auth: authenticated(),
      handler: async (ctx, input) => {
        await ctx.db.table('cards').delete(input.id);
      },
    }),
  },
  authPolicies: { cards: workspaceTable() },
});
