/**
 * The bundled templates' preview bundles (vite/template-artifacts-plugin.ts): digest of a template's
 * files → a loader of its bundles (bundle path → text).
 */
declare module 'virtual:template-artifacts' {
  const artifacts: Record<string, () => Promise<{ default: Record<string, string> }>>;
  export default artifacts;
}
