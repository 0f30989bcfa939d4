/** `build`: analysis, bundling, then a content-addressed artifact written under `.platform/` and verified. */
import { analyzeProject, type Analysis, type AnalyzeOptions, type TypeCheckSession } from '../analyze/index.ts';
import { type Zone, suppliedVersion, type Library } from '../project/index.ts';
import { hasErrors, type Diagnostic } from '../diagnostics/index.ts';
import type { FileSystem, WritableFileSystem } from '../fs/index.ts';
import ts from 'typescript';
import { hashSources, makeArtifact, verifyLatest, writeArtifact, type ArtifactRecord } from './artifact.ts';
import { ALL_TARGETS, bundleProject, type BuildTarget, type BundleOptions, type BundleResult, type ProjectBundler, type EsbuildApi } from '../bundle/index.ts';
import type { Manifest } from '../manifest/index.ts';
import { withFrameworkClient } from './framework.ts';

/** What a host gives the compiler: an esbuild, the platform Library and a type-check session. */
export interface Compiler {
  esbuild: EsbuildApi;
  library: Library;
  typecheck: TypeCheckSession;
  /** Why npm packages cannot be installed in this host, for DG1208. */
  installUnavailable?: string;
  /** The host's clock in milliseconds, for timings. */
  now?: () => number;
  /** A long-lived bundler whose esbuild contexts make rebuilds incremental; one is made per build without it. */
  bundler?: ProjectBundler;
  /**
   * Where a checked analysis runs when not here (`platform dev` in Node: a thread of its own, so that
   * this thread serves, and starts the next engine, while the types are checked); analyzeProject with
   * `typecheck` when absent. It keeps its own type-check session.
   */
  analyzer?: ProjectAnalyzer;
}

/** The options of an analysis run elsewhere: all but the Library and the session, which it has. */
export type RemoteAnalyzeOptions = Omit<AnalyzeOptions, 'library' | 'typecheck' | 'now'>;

/** Runs analyses with a type check somewhere else (its own session, its own clock for the timings). */
export interface ProjectAnalyzer {
  analyze(fs: FileSystem, options: RemoteAnalyzeOptions): Promise<Analysis>;
}

/** The analysis of a compile: checked by the compiler's analyzer when it has one, else here. */
export function analyzeFor(compiler: Compiler, fs: FileSystem, options: Omit<AnalyzeOptions, 'library' | 'typecheck'> & { typecheck?: false }): Promise<Analysis> {
  const { now: _now, typecheck, ...rest } = options;
  if (typecheck !== false && compiler.analyzer) return compiler.analyzer.analyze(fs, rest);
  return analyzeProject(fs, { ...options, library: compiler.library, typecheck: typecheck === false ? false : compiler.typecheck });
}

export interface BuildOutcome {
  analysis: Analysis;
  id?: string;
  record?: ArtifactRecord;
  files?: Map<string, Uint8Array>;
  sizes?: { clientBytes: number; appShareBytes: number };
  diagnostics: Diagnostic[];
  /** Milliseconds spent bundling (0 when bundling did not run). */
  bundleTime: number;
}

export interface CompileOptions {
  /** A file to type-check first (the one being edited). */
  focus?: string;
  /** What to bundle: everything for an artifact (the default), client and server for a preview. */
  targets?: readonly BuildTarget[];
  /** False to bundle without type-checking (the host knows the files check cleanly); true by default. */
  typecheck?: boolean;
  /**
   * How the bundler bundles (`preview`: the playground's preview only; never with every target, which
   * makes an artifact). Only a long-lived bundler is given it.
   */
  bundle?: BundleOptions;
  /** The zones whose files are type-checked (all three by default). */
  zones?: readonly Zone[];
  /**
   * With a long-lived bundler: hand what was bundled before the type check to this (its manifest and
   * files) while the types are checked. A build with type errors is still refused whole.
   */
  onBundled?(bundled: { manifest: Manifest; files: ReadonlyMap<string, Uint8Array> }): void;
}

