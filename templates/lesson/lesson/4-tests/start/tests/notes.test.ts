import { as, expect, test } from 'platform/test';

test('a note added is listed for the person who wrote it', async () => {
  await as('alice').mutation('notes.add', { text: 'milk' });
  expect((await as('alice').query('notes.list', {})).map((note) => note.text)).toEqual(['milk']);
});

// Step 4: write a test that bob cannot delete a note of alice's.
