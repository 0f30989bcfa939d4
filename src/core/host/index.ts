/** What every engine that runs a stranger's code shares: identities, calls over messages and response bodies. The folder's entry: what the rest of the code base imports of it. */
export { answerBatch, BATCH_AUTH, BATCH_MAX_CALLS, BATCH_PATH, BATCH_URL, type BatchCall, batchCall, BatchReader, decodeBatch, encodeBatch } from './batch.ts';
export { type BodyIn, type BodyMessage, bodyPoster, bodyReceiver, BodySender, deliverBody } from './body-stream.ts';
export { describeError } from './describe.ts';
export { freeTimeLimit } from './free-time-limit.ts';
export { handlerPlaces } from './handler-place.ts';
export { IDENTITY_HEADER, IdentityVerifier, LOADED_PATH, READY_PATH, SequenceWindow, signIdentity } from './identity.ts';
export { Inbox } from './inbox.ts';
export { stoppable } from './stoppable.ts';
export { type AttemptEnd, type AttemptInbox, ENGINE_EXHAUSTED, followAttempt, isTestRunMessage, runTestsInEngine, type TestRunMessage } from './test-run.ts';
export { Watchdog } from './watchdog.ts';
