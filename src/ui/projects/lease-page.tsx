/** The page of a project open in another tab: this tab waits for it, and can take it over or open a copy. */
import { useState } from 'preact/hooks';
import type { LeaseHolder } from './lease';
import { openDuplicate } from './project-actions';
import type { Project } from './store';

export function LeasePage({ project, holder, moved, onTakeOver }: { project: Project; holder?: LeaseHolder | undefined; moved?: boolean | undefined; onTakeOver(): void }) {
  const [asked, setAsked] = useState(false);
  return (
    <div class="page-message" role="alert" data-testid="lease-held" data-moved={moved ? 'true' : undefined}>
      {moved ? (
        <p>
          <strong>{project.title}</strong> moved to another tab: it was saved here first, and is edited there now. This tab opens it again by itself when
          that tab closes.
        </p>
      ) : (
        <p>
          <strong>{project.title}</strong> is open in another tab
          {holder ? ` (since ${new Date(holder.since).toLocaleTimeString()})` : ''}. A project is edited in one tab at a time, so neither tab overwrites the
          other; this tab opens it by itself when that tab closes.
        </p>
      )}
      <p class="lease-actions">
        <button
          type="button"
          disabled={asked}
          onClick={() => {
            setAsked(true);
            onTakeOver();
          }}
        >
          {moved ? 'Take it back' : 'Take over'}
        </button>{' '}
        <button type="button" onClick={() => void openDuplicate(project.id)}>
          Open a copy here
        </button>{' '}
        <a href="#/">Back to the templates and projects</a>
      </p>
      {asked && (
        <p class="muted" role="status">
          Asking the other tab to save and hand the project over…
        </p>
      )}
    </div>
  );
}
