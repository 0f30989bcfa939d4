/** The `ProjectStore` of a project kept in the browser: IndexedDB (src/ui/projects), the journal and file views in localStorage. */
import { isKnownGood, rememberGood } from '../projects/known-good';
import { clearPendingImport, clearRecovery, commitStore, journalProject, loadLastGood, loadRecovery, saveLastGood, saveProject, saveRecovery } from '../projects/store';
import { loadFileViews, saveFileViews } from '../workspace/file-views';
import type { ProjectStore } from './project-store';

export function browserProjectStore(id: string): ProjectStore {
  return {
    persistent: true,
    journal: (project) => journalProject(project),
    saveProject: (project) => saveProject(project),
    commits: commitStore(id),
    loadRecovery: () => loadRecovery(id),
    saveRecovery: (copy) => saveRecovery(id, copy),
    clearRecovery: () => clearRecovery(id),
    clearPendingImport: () => clearPendingImport(id),
    loadLastGood: () => loadLastGood(id),
    saveLastGood: (build) => saveLastGood(id, build),
    isKnownGood: (files) => isKnownGood(id, files),
    rememberGood: (files) => rememberGood(id, files),
    loadViews: () => loadFileViews(id),
    saveViews: (views) => saveFileViews(id, views),
  };
}
