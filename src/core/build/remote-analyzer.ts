/**
 * Analyses with a type check on another thread (`platform dev`'s check thread): the thread reads the
 * project's directory itself and keeps its own type-check session, and the asking thread stays free to
 * serve and to start the next engine while the types are checked. Both sides of the messages are here,
 * as for the bundle thread (remote-bundler.ts); each host says how they travel.
 *
 * What crosses is plain data: the analysis without the project's file system (the asking side gives its
 * own for the same directory) and without the module graph's parsed sources (only the analysis reads
 * them; they stay with the session that parsed them). The partial analysis that `beforeTypecheck` is
 * given comes as a message of its own, before the check, so the bundle starts while the thread checks;
 * `betweenZones` is not passed on (it lets a bundle's answer in on a thread that checks, which the
 * asking thread no longer does).
 */
import { analyzeProject, type Analysis, type ModuleGraph, type TypeCheckSession } from '../analyze/index.ts';
import type { Library, Project, Zone } from '../project/index.ts';
import type { FileSystem } from '../fs/index.ts';
import { Asked } from '../bundle/index.ts';
import type { ProjectAnalyzer, RemoteAnalyzeOptions } from './build.ts';

/** An analysis as it crosses: no file system, no parsed sources. */
export type PortableAnalysis = Omit<Analysis, 'project' | 'graph'> & { project?: Omit<Project, 'fs'>; graph?: Omit<ModuleGraph, 'sources'> };

/** Structured-clone-safe, tagged by `type`. `early`: send the analysis before its type check (`before-typecheck`). */
export type AnalyzeRequest = { type: 'analyze'; id: number; root: string; early: boolean; focus?: string; zones?: readonly Zone[]; installUnavailable?: string };
export type AnalyzeAnswer = { type: 'before-typecheck'; id: number; analysis: PortableAnalysis } | { type: 'analyzed'; id: number; analysis: PortableAnalysis } | { type: 'failed'; id: number; message: string };

function portable(analysis: Analysis): PortableAnalysis {
  const { project, graph, ...rest } = analysis;
  const out: PortableAnalysis = { ...rest };
  if (project) {
    const { fs: _fs, ...plain } = project;
    out.project = plain;
  }
  if (graph) {
    const { sources: _sources, ...plain } = graph;
    out.graph = plain;
  }
  return out;
}

/** The analysis on the asking side: its file system given back to the project, and no parsed sources. */
function restored(analysis: PortableAnalysis, fs: FileSystem): Analysis {
  const { project, graph, ...rest } = analysis;
  return { ...rest, ...(project ? { project: { ...project, fs } } : {}), ...(graph ? { graph: { ...graph, sources: new Map() } } : {}) };
}

/** The asking side: requests numbered, answers matched to them. */
export class RemoteAnalyzer implements ProjectAnalyzer {
  readonly #post: (request: AnalyzeRequest) => void;
  readonly #root: (fs: FileSystem) => string;
  /** Each analysis waiting, with the file system and the options it was asked with. */
  readonly #asked = new Asked<Analysis, { fs: FileSystem; options: RemoteAnalyzeOptions }>();

  /** `post` sends a request to the checking thread; `root` names the directory it is to read for a file system (or throws). */
  constructor(post: (request: AnalyzeRequest) => void, root: (fs: FileSystem) => string) {
    this.#post = post;
    this.#root = root;
  }

  /** An answer from the checking thread. */
  answer(message: AnalyzeAnswer): void {
    const asked = this.#asked.held(message.id);
    if (!asked) return;
    if (message.type === 'before-typecheck') {
      // Called at once, so that what it starts (the bundle) is started before the analysis is answered.
      const before = asked.options.beforeTypecheck;
      if (before) void Promise.resolve(before(restored(message.analysis, asked.fs))).catch(() => undefined);
      return;
    }
    this.#asked.settle(message.id, message.type === 'analyzed' ? { result: restored(message.analysis, asked.fs) } : { error: new Error(message.message) });
  }

  /** The checking thread is gone: every analysis asked for, and every one asked for later, fails with this. */
  fail(error: Error): void {
    this.#asked.fail(error);
  }

  analyze(fs: FileSystem, options: RemoteAnalyzeOptions): Promise<Analysis> {
    return this.#asked.ask({ fs, options }, (id) =>
      this.#post({
        type: 'analyze',
        id,
        root: this.#root(fs),
        early: options.beforeTypecheck !== undefined,
        ...(options.focus !== undefined ? { focus: options.focus } : {}),
        ...(options.zones ? { zones: options.zones } : {}),
        ...(options.installUnavailable !== undefined ? { installUnavailable: options.installUnavailable } : {}),
      }),
    );
  }

  /** Ends nothing by itself: the host ends its thread. Analyses still waiting fail. */
  async dispose(): Promise<void> {
    this.fail(new Error('The analyzer was closed.'));
  }
}

/**
 * The checking side: answers requests one at a time with the thread's long-lived session (two analyses
 * at once would interleave on it). `directory` reads a project directory; `now` is the thread's clock.
 */
export function analysisAnswerer(library: Library, session: TypeCheckSession, directory: (root: string) => FileSystem, now: () => number): (request: AnalyzeRequest, post: (answer: AnalyzeAnswer) => void) => Promise<void> {
  let queue: Promise<void> = Promise.resolve();
  return (request, post) => {
    const run = async () => {
      try {
        const analysis = await analyzeProject(directory(request.root), {
          library,
          typecheck: session,
          now,
          ...(request.focus !== undefined ? { focus: request.focus } : {}),
          ...(request.zones ? { zones: request.zones } : {}),
          ...(request.installUnavailable !== undefined ? { installUnavailable: request.installUnavailable } : {}),
          ...(request.early ? { beforeTypecheck: async (partial: Analysis) => post({ type: 'before-typecheck', id: request.id, analysis: portable(partial) }) } : {}),
        });
        post({ type: 'analyzed', id: request.id, analysis: portable(analysis) });
      } catch (error) {
        post({ type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) });
      }
    };
    queue = queue.then(run);
    return queue;
  };
}
