import { expect, mutation, test } from 'platform/test';

test('notes.add stores a note and answers with its id', async () => {
  const { id } = await mutation('notes.add', { text: 'milk' });
  expect(typeof id).toBe('string');
});
