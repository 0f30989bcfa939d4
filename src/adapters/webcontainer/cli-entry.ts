/** The entry of the CLI bundle that `node` runs in a WebContainer: the same main as bin/platform.mjs, without tsx. */
import { main } from '../../cli/main';

process.exitCode = await main(process.argv.slice(2));
