import { describe, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import { runtimeConformance } from './conformance';

const factory = await nodeSqlDriverFactory();

describe('runtime conformance (errors, transactions, input, auth, endpoints) over sql.js in Node', () => {
  for (const testCase of runtimeConformance) it(testCase.name, () => testCase.run(factory));
});
