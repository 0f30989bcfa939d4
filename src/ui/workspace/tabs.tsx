/**
 * `<Tabs>`: the open files. A tab shows the file's name (its folder too when two open files share a
 * name), a dot when it has unsaved changes, and a close button.
 *
 * Keyboard (the WAI-ARIA tabs pattern, activation follows focus): Left/Right move between tabs and
 * open them, Home/End go to the first/last, Delete closes the focused tab. The close buttons are
 * reachable by mouse; the keyboard closes with Delete. Middle-click closes too.
 */
import { useRef } from 'preact/hooks';

export interface TabItem {
  path: string;
  /** Unsaved changes: shown as a dot. */
  dirty?: boolean;
}

export interface TabsProps {
  tabs: readonly TabItem[];
  active?: string | undefined;
  onSelect(path: string): void;
  onClose(path: string): void;
  /** The id of the element the tabs control (the editor), for `aria-controls`. */
  panelId?: string;
  label?: string;
}

const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const folderOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

export function Tabs({ tabs, active, onSelect, onClose, panelId, label = 'Open files' }: TabsProps) {
  const list = useRef<HTMLDivElement>(null);
  const names = new Map<string, number>();
  for (const tab of tabs) names.set(nameOf(tab.path), (names.get(nameOf(tab.path)) ?? 0) + 1);

  /** Focuses a tab now (it exists before and after the selection); its tabindex follows on render. */
  const focusTab = (path: string) => {
    list.current?.querySelector<HTMLElement>(`[role="tab"][data-path="${CSS.escape(path)}"]`)?.focus();
  };

  const close = (path: string) => {
    const index = tabs.findIndex((t) => t.path === path);
    const neighbour = tabs[index + 1] ?? tabs[index - 1];
    onClose(path);
    if (neighbour && path === active) focusTab(neighbour.path);
  };

  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const go = (to: number) => {
      const tab = tabs[(to + tabs.length) % tabs.length];
      if (!tab) return;
      onSelect(tab.path);
      focusTab(tab.path);
    };
    switch (event.key) {
      case 'ArrowRight':
        go(index + 1);
        break;
      case 'ArrowLeft':
        go(index - 1);
        break;
      case 'Home':
        go(0);
        break;
      case 'End':
        go(tabs.length - 1);
        break;
      case 'Delete':
        close(tabs[index]!.path);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  if (tabs.length === 0) return <div class="ws-tabs ws-tabs-empty" />;
  const focusable = tabs.some((t) => t.path === active) ? active : tabs[0]!.path;
  return (
    <div class="ws-tabs" role="tablist" aria-label={label} ref={list}>
      {tabs.map((tab, index) => {
        const selected = tab.path === active;
        const name = nameOf(tab.path);
        const folder = folderOf(tab.path);
        const ambiguous = (names.get(name) ?? 0) > 1 && folder;
        return (
          <div key={tab.path} role="presentation" class={`ws-tab${selected ? ' active' : ''}${tab.dirty ? ' dirty' : ''}`} title={tab.path}>
            <button
              type="button"
              role="tab"
              class="ws-tab-label"
              data-path={tab.path}
              aria-selected={selected}
              aria-controls={panelId}
              aria-label={tab.dirty ? `${tab.path} (unsaved)` : tab.path}
              tabIndex={tab.path === focusable ? 0 : -1}
              aria-keyshortcuts="Delete"
              onClick={() => onSelect(tab.path)}
              onAuxClick={(event) => {
                if (event.button === 1) {
                  event.preventDefault();
                  close(tab.path);
                }
              }}
              onKeyDown={(event) => onKeyDown(event, index)}
            >
              <span class="ws-tab-name">{name}</span>
              {ambiguous && <span class="ws-tab-folder">{folder}</span>}
            </button>
            {tab.dirty && <span class="ws-tab-dirty" aria-hidden="true" title="Unsaved changes" />}
            {/* For the pointer only: a tab list holds tabs and nothing else (a button beside each tab was
                an ARIA violation, aria-required-children); from the keyboard, Delete on the tab closes it. */}
            <span class="ws-tab-close" aria-hidden="true" title={`Close (Delete)`} onClick={() => close(tab.path)}>
              <svg viewBox="0 0 16 16" width="14" height="14" fill="none" stroke="currentColor" stroke-width="1.4" stroke-linecap="round">
                <path d="M4.5 4.5l7 7M11.5 4.5l-7 7" />
              </svg>
            </span>
          </div>
        );
      })}
    </div>
  );
}
