/** A component loaded on first render (its module, and what only it imports, stay out of the page's first load). */
import type { ComponentType, FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>, label: string): FunctionComponent<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  return function Lazy(props: P) {
    const [Component, setComponent] = useState<ComponentType<P> | undefined>(() => loaded);
    const [failure, setFailure] = useState<string | undefined>();
    useEffect(() => {
      if (Component) return;
      loading ??= load().then((component) => (loaded = component));
      loading.then(
        (component) => setComponent(() => component),
        (error: unknown) => {
          loading = undefined;
          setFailure(error instanceof Error ? error.message : String(error));
        },
      );
    }, []);
    if (failure) return <p class="muted lazy-status" role="alert">The {label} could not be loaded: {failure}</p>;
    if (!Component) return <p class="muted lazy-status">Loading the {label}…</p>;
    return <Component {...props} />;
  };
}
