/** `platform diagnostics <code>`: explains a code from the catalogue. */
import { catalogue, diagnostic, envelope, isDiagnosticCode, type CatalogueEntry } from '../diagnostics/index.ts';
import { didYouMean } from '../text/index.ts';
import type { CommandDefinition } from './types.ts';

export interface ExplainResult extends CatalogueEntry {
  code: string;
}

export const explain: CommandDefinition<ExplainResult> = {
  name: 'diagnostics',
  summary: 'Explain a diagnostic code: what it means and how to repair it.',
  positionals: [{ name: 'code', required: true, description: 'A diagnostic code such as DG1003.' }],
  options: {},
  async run(invocation) {
    const raw = invocation.positionals[0]!.trim();
    const code = /^\d{4}$/.test(raw) ? `DG${raw}` : raw.toUpperCase();
    if (!isDiagnosticCode(code)) {
      const wellFormed = /^DG\d{4}$/.test(code);
      return envelope('diagnostics', [
        diagnostic('DG0002', wellFormed ? `${code} is not in the diagnostic catalogue.` : `"${raw}" is not a diagnostic code.`, {
          hint: didYouMean(code, Object.keys(catalogue)) ?? 'Codes are DG followed by four digits, for example DG1003.',
        }),
      ]);
    }
    return envelope('diagnostics', [], { code, ...catalogue[code] });
  },
  text({ result }) {
    if (!result) return '';
    return `${result.code} (${result.severity}, ${result.area}): ${result.title}\n\n${result.repair}`;
  },
};
