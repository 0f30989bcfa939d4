/** sql.js in Node: the wasm is read from node_modules. */
import { createRequire } from 'node:module';
import initSqlJs from 'sql.js';
import type { SqlDriverFactory } from '../../core/runtime/sql-driver';
import { sqlJsFactory } from '../sqljs/sqljs-driver';

const require = createRequire(import.meta.url);
let factory: Promise<SqlDriverFactory> | undefined;

export function nodeSqlDriverFactory(): Promise<SqlDriverFactory> {
  factory ??= initSqlJs({ locateFile: (file: string) => require.resolve(`sql.js/dist/${file}`) }).then(sqlJsFactory);
  return factory;
}
