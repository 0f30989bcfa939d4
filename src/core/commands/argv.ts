/** Command-line argument parsing against a command's declared options, with DG0002 for what does not fit. */
import type { Result } from '../result.ts';
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import { didYouMean } from '../text/index.ts';
import type { Invocation, OptionSpec, PositionalSpec } from './types.ts';

/** Options every command accepts. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'Print one machine-readable envelope instead of text.' },
  help: { type: 'boolean', description: 'Show this command\'s usage.' },
};

/** An option given twice, a flag as much as a string option: which one was meant cannot be told. */
const given = (name: string): Diagnostic => diagnostic('DG0002', `--${name} is given more than once.`, { hint: `Give --${name} once.` });

export type ParseResult = Result<{ invocation: Invocation }, { diagnostics: Diagnostic[] }>;

/**
 * Parses `--name value`, `--name=value` and `--flag`; `--` ends the options. Unknown options, a string
 * option without its value, a value given to a boolean flag, an option given twice and surplus positionals
 * are each DG0002.
 */
export function parseArguments(args: readonly string[], options: Record<string, OptionSpec>, positionals: readonly PositionalSpec[]): ParseResult {
  const all = { ...GLOBAL_OPTIONS, ...options };
  const diagnostics: Diagnostic[] = [];
  const invocation: Invocation = { positionals: [], options: {} };
  let onlyPositionals = false;

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (onlyPositionals || !arg.startsWith('-') || arg === '-') {
      invocation.positionals.push(arg);
      continue;
    }
    if (arg === '--') {
      onlyPositionals = true;
      continue;
    }
    const match = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    const name = match?.[1];
    const spec = name === undefined ? undefined : all[name];
    if (!match || name === undefined || !spec) {
      const shown = name ?? arg;
      diagnostics.push(
        diagnostic('DG0002', `Unknown option ${arg.split('=')[0]}.`, {
          hint: didYouMean(shown, Object.keys(all))?.replace(/"([^"]+)"/, '"--$1"') ?? `Options: ${Object.keys(all).map((o) => `--${o}`).join(', ')}.`,
        }),
      );
      continue;
    }
    const inline = match[2];
    if (spec.type === 'boolean') {
      if (inline !== undefined) {
        diagnostics.push(diagnostic('DG0002', `--${name} is a flag and takes no value (got "${inline}").`, { hint: `Write --${name} alone.` }));
      } else if (invocation.options[name] !== undefined) {
        diagnostics.push(given(name));
      } else {
        invocation.options[name] = true;
      }
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2)) {
        diagnostics.push(diagnostic('DG0002', `--${name} needs a value.`, { hint: `Write --${name} ${spec.valueName ?? '<value>'}.` }));
        continue;
      }
      value = next;
      i++;
    }
    if (invocation.options[name] !== undefined) {
      diagnostics.push(given(name));
      continue;
    }
    invocation.options[name] = value;
  }

  if (!invocation.options.help) {
    if (invocation.positionals.length > positionals.length) {
      const extra = invocation.positionals.slice(positionals.length);
      diagnostics.push(
        diagnostic('DG0002', `Unexpected argument${extra.length > 1 ? 's' : ''}: ${extra.map((e) => JSON.stringify(e)).join(' ')}.`, {
          hint: positionals.length ? `This command takes ${positionals.map((p) => `<${p.name}>`).join(' ')}.` : 'This command takes no arguments.',
        }),
      );
    }
    for (const [index, spec] of positionals.entries()) {
      if (spec.required && invocation.positionals[index] === undefined) {
        diagnostics.push(diagnostic('DG0002', `Missing argument <${spec.name}>.`, { hint: spec.description }));
      }
    }
  }
  return diagnostics.length ? { ok: false, diagnostics } : { ok: true, invocation };
}
