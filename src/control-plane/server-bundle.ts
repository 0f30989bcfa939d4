/** The check of a server bundle at receipt: an ES module that parses and imports nothing, since a bundle contains all it runs. */
import { transform } from 'esbuild';
import { init, parse } from 'es-module-lexer';

const SHOWN = 120;
const shown = (text: string) => JSON.stringify(text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text);

/**
 * Why a server bundle may not run, or undefined. It must parse as an ES module (esbuild's parser), and
 * import nothing (es-module-lexer): no `import … from`, no `export … from`, no `import()` of any
 * specifier, literal or computed, not even of `node:*` or a URL. `import.meta` is allowed: it names
 * the module itself. Code that builds an import at run time (`new Function`, `eval`) is not visible
 * here; the host the app runs in is what keeps it from anything outside.
 */
export async function serverBundleProblem(source: string): Promise<string | undefined> {
  try {
    await transform(source, { loader: 'js', format: 'esm', logLevel: 'silent' });
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string; location?: { line: number; column: number } | null }> }).errors?.[0];
    return first ? `it does not parse as a module: ${first.text}${first.location ? ` (line ${first.location.line}, column ${first.location.column + 1})` : ''}` : 'it does not parse as a module';
  }
  await init;
  let imports: ReturnType<typeof parse>[0];
  try {
    [imports] = parse(source);
  } catch (error) {
    return `it does not parse as a module: ${error instanceof Error ? error.message : String(error)}`;
  }
  for (const entry of imports) {
    // import.meta (t 3) is the module itself.
    if (entry.t === 3) continue;
    const statement = source.slice(entry.ss, entry.se);
    if (entry.d >= 0 && entry.n === undefined) return `it imports a computed specifier (${shown(statement)}); a bundle imports nothing`;
    return `it imports ${shown(entry.n ?? statement)}; a bundle contains everything it runs and imports nothing`;
  }
  return undefined;
}
