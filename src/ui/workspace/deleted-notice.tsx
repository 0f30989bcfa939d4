/**
 * `<DeletedNotice>`: "Deleted <name> · Undo" after a file or a folder was deleted. It stays for
 * `DELETED_NOTICE_MS` (restarted by each new deletion), then goes with the chance to undo
 * (`onDismiss`); Undo brings the files back (`onUndo`).
 */
import { useEffect } from 'preact/hooks';

/** How long the chance to undo a deletion is offered. */
export const DELETED_NOTICE_MS = 15_000;

export interface DeletedNoticeProps {
  /** Identifies one deletion: a new one restarts the wait. */
  deletion: { name: string; files: number };
  onUndo(): void;
  onDismiss(): void;
}

export function DeletedNotice({ deletion, onUndo, onDismiss }: DeletedNoticeProps) {
  useEffect(() => {
    const timer = setTimeout(onDismiss, DELETED_NOTICE_MS);
    return () => clearTimeout(timer);
  }, [deletion]);
  const { name, files } = deletion;
  return (
    <div class="ws-deleted-notice" role="status" data-testid="deleted-notice" title={files > 1 ? `${files} files` : undefined}>
      <span class="ws-deleted-name">Deleted {name}</span>
      <span aria-hidden="true"> · </span>
      <button type="button" class="ws-link-button" onClick={onUndo}>
        Undo
      </button>
      <button type="button" class="ws-link-button" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </div>
  );
}
