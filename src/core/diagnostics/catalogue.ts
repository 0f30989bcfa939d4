/** The diagnostic catalogue: every code the platform can emit, as data (severity, title, repair). */

export type Severity = 'error' | 'warning' | 'info';

export type DiagnosticArea =
  | 'command' | 'manifest' | 'module-graph' | 'operations' | 'budgets-assets' | 'bundling'
  | 'dev-loop' | 'artifact' | 'local-state' | 'tests' | 'inspector' | 'scaffold' | 'agent-setup'
  | 'framework' | 'doctor' | 'builder-auth' | 'deployment' | 'project-identity' | 'environment'
  | 'history' | 'lifecycle' | 'rollback' | 'promote' | 'tokens' | 'domains';

export interface CatalogueEntry {
  readonly severity: Severity;
  readonly area: DiagnosticArea;
  /** One short line, sentence case, no trailing period, e.g. "Manifest not found". */
  readonly title: string;
  /** What the user should do to fix it: one to three plain sentences, imperative, concrete, naming the file/flag/command involved. */
  readonly repair: string;
}

export const catalogue = {
  // Command (DG00xx)
  DG0000: {
    severity: 'error', area: 'command',
    title: 'Command crashed before producing a result',
    repair: 'Rerun the command and read the crash details written to stderr; set `PLATFORM_DEBUG=1` to include the stack trace. If it crashes again, report that output.',
  },
  DG0001: {
    severity: 'error', area: 'command',
    title: 'Unknown command',
    repair: 'Check the command name for typos. Run `platform help` to list the commands this version supports.',
  },
  DG0002: {
    severity: 'error', area: 'command',
    title: 'Invalid command option',
    repair: 'Check the option spelling, give every option that takes a value its value (for example `--environment preview`), and pass boolean flags such as `--json` without a value.',
  },

  // Manifest (DG10xx, DG11xx)
  DG1001: {
    severity: 'error', area: 'manifest',
    title: 'Manifest not found',
    repair: 'Run the command in the project directory (or pass that directory) and make sure `app.manifest.json` exists at its root. Create a new application with `platform new <directory>`.',
  },
  DG1002: {
    severity: 'error', area: 'manifest',
    title: 'Invalid manifest value',
    repair: 'Fix the value the message points to in `app.manifest.json`: valid JSON, `format` exactly `platform.application-source.v0`, existing entrypoint files, valid tables, and a `database` or `storage` block exactly when `capabilities` lists it. Keep limits within their ceilings.',
  },
  DG1003: {
    severity: 'error', area: 'manifest',
    title: 'Unknown manifest property',
    repair: 'Remove the property or correct its spelling in `app.manifest.json`. The manifest is a closed object and accepts only the properties its schema defines.',
  },
  DG1101: {
    severity: 'error', area: 'manifest',
    title: 'Entrypoint path outside the project',
    repair: 'Set `entrypoints.client` and `entrypoints.server` in `app.manifest.json` to project-relative paths like `src/client/main.tsx` and `src/server/index.ts` that stay inside the project: no leading `/`, drive letter or escaping `..`.',
  },

  // Module graph and zones (DG12xx)
  DG1201: {
    severity: 'error', area: 'module-graph',
    title: 'Import crosses a zone boundary',
    repair: 'Move code that both zones need into `src/shared/` and import it from there. Do not import the other zone or its entrypoint, and use relative paths that stay inside the project.',
  },
  DG1202: {
    severity: 'error', area: 'module-graph',
    title: 'Package import not allowed in this zone',
    repair: 'Import only what the zone admits: client code `platform/client`, `preact`, `preact/hooks`, `preact/jsx-runtime`; server code `platform/server`; tests `platform/test`. Remove Node built-in modules and native addons from every zone.',
  },
  DG1203: {
    severity: 'error', area: 'module-graph',
    title: 'Dynamic import with a non-literal specifier',
    repair: "Pass a string literal to `import()`, for example `import('./chart.tsx')`, or replace it with a static import. Computed specifiers cannot be analysed.",
  },
  DG1204: {
    severity: 'error', area: 'module-graph',
    title: 'Relative import does not resolve',
    repair: 'Correct the relative path and file extension so the import points at an existing file, or create the missing file.',
  },
  DG1205: {
    severity: 'error', area: 'module-graph',
    title: 'Type error',
    repair: 'Fix the type error at the reported location; the message starts with the TypeScript code. Repair `primary` diagnostics first, return only encodable values declared as type aliases, and use `ctx.db` or `ctx.storage` only when the capability is declared.',
  },
  DG1206: {
    severity: 'error', area: 'module-graph',
    title: 'Stylesheet imported outside the client',
    repair: 'Import stylesheets only from files reached by the client entrypoint. Move the `.css` import out of server, shared and test code.',
  },
  DG1207: {
    severity: 'error', area: 'module-graph',
    title: 'Imported package not declared',
    repair: 'Add the package to `dependencies` in `package.json` and install it, or remove the import.',
  },
  DG1208: {
    severity: 'error', area: 'module-graph',
    title: 'Declared dependency not installed',
    repair: 'Install the project dependencies (for example `npm install`) so the package exists in the project `node_modules`, or remove it from `dependencies` in `package.json`.',
  },
  DG1209: {
    severity: 'error', area: 'module-graph',
    title: 'Binary asset imported outside the client',
    repair: 'Import images, fonts and `.wasm` files only from client code, or put them under `public/` and reference them by URL.',
  },
  DG1210: {
    severity: 'warning', area: 'module-graph',
    title: 'Renderer package declared in package.json',
    repair: 'Remove the renderer package (such as `preact`) from `dependencies` in `package.json`; the platform provides it.',
  },
  DG1211: {
    severity: 'error', area: 'module-graph',
    title: 'Renderer version differs from the bundled one',
    repair: 'Remove the renderer package from `package.json` and reinstall so the platform-bundled version is used.',
  },
  DG1212: {
    severity: 'error', area: 'module-graph',
    title: 'Untyped-dependency acknowledgment for an undeclared package',
    repair: 'Remove the package from `untypedDependencies` in `app.manifest.json`, or add it to `dependencies` in `package.json` if the application uses it.',
  },
  DG1213: {
    severity: 'warning', area: 'module-graph',
    title: 'Untyped-dependency acknowledgment ignored',
    repair: 'Remove the package from `untypedDependencies` in `app.manifest.json`; it ships its own type declarations, so the acknowledgment has no effect.',
  },
  DG1214: {
    severity: 'info', area: 'module-graph',
    title: 'Acknowledged untyped dependency is typed as any',
    repair: 'Nothing is required. The package listed in `untypedDependencies` is typed as `any`.',
  },

  // Operations (DG13xx)
  DG1300: {
    severity: 'error', area: 'operations',
    title: 'Server definition is not statically inspectable',
    repair: 'Make the server entrypoint `export default defineServer({...})` with literal objects for `queries`, `mutations`, `endpoints` and `authPolicies`: no spreads, shorthand, computed keys or wrapper functions.',
  },
  DG1301: {
    severity: 'error', area: 'operations',
    title: 'Duplicate operation name',
    repair: 'Rename or remove one of the operations so every name within `queries` and within `mutations` is unique.',
  },
  DG1302: {
    severity: 'error', area: 'operations',
    title: 'Malformed endpoint key',
    repair: "Write the key as `'<METHOD> /api/...'`: one uppercase method (GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD), one space, and a path that is `/api` or starts with `/api/`, for example `'POST /api/files/:id'`.",
  },
  DG1303: {
    severity: 'error', area: 'operations',
    title: 'Invalid operation name',
    repair: 'Rename the operation to match `^[a-z][a-z0-9_-]*\\.[a-z][a-z0-9_.-]*$`: a lowercase namespace, a dot, then a lowercase name, for example `todos.list`.',
  },
  DG1304: {
    severity: 'error', area: 'operations',
    title: 'Two endpoints share one route',
    repair: 'Change the method or path of one endpoint. Parameter names do not distinguish routes, so `/api/items/:id` and `/api/items/:key` are the same route.',
  },

  // Budgets and assets (DG14xx)
  DG1401: {
    severity: 'error', area: 'budgets-assets',
    title: 'Module or asset too large',
    repair: 'Keep each compiled module under 10 MiB and each asset under 25 MiB: split large code, drop heavy dependencies, or shrink the file.',
  },
  DG1402: {
    severity: 'error', area: 'budgets-assets',
    title: 'Public file collides with generated output',
    repair: 'Remove or rename `public/index.html`; the platform generates the document served at `/index.html`.',
  },
  DG1403: {
    severity: 'error', area: 'budgets-assets',
    title: 'Public file uses a reserved path',
    repair: 'Move or rename the file in `public/` so it is not served under `/_platform/`, `/__platform/` or `/_xa/`; those paths are reserved.',
  },
  DG1404: {
    severity: 'error', area: 'budgets-assets',
    title: 'Favicon file not found',
    repair: 'Add the file under `public/` at the path in `app.favicon` (for example `public/favicon.ico` for `/favicon.ico`), or correct or remove `app.favicon` in `app.manifest.json`.',
  },
  DG1405: {
    severity: 'error', area: 'budgets-assets',
    title: 'Client bundle over budget',
    repair: 'Shrink the client bundle by removing heavy dependencies or unused code, or raise `budgets.clientBundleBytes` in `app.manifest.json` above the 1024 KiB default (at most 10485760).',
  },
  DG1406: {
    severity: 'warning', area: 'budgets-assets',
    title: 'Application code in the client bundle over 400 KiB',
    repair: 'Consider shrinking the code your application contributes to the client bundle; it exceeds the fixed 400 KiB advisory tier. The build is not blocked.',
  },

  // Bundling (DG15xx)
  DG1501: {
    severity: 'error', area: 'bundling',
    title: 'Bundling failed',
    repair: 'Read the bundler message for the failing module and fix it, then rerun `platform build`. If it names a dependency, update or replace that package.',
  },
  DG1502: {
    severity: 'error', area: 'bundling',
    title: 'Dependency imports a server-runtime built-in',
    repair: 'Replace the dependency with one that does not import Node built-in modules such as `fs` or `node:crypto`, or stop importing it.',
  },
  DG1503: {
    severity: 'error', area: 'bundling',
    title: 'Duplicate or unselected renderer in the client bundle',
    repair: 'Keep one renderer: remove `react` or an extra `preact` copy from `package.json`, and drop dependencies that bring their own renderer copy.',
  },

  // Development loop (DG16xx)
  DG1602: {
    severity: 'error', area: 'dev-loop',
    title: 'Rebuild failed; previous version still serving',
    repair: 'Fix the diagnostics reported with this rebuild and save. The last good generation keeps serving, and the next successful rebuild takes over automatically.',
  },
  DG1603: {
    severity: 'error', area: 'dev-loop',
    title: 'Rebuilt server failed to take over',
    repair: 'Fix the reported cause and save again. An incompatible schema change names its table, field and reason: change the declaration back, or adopt it with `platform state reset --state dev --confirm <app>`, which saves a recovery copy first.',
  },
  DG1604: {
    severity: 'error', area: 'dev-loop',
    title: 'Manifest cannot be watched',
    repair: 'Make sure `app.manifest.json` exists and is readable and that the system file-watch limit is not exhausted, then restart `platform dev`.',
  },
  DG1605: {
    severity: 'error', area: 'dev-loop',
    title: 'Client runtime changed; restart required',
    repair: 'Stop and restart `platform dev` to apply the new `client.runtime` setting.',
  },

  // Artifact (DG17xx)
  DG1700: {
    severity: 'error', area: 'artifact',
    title: 'No build artifact to preview',
    repair: 'Run `platform build` in the project, then run `platform preview` again.',
  },
  DG1701: {
    severity: 'error', area: 'artifact',
    title: 'Malformed build artifact',
    repair: 'Run `platform build` again to regenerate the artifact, its latest pointer and source map. Do not edit files under `.platform/` by hand.',
  },
  DG1702: {
    severity: 'error', area: 'artifact',
    title: 'Artifact identity mismatch',
    repair: 'Run `platform build` to produce a fresh artifact. Do not edit or copy artifact files under `.platform/` by hand.',
  },
  DG1703: {
    severity: 'error', area: 'artifact',
    title: 'Artifact blob missing or corrupt',
    repair: 'Run `platform build` again to rewrite the artifact. If it recurs, check free disk space and the `.platform/` directory for damage.',
  },
  DG1704: {
    severity: 'error', area: 'artifact',
    title: 'Preview server failed',
    repair: 'Fix the server error shown in the message, run `platform build`, then start `platform preview` again. Check that the chosen port is free.',
  },
  DG1705: {
    severity: 'error', area: 'artifact',
    title: 'Build is stale',
    repair: 'Run `platform build` to include the changed files named in the message, then retry.',
  },

  // Local state (DG18xx)
  DG1801: {
    severity: 'error', area: 'local-state',
    title: 'Missing or invalid state selector',
    repair: 'Pass `--state dev`, `--state preview` or `--state test`, for example `platform state reset --state dev --confirm <app>`.',
  },
  DG1810: {
    severity: 'error', area: 'local-state',
    title: 'Confirmation required',
    repair: 'Add `--confirm <app>` with the exact application name from the `name` field of `app.manifest.json`.',
  },
  DG1811: {
    severity: 'error', area: 'local-state',
    title: 'Confirmation does not match the application name',
    repair: 'Pass `--confirm` with the application name exactly as in the `name` field of `app.manifest.json`.',
  },
  DG1812: {
    severity: 'error', area: 'local-state',
    title: 'Local state is in use',
    repair: 'Stop the `platform dev`, `platform preview` or `platform test` process that uses this state, then retry.',
  },
  DG1813: {
    severity: 'error', area: 'local-state',
    title: 'State directory escapes its container',
    repair: 'Remove symbolic links or junctions under `.platform/` and in the path to the project, then retry.',
  },
  DG1814: {
    severity: 'error', area: 'local-state',
    title: 'Local state operation failed',
    repair: 'Check free disk space and the permissions of the project `.platform/` directory, then retry.',
  },
  DG1820: {
    severity: 'error', area: 'local-state',
    title: 'No running server owns that state',
    repair: 'Start `platform dev` or `platform preview` for the project, then rerun the command.',
  },
  DG1821: {
    severity: 'error', area: 'local-state',
    title: 'Export file unreadable or unwritable',
    repair: 'Check that the file path is correct, that the file is readable for `import`, and that its directory is writable for `export --out <file>`.',
  },
  DG1822: {
    severity: 'error', area: 'local-state',
    title: 'Not a usable state export',
    repair: 'Import a file produced by `platform export` with protocol `platform.state-export.v0`, unmodified. Export it again if it was edited or truncated.',
  },
  DG1823: {
    severity: 'error', area: 'local-state',
    title: 'Import cannot target a deployed application',
    repair: 'Import only into local state: point `platform import` at a local project with `--state dev` or `--state preview`.',
  },
  DG1824: {
    severity: 'error', area: 'local-state',
    title: 'Runtime refused the state transfer',
    repair: 'Act on `detail.code`: `state_import_schema_mismatch` (the records cannot follow the schema in force: `detail.problems` names table, field and reason; export again under it), `state_import_application_mismatch` (use this application), `state_import_record_invalid` (fix the records), `state_export_too_large` (reduce the data). There is no forced import.',
  },
  DG1825: {
    severity: 'error', area: 'local-state',
    title: 'Missing target or export file, or invalid state',
    repair: 'Give the project directory and the export file, and use `--state dev` or `--state preview`; test state cannot be exported or imported.',
  },
  DG1840: {
    severity: 'error', area: 'local-state',
    title: 'No running database for the directory',
    repair: 'Start `platform dev` or `platform preview` in that directory, then rerun the `platform db` command.',
  },
  DG1841: {
    severity: 'error', area: 'local-state',
    title: 'Running server has no admin session',
    repair: 'Restart `platform dev` or `platform preview` with the current `platform` version, then rerun the `platform db` command.',
  },
  DG1842: {
    severity: 'error', area: 'local-state',
    title: 'Database protocol mismatch',
    repair: 'Use the same `platform` version for the running server and the `platform db` command: restart the server with the current CLI.',
  },

  // Tests (DG19xx)
  DG1900: {
    severity: 'error', area: 'tests',
    title: 'No test files found',
    repair: 'Add test files matching `tests/**/*.test.ts` that import from `platform/test`, for example `tests/todos.test.ts`.',
  },
  DG1901: {
    severity: 'error', area: 'tests',
    title: 'Test file failed to compile',
    repair: 'Fix the compile errors reported for the test file. Tests may import `platform/test` and `src/shared/`, not client or server files.',
  },
  DG1902: {
    severity: 'error', area: 'tests',
    title: 'Test runtime failed to start',
    repair: 'Check that the project builds with `platform build`, then rerun `platform test`. If it still fails, run `platform doctor`.',
  },
  DG1903: {
    severity: 'error', area: 'tests',
    title: 'Test file threw while loading',
    repair: 'Fix the error thrown at the top level of the test file, and move setup code into `test()` bodies. The other test files still ran.',
  },
  DG1904: {
    severity: 'error', area: 'tests',
    title: 'Assertion failed',
    repair: 'Compare `expected` and `actual` in the diagnostic, then fix the application code or the assertion at the reported location.',
  },
  DG1905: {
    severity: 'error', area: 'tests',
    title: 'Test threw an error',
    repair: "Fix the error the test threw, and wrap calls that should be refused in `expectFailure(...)`. For a refused workspace-scoped call, act as a member, for example `as('alice')` for `ws-alice`.",
  },
  DG1906: {
    severity: 'error', area: 'tests',
    title: 'Test timed out after 20 seconds',
    repair: 'Make the test finish within 20 seconds: await every promise, remove unbounded loops and waits, and split long tests.',
  },

  // Inspector (DG20xx)
  DG2001: {
    severity: 'error', area: 'inspector',
    title: 'No inspection target',
    repair: 'Pass a target, or run exactly one of `platform dev` or `platform preview` for the directory and stop the other.',
  },
  DG2002: {
    severity: 'error', area: 'inspector',
    title: 'Inspector request failed',
    repair: 'Check that the server or deployed application is reachable and that you are signed in as its owner (`platform auth status`), then retry.',
  },
  DG2003: {
    severity: 'error', area: 'inspector',
    title: 'No deployed application matched',
    repair: 'Check the application name or URL, and sign in as the builder who owns it with `platform auth login`. Run `platform link` to list your projects.',
  },
  DG2004: {
    severity: 'error', area: 'inspector',
    title: 'Deployed application refused the read',
    repair: 'Act on `detail.code`: for `state_bootstrap_failed` fix the cause and redeploy; for `state_unavailable` retry after the advertised wait. Quote `detail.errorId` when reporting it.',
  },

  // Scaffold (DG30xx)
  DG3001: {
    severity: 'error', area: 'scaffold',
    title: 'Scaffold failed',
    repair: 'Give `platform new` a target directory that is empty or does not exist yet, or empty the existing one.',
  },
  DG3002: {
    severity: 'error', area: 'scaffold',
    title: 'Unknown template',
    repair: 'Pass `--template` a bundled starter name or an exact template catalogue id, or omit it for the default starter.',
  },
  DG3003: {
    severity: 'error', area: 'scaffold',
    title: 'Unknown UI provider',
    repair: 'Use `--ui preact` or `--ui react`, or omit `--ui` to get the default `preact`.',
  },
  DG3004: {
    severity: 'error', area: 'scaffold',
    title: 'UI option used with a framework',
    repair: 'Remove `--ui` when using `--framework`; the framework brings its own UI.',
  },
  DG3005: {
    severity: 'error', area: 'scaffold',
    title: 'Template and framework both given',
    repair: 'Use either `--template` or `--framework` with `platform new`, not both.',
  },
  DG3006: {
    severity: 'error', area: 'scaffold',
    title: 'Unsupported framework',
    repair: 'Pass a supported framework name to `--framework`, or omit it to scaffold a platform application.',
  },
  DG3007: {
    severity: 'error', area: 'scaffold',
    title: 'Template catalogue unavailable',
    repair: 'Check your network connection and retry, or scaffold from a bundled starter with `--template <starter>`.',
  },
  DG3008: {
    severity: 'error', area: 'scaffold',
    title: 'Template catalogue invalid',
    repair: 'Update `platform` to the latest version and retry, or scaffold from a bundled starter with `--template <starter>`.',
  },
  DG3009: {
    severity: 'error', area: 'scaffold',
    title: 'Template download failed',
    repair: 'Check your network connection and retry `platform new`, or scaffold from a bundled starter.',
  },
  DG3010: {
    severity: 'error', area: 'scaffold',
    title: 'Template archive checksum mismatch',
    repair: 'Retry the download. If the SHA-256 still does not match, do not use that template; choose another one or a bundled starter.',
  },
  DG3011: {
    severity: 'error', area: 'scaffold',
    title: 'Unsafe template archive',
    repair: 'Do not use this template; choose another template or a bundled starter. Nothing from the archive was installed.',
  },
  DG3012: {
    severity: 'error', area: 'scaffold',
    title: 'Template project root mismatch',
    repair: 'Choose another template or a bundled starter; this archive does not match its catalogue entry.',
  },
  DG3013: {
    severity: 'error', area: 'scaffold',
    title: 'UI option used with a catalogue template',
    repair: 'Remove `--ui` when using a catalogue template; the template fixes its own UI.',
  },

  // Agent setup (DG31xx)
  DG3101: {
    severity: 'error', area: 'agent-setup',
    title: 'Agent files missing or stale',
    repair: 'Run `platform agent setup` without `--check` to write or refresh the generated agent files, then commit them.',
  },
  DG3102: {
    severity: 'error', area: 'agent-setup',
    title: 'Agent file path owned by someone else',
    repair: 'Move or rename the existing file at that path, or choose another `--target`. `platform agent setup` never overwrites files it did not generate.',
  },
  DG3103: {
    severity: 'error', area: 'agent-setup',
    title: 'Unsupported agent target',
    repair: 'Pass `--target` one of `auto`, `agents`, `claude`, `codex`, `cursor`, `vscode` or `mcp`.',
  },

  // Framework projects (DG32xx)
  DG3201: {
    severity: 'error', area: 'framework',
    title: 'No supported framework found',
    repair: 'Run `platform init` in the root of a project whose `package.json` depends on a supported framework, or create an application with `platform new <directory>`.',
  },
  DG3202: {
    severity: 'error', area: 'framework',
    title: 'Project config file not owned by the platform',
    repair: 'Rename or remove the existing project config file and rerun `platform init`; it will not overwrite a file it did not create.',
  },
  DG3203: {
    severity: 'error', area: 'framework',
    title: 'package.json unreadable',
    repair: 'Make `package.json` readable and valid JSON, then rerun the command.',
  },
  DG3204: {
    severity: 'error', area: 'framework',
    title: 'Framework script missing or failed',
    repair: 'Add the required script (such as `build`) to `package.json`, install dependencies, and check that the script runs on its own, then retry.',
  },
  DG3205: {
    severity: 'error', area: 'framework',
    title: 'Framework config invalid',
    repair: 'Fix the framework config file or the `package.json` next to it as the message describes, then rerun the command.',
  },
  DG3206: {
    severity: 'error', area: 'framework',
    title: 'Framework deployment setup failed',
    repair: 'Read the setup output in the message, fix the framework project, then rerun `platform init`.',
  },
  DG3207: {
    severity: 'error', area: 'framework',
    title: 'Framework build produced nothing deployable',
    repair: 'Run the framework build on its own and fix its errors, and make sure it writes deployable output within the size limits.',
  },
  DG3208: {
    severity: 'error', area: 'framework',
    title: 'Command needs an application contract',
    repair: 'Run this command in a platform application with `app.manifest.json`, or create one with `platform new <directory>`. Framework projects do not support it.',
  },

  // Doctor (DG40xx)
  DG4001: {
    severity: 'error', area: 'doctor',
    title: 'Doctor check failed',
    repair: 'Read the `hint` for the failed check and fix what it names, then rerun `platform doctor`.',
  },

  // Builder authentication (DG50xx)
  DG5000: {
    severity: 'error', area: 'builder-auth',
    title: 'Invalid auth command',
    repair: 'Use `platform auth login`, `status`, `logout`, `clear`, or `as <persona>` with `alice`, `bob` or `guest`.',
  },
  DG5001: {
    severity: 'error', area: 'builder-auth',
    title: 'Invalid control URL',
    repair: 'Pass `--control-url` an exact origin such as `https://control.example.com`, with no path. Plain `http://` is allowed only for localhost.',
  },
  DG5002: {
    severity: 'error', area: 'builder-auth',
    title: 'Not signed in',
    repair: 'Run `platform auth login` and have a human approve the device code, or provide a service token through the `PLATFORM_SERVICE_TOKEN` environment variable.',
  },
  DG5003: {
    severity: 'error', area: 'builder-auth',
    title: 'Malformed service token',
    repair: 'Set `PLATFORM_SERVICE_TOKEN` to a complete service token (`xst_` plus 43 characters) from `platform token create`, or unset it to use your sign-in.',
  },
  DG5004: {
    severity: 'error', area: 'builder-auth',
    title: 'Untrusted control plane response',
    repair: 'Check that `--control-url` points at the real control plane, then retry. Update `platform` if the problem persists.',
  },
  DG5005: {
    severity: 'error', area: 'builder-auth',
    title: 'Device authorization expired',
    repair: 'Run `platform auth login` again and approve the new device code before it expires.',
  },
  DG5008: {
    severity: 'error', area: 'builder-auth',
    title: 'Stored credential unreadable',
    repair: 'Run `platform auth clear` to remove the damaged credential, then sign in again with `platform auth login`.',
  },
  DG5009: {
    severity: 'error', area: 'builder-auth',
    title: 'Authentication failed',
    repair: 'Run `platform auth status` to check your credentials, then sign in again with `platform auth login`.',
  },

  // Deployment (DG510x, DG511x)
  DG5101: {
    severity: 'error', area: 'deployment',
    title: 'Deployment could not be built from the artifact',
    repair: 'Run `platform build` to produce a fresh artifact, then retry `platform deploy`.',
  },
  DG5102: {
    severity: 'error', area: 'deployment',
    title: 'Deployment rejected',
    repair: 'Fix the reason given in the message and retry `platform deploy`. If no usable response arrived, check `--control-url`.',
  },
  DG5103: {
    severity: 'error', area: 'deployment',
    title: 'Deployment never became ready',
    repair: 'Check the server entrypoint for startup errors by running `platform preview` locally, fix them, and deploy again.',
  },
  DG5104: {
    severity: 'error', area: 'deployment',
    title: 'Deployment fails authenticated requests',
    repair: 'Redeploy with `platform deploy`. If authenticated requests still fail, check `platform logs` for the application and report the problem.',
  },
  DG5105: {
    severity: 'error', area: 'deployment',
    title: 'Environment not deployable',
    repair: 'Use `--environment prod`, `production` or `preview`. The `dev` environment is local only; use `platform dev` for it.',
  },
  DG5106: {
    severity: 'error', area: 'deployment',
    title: 'Capability could not be provisioned',
    repair: 'Nothing was activated and the previous version keeps serving. An incompatible schema change names its table, field and reason: change the declaration back or make the change compatible (a new optional or defaulted field, a widening). Otherwise retry `platform deploy`; if it persists, report the capability named in the message.',
  },
  DG5107: {
    severity: 'error', area: 'deployment',
    title: 'Pre-deploy build failed',
    repair: 'Fix the compiler diagnostics that follow (check locally with `platform build`), then run `platform deploy` again. Nothing was deployed.',
  },
  DG5109: {
    severity: 'error', area: 'deployment',
    title: 'Deployment failed',
    repair: 'Retry `platform deploy`. If it fails again, run `platform doctor` and report the message.',
  },
  DG5111: {
    severity: 'error', area: 'deployment',
    title: 'Application owned by another builder',
    repair: 'Run `platform link` to list your own projects and attach one with `--app <appId>`, or create a new identity with `platform link --new`.',
  },
  DG5112: {
    severity: 'error', area: 'deployment',
    title: 'Application quota reached',
    repair: 'Delete an application you no longer need with `platform delete <app> --confirm <app>`, then retry.',
  },
  DG5113: {
    severity: 'error', area: 'deployment',
    title: 'Deploy quota spent',
    repair: 'Wait until the reset time stated in the message, then deploy again. Failed deployments count, so check with `platform build` locally first.',
  },

  // Project identity (DG512x)
  DG5120: {
    severity: 'error', area: 'project-identity',
    title: 'Project identity file unusable',
    repair: 'Fix `platform.project.json` to hold `{ "format": "platform.project.v0", "appId": "app_..." }`, or recreate it with `platform link`.',
  },
  DG5121: {
    severity: 'error', area: 'project-identity',
    title: 'Project identity conflict',
    repair: 'Make the cached identity under `.platform/` agree with `platform.project.json`, which wins: run `platform link --app <appId>` with the appId from that file.',
  },
  DG5122: {
    severity: 'error', area: 'project-identity',
    title: 'Malformed appId or conflicting link options',
    repair: 'Give `--app` an appId of the form `app_` followed by 26 lowercase base32 characters, and use either `--app` or `--new`, not both.',
  },
  DG5123: {
    severity: 'error', area: 'project-identity',
    title: 'Project not owned by you',
    repair: 'Run `platform link` without options to list the projects you own and attach one with `--app <appId>`, or sign in as the owning builder.',
  },
  DG5124: {
    severity: 'error', area: 'project-identity',
    title: 'Invalid project data from the control plane',
    repair: 'Retry `platform link`, and check that `--control-url` points at the real control plane.',
  },
  DG5129: {
    severity: 'error', area: 'project-identity',
    title: 'Link failed',
    repair: 'Check `platform auth status`, then retry `platform link`.',
  },

  // Environment values (DG513x)
  DG5130: {
    severity: 'error', area: 'environment',
    title: 'Invalid env command',
    repair: 'Run `platform env` in a project with `app.manifest.json`, give the variable name (and a value for `set`), and use `--environment prod`, `preview` or `dev`.',
  },
  DG5131: {
    severity: 'error', area: 'environment',
    title: 'Env request rejected',
    repair: 'Check that you own the project (`platform auth status`, `platform link`) and that the name is UPPER_SNAKE_CASE, then retry.',
  },
  DG5132: {
    severity: 'error', area: 'environment',
    title: 'Untrusted env response',
    repair: 'Retry the command, and check that `--control-url` points at the real control plane.',
  },
  DG5133: {
    severity: 'error', area: 'environment',
    title: 'Env request over quota',
    repair: 'The first `env set` claims the project against your application quota: delete an application you no longer need, then retry.',
  },
  DG5134: {
    severity: 'error', area: 'environment',
    title: 'Local env file unusable',
    repair: 'Fix `.platform/env.<environment>.local.json` to be `{ "format": "platform.env-local.v0", "values": { ... } }` with UPPER_SNAKE_CASE names and string values, or rewrite it with `platform env pull`.',
  },
  DG5139: {
    severity: 'error', area: 'environment',
    title: 'Env command failed',
    repair: 'Check `platform auth status` and the project link, then retry the `platform env` command.',
  },

  // Deployment history (DG514x)
  DG5140: {
    severity: 'error', area: 'history',
    title: 'Invalid deployments command',
    repair: 'Pass `--limit` as an integer from 1 to 200, and run in a linked project or name the application: `platform deployments <app>`.',
  },
  DG5141: {
    severity: 'error', area: 'history',
    title: 'History request rejected',
    repair: 'Check that you are signed in as the owner (`platform auth status`), then retry.',
  },
  DG5142: {
    severity: 'error', area: 'history',
    title: 'Untrusted deployment listing',
    repair: 'Retry the command, and check that `--control-url` points at the real control plane.',
  },
  DG5143: {
    severity: 'error', area: 'history',
    title: 'No application matched',
    repair: 'Check the application name or appId. Run `platform link` to list the projects you own.',
  },
  DG5149: {
    severity: 'error', area: 'history',
    title: 'Deployments command failed',
    repair: 'Check `platform auth status`, then retry `platform deployments`.',
  },

  // Lifecycle (DG515x)
  DG5150: {
    severity: 'error', area: 'lifecycle',
    title: 'Invalid lifecycle command',
    repair: 'Run in a linked project or name the application, and give `delete` the exact name: `platform delete <app> --confirm <app>`.',
  },
  DG5151: {
    severity: 'error', area: 'lifecycle',
    title: 'Lifecycle change refused',
    repair: 'Make `--confirm` equal the exact application name and check that you own the application, then retry.',
  },
  DG5152: {
    severity: 'error', area: 'lifecycle',
    title: 'Untrusted lifecycle result',
    repair: 'Check the application state with `platform deployments`, and check that `--control-url` points at the real control plane before retrying.',
  },
  DG5153: {
    severity: 'error', area: 'lifecycle',
    title: 'No application matched or already deleted',
    repair: 'Check the application name; a deleted application cannot be used again. Run `platform link` to list the projects you own.',
  },
  DG5159: {
    severity: 'error', area: 'lifecycle',
    title: 'Lifecycle command failed',
    repair: 'Check `platform auth status`, then retry the command. An interrupted delete is completed by a background sweep.',
  },

  // Rollback (DG516x)
  DG5160: {
    severity: 'error', area: 'rollback',
    title: 'Invalid rollback command',
    repair: 'Pass an artifact id of the form `sha256:` plus 64 hex digits (see `platform deployments`), and use `--environment prod` or `preview`.',
  },
  DG5161: {
    severity: 'error', area: 'rollback',
    title: 'Rollback refused',
    repair: 'Fix the reason in the message; if the deploy quota is spent, wait until the stated reset time, then retry `platform rollback`.',
  },
  DG5162: {
    severity: 'error', area: 'rollback',
    title: 'Untrusted rollback result',
    repair: 'Check what is deployed with `platform deployments`, and check that `--control-url` points at the real control plane before retrying.',
  },
  DG5163: {
    severity: 'error', area: 'rollback',
    title: 'No application matched',
    repair: 'Check the application name or appId; a deleted application cannot be rolled back. Run `platform link` to list your projects.',
  },
  DG5164: {
    severity: 'error', area: 'rollback',
    title: 'No completed deployment of that artifact',
    repair: 'Pick an artifact id from a completed deployment listed by `platform deployments`; failed deployments cannot be rolled back to.',
  },
  DG5169: {
    severity: 'error', area: 'rollback',
    title: 'Rollback failed',
    repair: 'Check `platform auth status` and `platform deployments`, then retry `platform rollback`.',
  },

  // Promote (DG517x)
  DG5170: {
    severity: 'error', area: 'promote',
    title: 'Invalid artifact id',
    repair: 'Pass `--from-artifact sha256:<64 hex>` with an artifact id from `platform deployments`.',
  },
  DG5171: {
    severity: 'error', area: 'promote',
    title: 'Promotion refused',
    repair: 'Fix the reason in the message; if the deploy quota is spent, wait until the stated reset time, then retry `platform promote`.',
  },
  DG5172: {
    severity: 'error', area: 'promote',
    title: 'Untrusted promotion result',
    repair: 'Check what production serves with `platform deployments`, and check that `--control-url` points at the real control plane before retrying.',
  },
  DG5173: {
    severity: 'error', area: 'promote',
    title: 'No application matched',
    repair: 'Check the application name or appId; a deleted application cannot be promoted. Run `platform link` to list your projects.',
  },
  DG5174: {
    severity: 'error', area: 'promote',
    title: 'No completed deployment of that artifact',
    repair: 'Choose an artifact with a completed deployment (see `platform deployments`), or deploy it first with `platform deploy --environment preview`.',
  },
  DG5175: {
    severity: 'error', area: 'promote',
    title: 'Nothing in preview to promote',
    repair: 'Deploy to preview with `platform deploy --environment preview` and wait for it to complete, then run `platform promote`.',
  },
  DG5176: {
    severity: 'error', area: 'promote',
    title: 'Invalid review receipt',
    repair: 'Pass `--receipt` the complete review receipt id, `review_` followed by its id, exactly as it was issued.',
  },
  DG5177: {
    severity: 'error', area: 'promote',
    title: 'Receipt and artifact both given',
    repair: 'Use either `--receipt` or `--from-artifact` with `platform promote`, not both.',
  },
  DG5179: {
    severity: 'error', area: 'promote',
    title: 'Promotion failed',
    repair: 'Check `platform auth status` and `platform deployments`, then retry `platform promote`.',
  },

  // Service tokens (DG518x)
  DG5180: {
    severity: 'error', area: 'tokens',
    title: 'Invalid token command',
    repair: 'Use `platform token create --name <label>`, `token ls` or `token revoke <xstid_...>` after an interactive `platform auth login`; a service token cannot manage tokens.',
  },
  DG5181: {
    severity: 'error', area: 'tokens',
    title: 'Token request refused',
    repair: 'Sign in interactively with `platform auth login` as the owning builder, check the token id with `platform token ls`, then retry.',
  },
  DG5182: {
    severity: 'error', area: 'tokens',
    title: 'Untrusted token response',
    repair: 'Retry the command, and check that `--control-url` points at the real control plane. Run `platform token ls` to see what was created.',
  },
  DG5189: {
    severity: 'error', area: 'tokens',
    title: 'Token command failed',
    repair: 'Check `platform auth status`, then retry the `platform token` command.',
  },

  // Domains (DG519x)
  DG5190: {
    severity: 'error', area: 'domains',
    title: 'Invalid domains command',
    repair: 'Use `platform domains add`, `ls`, `status` or `remove` with a fully qualified ASCII hostname such as `app.example.com`: no scheme, port, path or wildcard.',
  },
  DG5191: {
    severity: 'error', area: 'domains',
    title: 'Domain request refused',
    repair: 'Check that you own the application (`platform auth status`) and fix the reason given in the message, then retry.',
  },
  DG5192: {
    severity: 'error', area: 'domains',
    title: 'Untrusted domains response',
    repair: 'Retry the command, and check that `--control-url` points at the real control plane.',
  },
  DG5193: {
    severity: 'error', area: 'domains',
    title: 'No application or domain matched',
    repair: 'Check the application and hostname; run `platform domains ls` to list the attached domains.',
  },
  DG5194: {
    severity: 'error', area: 'domains',
    title: 'Hostname unavailable',
    repair: 'Choose another hostname, remove a domain you no longer use to free quota, or wait for a recent removal to finish cleanup, then retry.',
  },
  DG5195: {
    severity: 'error', area: 'domains',
    title: 'No production deployment',
    repair: 'Deploy to production first with `platform deploy --environment production` or `platform promote`, then add the domain.',
  },
  DG5196: {
    severity: 'error', area: 'domains',
    title: 'Hosting provider unavailable',
    repair: 'Retry later, then check the result with `platform domains status`.',
  },
  DG5197: {
    severity: 'error', area: 'domains',
    title: 'Domain cleanup pending',
    repair: 'Run `platform domains remove <hostname>` again to finish removing the hostname and certificate.',
  },
  DG5199: {
    severity: 'error', area: 'domains',
    title: 'Domains command failed',
    repair: 'Check `platform auth status` and `platform domains ls`, then retry.',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type DiagnosticCode = keyof typeof catalogue;

export function isDiagnosticCode(value: string): value is DiagnosticCode {
  return Object.prototype.hasOwnProperty.call(catalogue, value);
}
