import { as, expect, expectFailure, fetch, query, test } from 'platform/test';

const upload = (persona: 'alice' | 'bob' | 'guest', name: string, body: string, contentType = 'text/plain') =>
  as(persona).fetch(new Request('http://app.test/api/files', { method: 'POST', body, headers: { 'content-type': contentType, 'x-file-name': name } }));

test('an upload is stored, listed and downloaded byte for byte', async () => {
  const response = await upload('alice', 'notes.txt', 'hello, files');
  expect(response.status).toBe(201);
  const created = (await response.json()) as { id: string; name: string; size: number };
  expect(created).toMatchObject({ name: 'notes.txt', size: 12 });

  const listed = await query('files.list', {});
  expect(listed.map((f) => f.name)).toEqual(['notes.txt']);
  expect(listed[0]!.uploadedAt).toBeInstanceOf(Date);

  const download = await fetch(`GET /api/files/${created.id}`);
  expect(download.status).toBe(200);
  expect(download.headers.get('content-type')).toBe('text/plain');
  expect(download.headers.get('content-length')).toBe('12');
  expect(await download.text()).toBe('hello, files');
});

test("another user's file is not found, and neither is a missing one", async () => {
  const created = (await (await upload('alice', 'secret.txt', 'secret')).json()) as { id: string };
  expect((await as('bob').fetch(`GET /api/files/${created.id}`)).status).toBe(404);
  expect((await as('alice').fetch('GET /api/files/nothing-here')).status).toBe(404);
  expect(await as('bob').query('files.list', {})).toEqual([]);
});

test('guests cannot upload', async () => {
  const response = await upload('guest', 'x.txt', 'x');
  expect(response.status).toBe(400);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('operation_failed');
});

test('an upload over requestBytes is refused before the handler runs', async () => {
  const response = await upload('alice', 'big.bin', 'x'.repeat(1048577), 'application/octet-stream');
  expect(response.status).toBe(413);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
  expect(await query('files.list', {})).toEqual([]);
});

test('removing a file removes its row and its object', async () => {
  const created = (await (await upload('alice', 'gone.txt', 'bye')).json()) as { id: string };
  await as('alice').mutation('files.remove', { id: created.id });
  expect(await query('files.list', {})).toEqual([]);
  expect((await fetch(`GET /api/files/${created.id}`)).status).toBe(404);
  const failure = await expectFailure(as('alice').mutation('files.remove', { id: created.id }));
  expect(failure.message).toBe(`Record not found: files/${created.id}`);
});
