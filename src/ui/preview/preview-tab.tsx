/**
 * The page of a preview opened in a tab of its own (`#/p/<id>/preview/<persona>`): the same sandboxed
 * preview frame as in the playground, filling the tab, as that persona. Its calls go to the runtime
 * of the playground tab that has the project open (preview-channel.ts); without one it waits, and
 * picks the preview up when the project is opened (or reloaded) there.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { PersonaName } from '../../core/runtime';
import { OnePreview } from '../playground/preview-pane';
import { PreviewTabClient, type PreviewApp } from './preview-channel';

export function PreviewTab({ projectId, persona }: { projectId: string; persona: PersonaName }) {
  const [app, setApp] = useState<PreviewApp | null | 'closed' | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>();
  const client = useMemo(() => new PreviewTabClient(projectId, setApp), [projectId]);
  useEffect(() => {
    const close = () => client.close();
    addEventListener('pagehide', close);
    return () => {
      removeEventListener('pagehide', close);
      close();
    };
  }, [client]);
  // Nobody answered (no playground tab has the project open, or it is loading): ask again now and then.
  useEffect(() => {
    if (app && app !== 'closed') return undefined;
    const again = setInterval(() => client.hello(), 1000);
    return () => clearInterval(again);
  }, [client, app]);
  // The playground's theme, when its toggle chose one (else the system's, through color-scheme).
  useEffect(() => {
    try {
      const stored = localStorage.getItem('platform-theme');
      if (stored === 'light' || stored === 'dark') document.documentElement.dataset.theme = stored;
    } catch {
      // Storage refused: the system's theme.
    }
  }, []);
  const shown = app && app !== 'closed' ? app : undefined;
  useEffect(() => {
    document.title = shown ? `${shown.title} as ${persona} · Preview` : 'Preview · Platform Playground';
  }, [shown?.title, persona]);
  return (
    <div class="preview-tab" data-persona={persona}>
      {notice && (
        <div class="notice banner info" role="status" data-testid="preview-tab-notice">
          {notice}
          <button type="button" class="link" aria-label="Dismiss" onClick={() => setNotice(undefined)}>
            ×
          </button>
        </div>
      )}
      {shown ? (
        <OnePreview
          persona={persona}
          app={shown}
          runtime={client}
          events={{ onNotice: setNotice }}
          crashOf={(_, message) => ({ message })}
        />
      ) : (
        <p class="page-message muted" role="status" data-testid="preview-tab-waiting">
          {app === 'closed' || app === undefined
            ? 'Waiting for the project: this preview runs on the data of the playground tab that has the project open. Open the project there (or keep it open) and the preview starts here.'
            : 'The preview appears when the app builds.'}{' '}
          <a href={`#/p/${projectId}`} target="_blank" rel="noopener">
            Open the project
          </a>
        </p>
      )}
    </div>
  );
}
