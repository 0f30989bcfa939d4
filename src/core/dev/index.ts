/** `platform dev`'s loop: compile, serve each good generation, watch the files, rebuild and run the tests. The folder's entry: what the rest of the code base imports of it. */
export { DevSession } from './dev-session.ts';
