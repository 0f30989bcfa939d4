import { as, expect, expectFailure, test } from 'platform/test';

test('a note added is listed for the person who wrote it', async () => {
  await as('alice').mutation('notes.add', { text: 'milk' });
  expect((await as('alice').query('notes.list', {})).map((note) => note.text)).toEqual(['milk']);
});

test("bob cannot delete a note of alice's", async () => {
  const { id } = await as('alice').mutation('notes.add', { text: 'milk' });
  await expectFailure(as('bob').mutation('notes.remove', { id }));
  expect(await as('alice').query('notes.list', {})).toHaveLength(1);
});
