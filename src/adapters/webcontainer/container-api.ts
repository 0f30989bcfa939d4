/**
 * What the WebContainer adapter uses of a booted WebContainer: structural subsets of @webcontainer/api's
 * `WebContainer`, its processes and its file system, so tests can give in-memory ones.
 */
import type { FileSystemTree } from '@webcontainer/api';

/** What this adapter uses of a booted WebContainer (a structural subset of `WebContainer`). */
export interface ContainerApi {
  readonly workdir: string;
  mount(tree: FileSystemTree, options?: { mountPoint?: string }): Promise<void>;
  spawn(command: string, args: string[], options?: { cwd?: string; terminal?: { cols: number; rows: number } }): Promise<ContainerProcess>;
  fs: ContainerFs;
  teardown(): void;
  /** `server-ready`: a process listens on a port, reachable by the page at `url`. */
  on?(event: 'server-ready', listener: (port: number, url: string) => void): () => void;
}

export interface ContainerProcess {
  output: ReadableStream<string>;
  input: WritableStream<string>;
  exit: Promise<number>;
  kill(): void;
}

export interface ContainerDirEntry {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
}

export interface ContainerFs {
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  mkdir(path: string, options: { recursive: true }): Promise<string>;
  rm(path: string, options?: { force?: boolean; recursive?: boolean }): Promise<void>;
  readdir(path: string, options: { withFileTypes: true }): Promise<ContainerDirEntry[]>;
  readFile(path: string): Promise<Uint8Array>;
}
