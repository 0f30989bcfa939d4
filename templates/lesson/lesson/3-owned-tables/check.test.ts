import { as, expect, expectFailure, test } from 'platform/test';

test('each person sees only their own notes', async () => {
  await as('alice').mutation('notes.add', { text: 'alice’s note' });
  await as('bob').mutation('notes.add', { text: 'bob’s note' });
  expect((await as('alice').query('notes.list', {})).map((note) => note.text)).toEqual(['alice’s note']);
  expect((await as('bob').query('notes.list', {})).map((note) => note.text)).toEqual(['bob’s note']);
});

test('a guest cannot add a note', async () => {
  await expectFailure(as('guest').mutation('notes.add', { text: 'anonymous' }));
});

test("bob cannot delete alice's note", async () => {
  const { id } = await as('alice').mutation('notes.add', { text: 'mine' });
  await expectFailure(as('bob').mutation('notes.remove', { id }));
  expect(await as('alice').query('notes.list', {})).toHaveLength(1);
});
