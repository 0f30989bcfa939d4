import { describe, expect, it } from 'vitest';
import type { Auth } from '../runtime/index.ts';
import { answerBatch, BATCH_MAX_CALLS, batchCall, BatchReader, decodeBatch, encodeBatch, type BatchCall } from './batch.ts';

const alice = { appUserId: 'user:alice', kind: 'user', roles: [], permissions: [], workspaceIds: [], sessionId: 's' } as unknown as Auth;
const bytes = (text: string) => new TextEncoder().encode(text);
const query = (body: Uint8Array | undefined, extra: Partial<{ method: string; url: string; headers: Array<[string, string]> }> = {}) =>
  batchCall(alice, { method: 'POST', url: 'http://app.localhost/_platform/v0/query/notes.recent', headers: [['content-type', 'application/json']], ...(body ? { body } : {}), ...extra });

describe('which calls travel in a batch', () => {
  it('a query or mutation with a small UTF-8 body does, as its caller, URL and text', () => {
    expect(query(bytes('{"input":{"text":"é"}}'))).toEqual({ auth: alice, url: 'http://app.localhost/_platform/v0/query/notes.recent', body: '{"input":{"text":"é"}}' });
    expect(query(bytes('{}'), { url: 'http://app.localhost/_platform/v0/mutation/notes.add' })).toBeDefined();
  });

  it('anything else goes alone: another method or route, no body, a large or non-UTF-8 body, a live connection, a malformed name', () => {
    expect(query(bytes('{}'), { method: 'GET' })).toBeUndefined();
    expect(query(bytes('{}'), { url: 'http://app.localhost/api/notes' })).toBeUndefined();
    expect(query(undefined)).toBeUndefined();
    expect(query(new Uint8Array(16 * 1024 + 1).fill(32))).toBeUndefined();
    expect(query(new Uint8Array([0x7b, 0xff, 0x7d]))).toBeUndefined();
    expect(query(bytes('{}'), { headers: [['X-Platform-Live', 'c1']] })).toBeUndefined();
    expect(query(bytes('{}'), { url: 'http://app.localhost/_platform/v0/query/%E0%A4%A' })).toBeUndefined();
  });
});

describe('a batch body', () => {
  const calls: BatchCall[] = [{ auth: alice, url: 'http://a/_platform/v0/query/x', body: '{}' }];

  it('is read back as it was written', () => {
    expect(decodeBatch(encodeBatch(calls))).toEqual(calls);
  });

  it('is refused when it is not one: not JSON, no calls, too many, a call without its parts', () => {
    expect(decodeBatch(bytes('nope'))).toBeUndefined();
    expect(decodeBatch(bytes('{"calls":[]}'))).toBeUndefined();
    expect(decodeBatch(encodeBatch(Array.from({ length: BATCH_MAX_CALLS + 1 }, () => calls[0]!)))).toBeUndefined();
    expect(decodeBatch(bytes('{"calls":[{"auth":null,"url":"u","body":""}]}'))).toBeUndefined();
    expect(decodeBatch(bytes('{"calls":[{"auth":{},"url":"u"}]}'))).toBeUndefined();
  });
});

describe('a batch answer', () => {
  it('gives each call its own answer, in order, whatever chunks it arrives in', async () => {
    const calls: BatchCall[] = ['one', 'two\nlines', 'three'].map((text) => ({ auth: alice, url: 'http://a/_platform/v0/query/x', body: text }));
    const answer = answerBatch(calls, async (call) =>
      call.body === 'three' ? Response.json({ error: { code: 'operation_failed' } }, { status: 400 }) : Response.json({ result: call.body }, { headers: { 'x-platform-read': 'notes' } }),
    );
    expect(answer.headers.get('content-type')).toBe('application/x-ndjson');
    const whole = new Uint8Array(await answer.arrayBuffer());
    // Three bytes at a time: lines (and UTF-8 sequences) cut anywhere.
    const reader = new BatchReader();
    const answers: Response[] = [];
    for (let at = 0; at < whole.length; at += 3) answers.push(...reader.push(whole.slice(at, at + 3)));
    expect(answers.map((one) => one.status)).toEqual([200, 200, 400]);
    expect(answers[0]!.headers.get('x-platform-read')).toBe('notes');
    expect(await answers[1]!.json()).toEqual({ result: 'two\nlines' });
    expect(await answers[2]!.json()).toEqual({ error: { code: 'operation_failed' } });
  });

  it('writes each line as its call ends: the first is readable while the second still runs', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const calls: BatchCall[] = ['first', 'second'].map((body) => ({ auth: alice, url: 'http://a/_platform/v0/query/x', body }));
    const answer = answerBatch(calls, async (call) => {
      if (call.body === 'second') await held;
      return Response.json({ result: call.body });
    });
    const stream = answer.body!.getReader();
    const first = new BatchReader().push((await stream.read()).value!);
    expect(await first[0]!.json()).toEqual({ result: 'first' });
    release();
    await stream.cancel();
  });
});