/** Analyses and bundles a project, and makes its artifact (in memory) when every target was bundled. */
export async function compileProject(fs: WritableFileSystem, compiler: Compiler, options: CompileOptions = {}): Promise<BuildOutcome> {
  const now = compiler.now ?? (() => 0);
  const targets = options.targets ?? ALL_TARGETS;
  const { bundler } = compiler;
  // An artifact is made from every target: never from a preview's bundles.
  const bundleOptions = options.bundle?.preview && ALL_TARGETS.every((t) => targets.includes(t)) ? undefined : options.bundle;
  const { onBundled } = options;
  // With a long-lived bundler the bundle is made before the type check: off this thread it runs while
  // the types are checked; on it (esbuild's plugin reads here) it is done first, so that `onBundled`
  // can start what it starts while the check runs.
  let early: Promise<{ bundle: BundleResult; time: number }> | undefined;
  /** The compile has given its outcome: a bundle answered later (off this thread, after a failed check) starts nothing. */
  let answered = false;
  const beforeTypecheck =
    bundler && (onBundled || bundler.offThread)
      ? async (partial: Analysis) => {
          const bundling = now();
          early = bundler.bundle(partial.project!, targets, bundleOptions).then((bundle) => {
            if (onBundled && !answered && !hasErrors(bundle.diagnostics)) onBundled({ manifest: partial.manifest!, files: bundle.files });
            return { bundle, time: now() - bundling };
          });
          // A build whose analysis or check fails does not wait for it, nor leave it unhandled.
          early.catch(() => undefined);
          if (!bundler.offThread) await early;
        }
      : undefined;
  // A bundle made on another thread for `onBundled`: its answer is let in between the server's check and the client's.
  const betweenZones = onBundled && bundler?.offThread ? () => new Promise<void>((resume) => setTimeout(resume, 0)) : undefined;
  const analysis = await analyzeFor(compiler, fs, { ...(options.typecheck === false ? { typecheck: false as const } : {}), installUnavailable: compiler.installUnavailable, focus: options.focus, now, zones: options.zones, ...(beforeTypecheck ? { beforeTypecheck } : {}), ...(betweenZones ? { betweenZones } : {}) });
  const diagnostics = [...analysis.diagnostics];
  if (hasErrors(diagnostics) || !analysis.project || !analysis.manifest || !analysis.operations) {
    answered = true;
    return { analysis, diagnostics, bundleTime: 0 };
  }
  const bundling = now();
  const made = early ? await early : undefined;
  const bundle = made?.bundle ?? (bundler ? await bundler.bundle(analysis.project, targets, bundleOptions) : await bundleProject(compiler.esbuild, compiler.library, analysis.project, targets));
  const bundleTime = made?.time ?? now() - bundling;
  diagnostics.push(...bundle.diagnostics);
  // A framework project initialised by `platform init` serves its framework's build output as the client.
  if (targets.includes('client')) diagnostics.push(...(await withFrameworkClient(fs, bundle.files)));
  if (hasErrors(diagnostics)) return { analysis, diagnostics, sizes: bundle.sizes, bundleTime };
  if (ALL_TARGETS.some((t) => !targets.includes(t))) return { analysis, diagnostics, files: bundle.files, sizes: bundle.sizes, bundleTime };
  const { id, record } = makeArtifact(
    {
      name: analysis.manifest.name,
      manifest: analysis.manifest,
      contract: analysis.operations,
      toolchain: { platform: compiler.library.toolchainVersion, preact: compiler.library.rendererVersion, ...(analysis.project.renderer === 'react' ? { react: suppliedVersion(compiler.library, 'react') } : {}), typescript: ts.version, esbuild: compiler.esbuild.version },
    },
    bundle.files,
  );
  return { analysis, id, record, files: bundle.files, sizes: bundle.sizes, diagnostics, bundleTime };
}

/** `platform build`: compile, write the artifact and the generated types, then verify what was written. */
export async function buildProject(fs: WritableFileSystem, compiler: Compiler): Promise<BuildOutcome> {
  const outcome = await compileProject(fs, compiler);
  for (const [path, text] of outcome.analysis.generated) await fs.writeFile(path, text);
  if (!outcome.id || !outcome.record || !outcome.files) return outcome;
  await writeArtifact(fs, outcome.id, outcome.record, outcome.files, await hashSources(fs));
  const verification = await verifyLatest(fs);
  return { ...outcome, diagnostics: [...outcome.diagnostics, ...verification.diagnostics] };
}
