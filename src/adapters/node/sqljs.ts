/** sql.js in Node: the wasm is read from node_modules. */
import { createRequire } from 'node:module';
import initSqlJs from 'sql.js';
import { sqlJsFactory, type SqlJsFactory } from '../sqljs/sqljs-driver';

const require = createRequire(import.meta.url);
let factory: Promise<SqlJsFactory> | undefined;

export function nodeSqlDriverFactory(): Promise<SqlJsFactory> {
  factory ??= initSqlJs({ locateFile: (file: string) => require.resolve(`sql.js/dist/${file}`) }).then(sqlJsFactory);
  return factory;
}
