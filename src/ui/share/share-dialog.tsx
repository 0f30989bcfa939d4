/** The Share popover: the project's link (with or without its data), "Copy bug report", copied to the clipboard. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ProjectSession } from '../playground/project-session';
import type { TestsState } from '../tests/test-session';
import { buildShareLink, bugReportFor, type BuiltLink } from './share';

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

export function ShareDialog({ session, tests, onClose }: { session: ProjectSession; tests: TestsState; onClose(): void }) {
  const [withData, setWithData] = useState(true);
  const [built, setBuilt] = useState<BuiltLink | undefined>();
  const [copied, setCopied] = useState<string | undefined>();
  const [report, setReport] = useState<string | undefined>();
  const [note, setNote] = useState('');
  const files = session.state.project.files;
  const persona = session.state.project.persona;
  const active = session.state.project.activeFile;

  useEffect(() => {
    let live = true;
    setBuilt(undefined);
    setReport(undefined);
    setCopied(undefined);
    void buildShareLink(session, withData).then((link) => live && setBuilt(link));
    return () => {
      live = false;
    };
  }, [session, withData, files, persona, active]);

  // The popover takes the focus as it opens, and gives it back to what opened it (the Share button) as
  // it closes, by Escape or ×: before, focus stayed behind it and then fell to the page's body.
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    root.current?.focus();
    return () => {
      const lost = !document.activeElement || document.activeElement === document.body || root.current?.contains(document.activeElement);
      if (lost && opener?.isConnected) opener.focus();
    };
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onClose]);

  const copyLink = async () => {
    if (built?.ok) setCopied((await copy(built.url)) ? 'The link is copied.' : 'The clipboard refused: select the link and copy it.');
  };
  const copyReport = async () => {
    if (!built?.ok) return;
    const text = bugReportFor(session, tests, built.url, note);
    setReport(text);
    setCopied((await copy(text)) ? 'The bug report is copied: paste it into an issue.' : 'The clipboard refused: select the report and copy it.');
  };

  return (
    <div class="share-dialog" role="dialog" aria-label="Share" tabIndex={-1} ref={root}>
      <div class="share-head">
        <strong>Share this project</strong>
        <button type="button" class="link" onClick={onClose} aria-label="Close">
          ×
        </button>
      </div>
      <label>
        <input type="checkbox" checked={withData} onChange={(e) => setWithData((e.target as HTMLInputElement).checked)} /> Include the app’s data
      </label>
      <p class="muted">
        The link holds the files, the data if included (the database records and stored objects up to 256 KiB), the persona (<code>{persona}</code>) and the open file. It stays in the URL fragment: no server sees it.
      </p>
      {!built ? (
        <p class="muted">Making the link…</p>
      ) : !built.ok ? (
        <p role="alert" class="error-text" data-code={built.error.code}>
          <strong>{built.error.code}</strong>: {built.error.message}
        </p>
      ) : (
        <>
          <textarea class="share-link" readonly rows={3} data-testid="share-link" value={built.url} onFocus={(e) => (e.target as HTMLTextAreaElement).select()} aria-label="Share link" />
          <p class="muted" data-testid="share-size">
            {built.url.length.toLocaleString()} characters{built.withData ? ', with the data' : ', without data'}.
          </p>
          {built.dataNote && <p class="error-text">{built.dataNote}</p>}
          {built.includes && (
            <p class="muted" data-testid="share-includes">
              {built.includes}
            </p>
          )}
          {built.leftOut && (
            <p class="share-left-out" data-testid="share-left-out">
              {built.leftOut}
            </p>
          )}
          <div class="share-actions">
            <button type="button" onClick={() => void copyLink()}>
              Copy link
            </button>
            <button type="button" onClick={() => void copyReport()}>
              Copy bug report
            </button>
          </div>
          <label class="stacked">
            What went wrong (optional, goes into the bug report)
            <input type="text" value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
          </label>
        </>
      )}
      {copied && <p role="status">{copied}</p>}
      {report && <textarea class="share-link" readonly rows={8} data-testid="bug-report" value={report} aria-label="Bug report" />}
    </div>
  );
}
