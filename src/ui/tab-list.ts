/**
 * The keyboard of a tab list (WAI-ARIA's tabs pattern, activation follows focus): Left and Right move
 * to the previous and next tab, wrapping, Home and End to the first and last; the tab reached is
 * focused and selected (clicked). Put `onKeyDown={tabListKeys}` on the element with `role="tablist"`,
 * and give its tabs a roving tab stop with `rovingTab(selected)`: only the selected tab is in the
 * page's tab order.
 */
export function tabListKeys(event: KeyboardEvent): void {
  const list = event.currentTarget as HTMLElement | null;
  if (!list || event.altKey || event.ctrlKey || event.metaKey) return;
  const tabs = [...list.querySelectorAll<HTMLElement>('[role="tab"]')].filter((tab) => !tab.hidden && tab.closest('[role="tablist"]') === list);
  const at = tabs.indexOf(document.activeElement as HTMLElement);
  if (at < 0 || tabs.length === 0) return;
  const next = event.key === 'ArrowRight' ? (at + 1) % tabs.length : event.key === 'ArrowLeft' ? (at - 1 + tabs.length) % tabs.length : event.key === 'Home' ? 0 : event.key === 'End' ? tabs.length - 1 : -1;
  if (next < 0) return;
  event.preventDefault();
  tabs[next]!.focus();
  tabs[next]!.click();
}

/** The tab stop of a tab in a list using tabListKeys: the selected tab only. */
export const rovingTab = (selected: boolean): number => (selected ? 0 : -1);
