import type { Socket } from 'node:net';

/** Set (to the socket's path) in the environment of a process the snapshot starts as a check server. */
export const SERVE_VARIABLE: string;
/** How long a server waits for a request before it ends. */
export const DEFAULT_IDLE_MS: number;
/** How long the client waits for a server to take its request before it checks by itself. */
export const TAKE_WAIT_MS: number;
/** The most a request or an answer may hold; a longer line is refused. */
export const MAX_MESSAGE_BYTES: number;
/** Whether `check` may go through a check server in this environment. */
export function serverAllowed(env?: Record<string, string | undefined>): boolean;
/** This user's folder of check server sockets (mode 0700), or undefined when it is not a folder of this user's alone. */
export function socketFolder(env?: Record<string, string | undefined>): string | undefined;
/** The build of the prebuilt CLI under `root` a server belongs to. */
export function buildIdentity(root: URL): string;
/** The socket and the process-id file of the server of build `identity` in `folder`. */
export function serverPaths(folder: string, identity: string): { socket: string; pid: string };
/** Whether something listens on the socket `path`. */
export function listening(path: string): Promise<boolean>;
/** Reads newline-ended JSON messages from `socket`; a message too long, or not JSON, ends the socket. */
export function readMessages(socket: Socket, onMessage: (message: unknown) => void): void;
/** A check server's request: `platform <args>` run in `cwd`, for the server of build `build`. */
export interface CheckRequest {
  args: string[];
  cwd: string;
  build: string;
  debug: boolean;
}
/** A check server's answer: what the check wrote and its exit status; or why it would not run it (the client then runs it itself). */
export type CheckAnswer = { stdout: string; stderr: string; exitCode: number } | { refused: string };
/** Sent first, as the server starts on a request: the answer follows. */
export type CheckTaken = { taken: true };
/** `platform <args>` answered by this build's check server (started first when none listens); undefined when none may or could. */
export function checkThroughServer(
  root: URL,
  args: readonly string[],
  out?: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown } },
  env?: Record<string, string | undefined>,
): Promise<number | undefined>;
