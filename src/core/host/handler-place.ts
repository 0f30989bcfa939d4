/**
 * Where an operation's handler is in the server bundle, as a stack frame names a place
 * (`platform-app/server/index.js:12:20`), which the page maps through the bundle's source map. It is
 * told with each preview call as it begins: a handler stuck in a synchronous loop is stopped by ending
 * its worker, which leaves no stack to read, so this is the only place the page can show for it.
 */

/** The handler of `kind name` in a server definition: own data properties only (no getter of the app's runs). */
function handlerOf(definition: unknown, kind: 'query' | 'mutation', name: string): unknown {
  const own = (object: unknown, key: string): unknown => {
    if (typeof object !== 'object' || object === null) return undefined;
    const property = Object.getOwnPropertyDescriptor(object, key);
    return property && 'value' in property ? property.value : undefined;
  };
  return own(own(own(definition, kind === 'query' ? 'queries' : 'mutations'), name), 'handler');
}

/**
 * Finds each handler's source text in `code` (the bundle the definition came from) once, on first
 * ask: its place when the text occurs exactly once, else undefined (a short handler written twice
 * cannot be told apart).
 */
export function handlerPlaces(definition: unknown, code: string, url: string): (kind: 'query' | 'mutation', name: string) => string | undefined {
  const places = new Map<string, string | undefined>();
  return (kind, name) => {
    const key = `${kind} ${name}`;
    if (places.has(key)) return places.get(key);
    let place: string | undefined;
    try {
      const handler = handlerOf(definition, kind, name);
      const text = typeof handler === 'function' ? Function.prototype.toString.call(handler) : '';
      const at = text.length >= 8 ? code.indexOf(text) : -1;
      if (at >= 0 && code.indexOf(text, at + 1) < 0) {
        const lineStart = code.lastIndexOf('\n', at - 1) + 1;
        let line = 1;
        for (let i = code.indexOf('\n'); i !== -1 && i < at; i = code.indexOf('\n', i + 1)) line++;
        // As V8's stack frames give them: 1-based line and column.
        place = `${url}:${line}:${at - lineStart + 1}`;
      }
    } catch {
      place = undefined;
    }
    places.set(key, place);
    return place;
  };
}
