/**
 * The runtime sandbox's code (worker/runtime-sandbox.ts bundled with sql.js into one classic script),
 * as a string, provided by vite/runtime-sandbox-plugin.ts. The trusted page starts it as a blob worker
 * inside the sandboxed iframe (src/ui/runtime/sandbox-frame.ts).
 */
declare module 'virtual:runtime-sandbox' {
  const code: string;
  export default code;
}
