/**
 * The playground's toolbar: the personas, line wrapping and the shortcuts, the build's status and the
 * running call, resetting and restoring the data, presenter mode, the project's zip and sharing, and the
 * session's notices. It holds the share dialog's state and the zip's refusal; the rest is the session's
 * and the layout's.
 */
import { useState } from 'preact/hooks';
import type { PersonaName } from '../../core/runtime';
import type { RuntimeHost } from '../runtime/runtime-host';
import type { TestsState } from '../tests/test-session';
import { ShareDialog } from '../share/share-dialog';
import { downloadProjectZip } from '../share/zip-files';
import type { LoadProgress } from '../compiler-client';
import { CallStatus } from './call-status';
import { compileStatusText } from './compile-status';
import type { Layout } from './layout';
import type { usePresenter } from './presenter';
import { PersonaSwitcher } from './preview-pane';
import type { ProjectSession } from './project-session';
import { ShortcutsDialog } from './shortcuts-dialog';

export interface PlaygroundToolbarProps {
  session: ProjectSession;
  runtime: RuntimeHost;
  tests: TestsState;
  layout: Layout;
  setLayout(change: Partial<Layout>): void;
  /** The persona of the second preview, when the previews are split. */
  second: PersonaName;
  presenter: ReturnType<typeof usePresenter>;
  /** How far the compiler has loaded (its status says it until the compiler is ready). */
  progress: LoadProgress;
  showShortcuts: boolean;
  setShowShortcuts(shown: boolean): void;
}

export function PlaygroundToolbar({ session, runtime, tests, layout, setLayout, second, presenter, progress, showShortcuts, setShowShortcuts }: PlaygroundToolbarProps) {
  const [sharing, setSharing] = useState(false);
  const [zipError, setZipError] = useState<string | undefined>();
  const { presenting } = presenter;
  const { split } = layout;
  const { project: current, compile, diagnostics } = session.state;
  return (
    <div class="toolbar">
      <PersonaSwitcher persona={current.persona} split={split} second={second} onPersona={(p) => session.setPersona(p)} onSplit={(on) => setLayout({ split: on })} onSecond={(p) => setLayout({ second: p })} />
      {!presenting && (
        <>
          <label class="split-toggle" title="Wrap long lines in the editor">
            <input type="checkbox" checked={layout.wrap} onChange={(e) => setLayout({ wrap: (e.target as HTMLInputElement).checked })} /> wrap lines
          </label>
          <button type="button" class="link" aria-haspopup="dialog" onClick={() => setShowShortcuts(true)} title="Keyboard shortcuts (?)">
            Shortcuts
          </button>
        </>
      )}
      {showShortcuts && <ShortcutsDialog onClose={() => setShowShortcuts(false)} />}
      <span class={`compile-status ${compile === 'ready' ? 'ok' : compile === 'failed' ? 'error' : 'busy'}`} data-testid="compile-status" role="status" title={diagnostics.find((d) => d.code === 'DG1602')?.message}>
        {compileStatusText(session.state, progress)}
      </span>
      <CallStatus runtime={runtime} />
      {!presenting && (
        <button type="button" class="link" onClick={() => void session.resetData()} title="Drop the app's dev data and start empty (a recovery copy is kept)">
          Reset data
        </button>
      )}
      {!presenting && session.state.recovery && (
        <button type="button" class="link" onClick={() => void session.restoreRecovery()} title="Bring back the data the last reset dropped">
          Restore data from {new Date(session.state.recovery.savedAt).toLocaleTimeString()}
        </button>
      )}
      {presenting ? (
        <span class="toolbar-end">
          <button type="button" ref={presenter.exitButton} onClick={presenter.toggle} title="Back to the workspace (Shift+Alt+P)">
            Exit presenter mode
          </button>
        </span>
      ) : (
      <span class="toolbar-end">
        <button type="button" class="link" ref={presenter.presentButton} onClick={presenter.toggle} title="Larger type, a larger preview, no chrome: for a projector (Shift+Alt+P)">
          Present
        </button>
        <button
          type="button"
          class="link"
          onClick={() => {
            void downloadProjectZip(session).then((zipped) => setZipError(zipped.ok ? zipped.leftOut : `${zipped.error.code}: ${zipped.error.message}`));
          }}
          title="The project as a zip that platform check and platform test accept"
        >
          Download zip
        </button>
        <button type="button" aria-expanded={sharing} onClick={() => setSharing(!sharing)}>
          Share…
        </button>
      </span>
      )}
      {(session.state.notice || zipError) && (
        <div class={`notice ${session.state.notice?.tone === 'error' || zipError ? 'error' : ''}`} role={session.state.notice?.tone === 'error' || zipError ? 'alert' : 'status'} data-testid="session-notice">
          {zipError ?? (
            <>
              {session.state.notice!.code && <strong>{session.state.notice!.code} </strong>}
              {session.state.notice!.detailCode && <code>{session.state.notice!.detailCode} </code>}
              {session.state.notice!.message}
            </>
          )}
          <button type="button" class="link" aria-label="Dismiss" onClick={() => (setZipError(undefined), session.dismissNotice())}>
            ×
          </button>
        </div>
      )}
      {sharing && <ShareDialog session={session} tests={tests} onClose={() => setSharing(false)} />}
    </div>
  );
}
