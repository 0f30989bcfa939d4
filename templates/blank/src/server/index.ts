import { defineServer, query } from 'platform/server';

export default defineServer({
  queries: {
    // The page (src/client/main.tsx) calls it by name; queries and mutations you add sit beside it.
    'greeting.hello': query({
      input: { name: 'string' },
      handler: async (_ctx, input) => `Hello, ${input.name}!`,
    }),
  },
});
