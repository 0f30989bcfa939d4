import { expect, mutation, query, test } from 'platform/test';

test('notes.list answers with the notes added, oldest first', async () => {
  await mutation('notes.add', { text: 'milk' });
  await mutation('notes.add', { text: 'bread' });
  expect((await query('notes.list', {})).map((note) => note.text)).toEqual(['milk', 'bread']);
});
