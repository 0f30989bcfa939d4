/** The Terminal panel: `platform <command>` against the project, in a WebContainer or in the browser. */
export { TerminalPanel, type TerminalPanelProps } from './terminal-panel';
export { modeOf, Shell, type Mode, type ShellHost, type ShellIo } from './shell';
