/** The playground's entry on the main thread: the playground, or a preview opened in a tab of its own. */
import { render } from 'preact';
import { App } from './app';
import { previewTabRoute } from './preview/preview-channel';
import { PreviewTab } from './preview/preview-tab';
import './styles.css';

const tab = previewTabRoute(location.hash);
render(tab ? <PreviewTab projectId={tab.projectId} persona={tab.persona} /> : <App />, document.getElementById('app')!);
// The two pages do not turn into each other: a hash that leaves (or enters) a preview tab loads the page again.
addEventListener('hashchange', () => {
  if (!!previewTabRoute(location.hash) !== !!tab) location.reload();
});
