/** The prebuilt entry's URL under the checkout `root` (a URL ending in /), or undefined when it is missing or stale. */
export function prebuiltEntry(root: URL): URL | undefined;
