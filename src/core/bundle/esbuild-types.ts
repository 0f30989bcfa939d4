/** The part of esbuild's API the compiler uses: native esbuild and esbuild-wasm both provide it. */
import type { BuildContext, BuildOptions, BuildResult, Metafile, Message, OutputFile, Plugin, PluginBuild } from 'esbuild';

export type { BuildContext, BuildOptions, BuildResult, Message, Metafile, OutputFile, Plugin, PluginBuild };

export interface EsbuildApi {
  build<Options extends BuildOptions>(options: Options): Promise<BuildResult<Options>>;
  context<Options extends BuildOptions>(options: Options): Promise<BuildContext<Options>>;
  version: string;
  /** Ends the service (native: its process; wasm: its worker); a later call starts a new one. */
  stop?(): Promise<void>;
}
