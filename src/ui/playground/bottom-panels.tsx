/**
 * The playground's bottom panels: their tabs (the session's Problems, Console and Tests, then Events,
 * Data, Deploy and Terminal), the bar's maximise and collapse buttons, and the open panel. Panels most
 * sessions never open load when first shown (xterm.js alone is a third of the page's script).
 */
import { useRef } from 'preact/hooks';
import type { Diagnostic } from '../../core/diagnostics';
import { manifestName } from '../../core/manifest';
import type { CompilerClient } from '../compiler-client';
import type { BuiltArtifact } from '../deploy/deploy-api';
import { lazyComponent } from '../lazy';
import type { RuntimeHost } from '../runtime/runtime-host';
import { rovingTab, tabListKeys } from '../tab-list';
import type { Layout, PanelName } from './layout';
import { EventsPanel } from './panels';
import type { ProjectSession } from './project-session';
import { isSessionPanel, SessionPanel, SessionTabs, type SessionPanels } from './session-panels';

const DataPanel = lazyComponent(() => import('../data/data-panel').then((m) => m.DataPanel), 'data browser');
const DeployPanel = lazyComponent(() => import('../deploy/deploy-panel').then((m) => m.DeployPanel), 'deploy panel');
const TerminalPanel = lazyComponent(() => import('../terminal').then((m) => m.TerminalPanel), 'terminal');

/** True from the first time `open` is true. */
function useOpened(open: boolean): boolean {
  const opened = useRef(false);
  if (open) opened.current = true;
  return opened.current;
}

/** Every bundle and the artifact record, for a deploy; or the diagnostics that stopped the build. */
async function buildArtifact(compiler: CompilerClient, files: Record<string, string>): Promise<BuiltArtifact | { diagnostics: Diagnostic[] }> {
  const result = await compiler.compile(files, 'build');
  if (result?.artifactId && result.record && result.files) return { artifactId: result.artifactId, record: result.record, files: result.files };
  return { diagnostics: result?.diagnostics ?? [] };
}

/** The panels after the session's own, by tab. */
const MORE_PANELS: ReadonlyArray<[PanelName, string]> = [
  ['events', 'Events'],
  ['data', 'Data'],
  ['deploy', 'Deploy'],
  ['terminal', 'Terminal'],
];

export interface BottomPanelsProps {
  session: ProjectSession;
  runtime: RuntimeHost;
  compiler: CompilerClient;
  theme: 'light' | 'dark';
  panels: SessionPanels;
  layout: Pick<Layout, 'panel' | 'panelState'>;
  setLayout(change: Partial<Layout>): void;
  /** Shows a panel (opening the bottom panels when collapsed). */
  onPanel(name: PanelName): void;
  onRunTests(scope?: { file?: string; name?: string }): void;
  /** The problems as the Problems panel lists them, and whether the types have been checked. */
  problems: Diagnostic[];
  checked: boolean;
}

export function BottomPanels({ session, runtime, compiler, theme, panels, layout, setLayout, onPanel, onRunTests, problems, checked }: BottomPanelsProps) {
  const { panel, panelState } = layout;
  const current = session.state.project;
  const terminalOpened = useOpened(panel === 'terminal');
  const maximised = panelState === 'maximised';
  const collapsed = panelState === 'collapsed';
  return (
    <div class={`bottom-panels ${panelState}`} data-testid="bottom-panel" data-state={panelState}>
      <div class="panel-bar">
        <div role="tablist" aria-label="Panels" class="panel-tabs" onKeyDown={tabListKeys}>
          <SessionTabs selected={panel} onSelect={onPanel} panels={panels} problems={problems} checked={checked} />
          {MORE_PANELS.map(([name, label]) => (
            <button type="button" role="tab" key={name} aria-selected={panel === name} tabIndex={rovingTab(panel === name)} onClick={() => onPanel(name)}>
              {label}
            </button>
          ))}
        </div>
        <span class="panel-actions">
          <button type="button" class="icon-button" onClick={() => setLayout({ panelState: maximised ? 'open' : 'maximised' })} aria-label={maximised ? 'Restore the panel' : 'Maximise the panel'} title={maximised ? 'Restore the panel' : 'Maximise the panel'}>
            {maximised ? '▭' : '▢'}
          </button>
          <button type="button" class="icon-button" onClick={() => setLayout({ panelState: collapsed ? 'open' : 'collapsed' })} aria-label={collapsed ? 'Expand the panel' : 'Collapse the panel'} aria-expanded={!collapsed} title={collapsed ? 'Expand the panel' : 'Collapse the panel'}>
            {collapsed ? '⌃' : '⌄'}
          </button>
        </span>
      </div>
      {collapsed ? null : isSessionPanel(panel) ? (
        <SessionPanel name={panel} panels={panels} problems={problems} checked={checked} files={current.files} onRun={onRunTests} />
      ) : panel === 'data' ? (
        <DataPanel session={session} runtime={runtime} persona={current.persona} />
      ) : panel === 'deploy' ? (
        <DeployPanel projectId={current.id} projectName={manifestName(current.files) ?? current.title} buildArtifact={() => buildArtifact(compiler, current.files)} />
      ) : panel === 'terminal' ? null : (
        <EventsPanel events={session.state.events} />
      )}
      {/* Once opened, the terminal stays (hidden on other tabs): its scrollback and history live on. */}
      {terminalOpened && (
        <div class="terminal-slot" hidden={panel !== 'terminal' || collapsed}>
          <TerminalPanel files={() => session.state.project.files} compiler={compiler} theme={theme} onDependencies={(modules) => session.setDependencies(modules)} />
        </div>
      )}
    </div>
  );
}
