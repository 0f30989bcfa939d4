/**
 * The page's requests to the runtime sandbox, queued and sent one at a time by the runtime host: what
 * each is, how it is said (`describeJob`, for the toolbar and the Events), how it goes to the worker
 * (`postJob`) and how it is answered with a failure in its own form (`failJob`).
 */
import { failedCall, isPersona, type PersonaName, type CallOutcome } from '../../core/runtime';
import { runtimeErrorBody } from '../../modules/wire';
import type { InspectQuery, InspectResult, RuntimeRequest } from '../../../worker/protocol/runtime';
import type { SandboxFrame } from './sandbox-frame';

export type Job =
  | { type: 'call'; persona: PersonaName; kind: 'query' | 'mutation'; name: string; input?: string; settle(outcome: CallOutcome): void }
  | { type: 'fetch'; persona: PersonaName; method: string; url: string; headers: Array<[string, string]>; body: Uint8Array | null; settle(response: Response): void }
  | { type: 'set-env'; values: Record<string, string>; settle(): void }
  | { type: 'flush'; checkpoint: boolean; settle(): void }
  | { type: 'inspect'; query: InspectQuery; settle(result: InspectResult): void };

export const failure = (status: number, code: string, message: string): CallOutcome => failedCall(status, code, message);

/** The HTTP form of a failure: the runtime error body. */
export function failureResponse(outcome: CallOutcome): Response {
  const error = outcome.error!;
  return new Response(JSON.stringify(runtimeErrorBody({ status: outcome.status, ...error })), { status: outcome.status, headers: { 'content-type': 'application/json' } });
}

/** Whose request a job is, when it is a persona's. */
export function personaOf(job: Job): PersonaName | undefined {
  if (job.type === 'call' || job.type === 'fetch') return job.persona;
  if (job.type === 'inspect' && 'persona' in job.query && isPersona(job.query.persona)) return job.query.persona;
  return undefined;
}

/** Answers a job with a failure in its own form. */
export function failJob(job: Job, outcome: CallOutcome): void {
  switch (job.type) {
    case 'call':
      job.settle(outcome);
      break;
    case 'fetch':
      job.settle(failureResponse(outcome));
      break;
    case 'set-env':
    case 'flush':
      job.settle();
      break;
    case 'inspect':
      job.settle({ kind: 'refused', message: outcome.error?.message ?? 'The runtime is not running.' });
      break;
    default: {
      const unknown: never = job;
      throw new Error(`Unknown job ${JSON.stringify(unknown)}`);
    }
  }
}

/** What a job is, said: `query todos.list`, `GET /api/x`, `flush`, `inspect tables`. */
export function describeJob(job: Job): string {
  switch (job.type) {
    case 'call':
      return `${job.kind} ${job.name}`;
    case 'fetch':
      return `${job.method} ${new URL(job.url).pathname}`;
    case 'set-env':
    case 'flush':
      return job.type;
    case 'inspect':
      return `inspect ${job.query.kind}`;
    default: {
      const unknown: never = job;
      return String(unknown);
    }
  }
}

/** Sends a job to the sandbox's worker as request `id`. */
export function postJob(frame: SandboxFrame, id: number, job: Job): void {
  switch (job.type) {
    case 'call':
      frame.post({ type: 'call', id, persona: job.persona, kind: job.kind, name: job.name, ...(job.input !== undefined ? { input: job.input } : {}) } satisfies RuntimeRequest);
      break;
    case 'fetch':
      frame.post({ type: 'fetch', id, persona: job.persona, method: job.method, url: job.url, headers: job.headers, body: job.body } satisfies RuntimeRequest);
      break;
    case 'set-env':
      frame.post({ type: 'set-env', id, values: job.values } satisfies RuntimeRequest);
      break;
    case 'flush':
      frame.post({ type: 'flush', id, ...(job.checkpoint ? { checkpoint: true } : {}) } satisfies RuntimeRequest);
      break;
    case 'inspect':
      frame.post({ type: 'inspect', id, query: job.query } satisfies RuntimeRequest);
      break;
    default: {
      const unknown: never = job;
      throw new Error(`Unknown job ${JSON.stringify(unknown)}`);
    }
  }
}
