/** The catalogue as a Markdown reference page (docs/diagnostics.md is generated from it). */
import { catalogue, type DiagnosticArea } from './catalogue.ts';

const AREA_TITLES: Record<DiagnosticArea, string> = {
  command: 'Command (DG00xx)',
  manifest: 'Manifest (DG10xx, DG11xx)',
  'module-graph': 'Module graph and zones (DG12xx)',
  operations: 'Operations (DG13xx)',
  'budgets-assets': 'Budgets and assets (DG14xx)',
  bundling: 'Bundling (DG15xx)',
  'dev-loop': 'Development loop (DG16xx)',
  artifact: 'Artifact (DG17xx)',
  'local-state': 'Local state (DG18xx)',
  tests: 'Tests (DG19xx)',
  inspector: 'Inspector (DG20xx)',
  scaffold: 'Scaffold (DG30xx)',
  'agent-setup': 'Agent setup (DG31xx)',
  framework: 'Framework projects (DG32xx)',
  doctor: 'Doctor (DG40xx)',
  'builder-auth': 'Builder authentication (DG50xx)',
  deployment: 'Deployment (DG510x)',
  'project-identity': 'Project identity (DG511x, DG512x)',
  environment: 'Environment values (DG513x)',
  history: 'Deployment history (DG514x)',
  lifecycle: 'Lifecycle (DG515x)',
  rollback: 'Rollback (DG516x)',
  promote: 'Promote (DG517x)',
  tokens: 'Service tokens (DG518x)',
  domains: 'Domains (DG519x)',
};

export function catalogueMarkdown(): string {
  const lines = [
    '# Diagnostic catalogue',
    '',
    '<!-- Generated from src/core/diagnostics/catalogue.ts by `npm run docs:diagnostics`; do not edit by hand. -->',
    '',
    `Every code the platform can emit (${Object.keys(catalogue).length} codes). Dispatch on the code, never on the message.`,
    'Explain one from the command line with `platform diagnostics <code>`.',
  ];
  let area: DiagnosticArea | undefined;
  for (const [code, entry] of Object.entries(catalogue)) {
    if (entry.area !== area) {
      area = entry.area;
      lines.push('', `## ${AREA_TITLES[area]}`, '', '| Code | Severity | Title | Repair |', '|---|---|---|---|');
    }
    lines.push(`| ${code} | ${entry.severity} | ${entry.title} | ${entry.repair.replace(/\|/g, '\\|')} |`);
  }
  return `${lines.join('\n')}\n`;
}
