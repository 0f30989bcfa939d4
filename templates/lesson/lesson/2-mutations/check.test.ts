import { expect, expectFailure, mutation, query, test } from 'platform/test';

test('notes.remove deletes the note it names', async () => {
  const { id } = await mutation('notes.add', { text: 'milk' });
  await mutation('notes.add', { text: 'bread' });
  await mutation('notes.remove', { id });
  expect((await query('notes.list', {})).map((note) => note.text)).toEqual(['bread']);
});

test('a note without text is refused, and nothing is stored', async () => {
  const failure = await expectFailure(mutation('notes.add', { text: '   ' }));
  expect(failure.message).toBe('A note needs some text.');
  expect(await query('notes.list', {})).toEqual([]);
});
