import { describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../../adapters/node/sqljs';
import { createSchema, createTableStatement, createIndexStatements, schemaStatements, tableOrder } from './schema';

describe('schema statements', () => {
  it('writes each field type, option and constraint', () => {
    const sql = createTableStatement('todos', {
      fields: {
        title: { type: 'string', maxLength: 80, collate: 'nocase', default: "it's" },
        state: { type: 'string', enum: ['open', 'done'], optional: true },
        score: { type: 'number', default: -1 },
        done: { type: 'boolean', default: false },
        due: { type: 'datetime', default: '2026-01-01T00:00:00Z' },
        blob: { type: 'bytes', optional: true },
        meta: { type: 'json', optional: true },
        list: { type: 'ref', table: 'lists', onDelete: 'cascade', onUpdate: 'noAction' },
        code: { type: 'string', unique: true },
        lower: { type: 'string', generated: { expression: 'lower(title)' } },
        size: { type: 'number', generated: { expression: 'length(title)', stored: true } },
      },
      unique: [['title', 'list']],
      checks: { positive: 'score > -10' },
    });
    expect(sql).toBe(
      [
        'CREATE TABLE "todos" (',
        '  "id" TEXT PRIMARY KEY NOT NULL,',
        '  "createdAt" INTEGER NOT NULL,',
        '  "updatedAt" INTEGER NOT NULL,',
        `  "title" TEXT NOT NULL DEFAULT 'it''s' COLLATE NOCASE CHECK (length("title") <= 80),`,
        `  "state" TEXT CHECK ("state" IN ('open', 'done')),`,
        '  "score" REAL NOT NULL DEFAULT (-1),',
        '  "done" INTEGER NOT NULL DEFAULT 0 CHECK ("done" IN (0, 1)),',
        `  "due" INTEGER NOT NULL DEFAULT ${Date.UTC(2026, 0, 1)},`,
        '  "blob" BLOB,',
        '  "meta" TEXT,',
        '  "list" TEXT NOT NULL REFERENCES "lists" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,',
        '  "code" TEXT NOT NULL UNIQUE,',
        '  "lower" TEXT GENERATED ALWAYS AS (lower(title)) VIRTUAL NOT NULL,',
        '  "size" REAL GENERATED ALWAYS AS (length(title)) STORED NOT NULL,',
        '  UNIQUE ("title", "list"),',
        '  CONSTRAINT "positive" CHECK (score > -10)',
        ')',
      ].join('\n'),
    );
  });

  it('writes every referential action', () => {
    const sql = createTableStatement('c', {
      fields: {
        a: { type: 'ref', table: 'p', optional: true, onDelete: 'setNull', onUpdate: 'restrict' },
        b: { type: 'ref', table: 'p', default: 'x', onDelete: 'setDefault' },
      },
    });
    expect(sql).toContain('"a" TEXT REFERENCES "p" ("id") ON DELETE SET NULL ON UPDATE RESTRICT');
    expect(sql).toContain(`"b" TEXT NOT NULL DEFAULT 'x' REFERENCES "p" ("id") ON DELETE SET DEFAULT`);
  });

  it('writes the order index and every declared index form, non-unique ones ending in (createdAt, id), and a policy index', () => {
    expect(createIndexStatements('t', { fields: { ownerId: { type: 'string' } } }, 'ownedTable')).toEqual([
      'CREATE INDEX "__platform_order__t" ON "t" ("createdAt", "id")',
      'CREATE INDEX "__platform_policy__t" ON "t" ("ownerId", "createdAt", "id")',
    ]);
    expect(createIndexStatements('t', { fields: { workspaceId: { type: 'string' } } }, 'workspaceTable')[1]).toBe('CREATE INDEX "__platform_policy__t" ON "t" ("workspaceId", "createdAt", "id")');
    expect(
      createIndexStatements('t', {
        fields: { a: { type: 'string' }, b: { type: 'number' } },
        indexes: {
          plain: ['a', 'b'],
          ordered: ['a', 'createdAt'],
          rich: { columns: [{ column: 'a', collate: 'rtrim', desc: true }, { expression: 'b * 2', desc: true }], unique: true, where: 'b > 0' },
        },
      }),
    ).toEqual([
      'CREATE INDEX "__platform_order__t" ON "t" ("createdAt", "id")',
      'CREATE INDEX "t__plain" ON "t" ("a", "b", "createdAt", "id")',
      'CREATE INDEX "t__ordered" ON "t" ("a", "createdAt", "id")',
      'CREATE UNIQUE INDEX "t__rich" ON "t" ("a" COLLATE RTRIM DESC, (b * 2) DESC) WHERE b > 0',
    ]);
  });

  it('orders tables so referenced ones come first, tolerating cycles', () => {
    const database = {
      tables: {
        a: { fields: { b: { type: 'ref' as const, table: 'b' } } },
        b: { fields: { a: { type: 'ref' as const, table: 'a', optional: true }, c: { type: 'ref' as const, table: 'c' } } },
        c: { fields: {} },
      },
    };
    expect(tableOrder(database)).toEqual(['c', 'b', 'a']);
    expect(schemaStatements(database).filter((s) => s.startsWith('CREATE TABLE'))).toHaveLength(3);
  });

  it('runs on sql.js, cycles and all', async () => {
    const factory = await nodeSqlDriverFactory();
    const driver = factory();
    createSchema(driver, {
      tables: {
        a: { fields: { b: { type: 'ref', table: 'b', optional: true } } },
        b: { fields: { a: { type: 'ref', table: 'a', optional: true } }, indexes: { byA: ['a'] } },
      },
    });
    const names = driver.all(`SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name`).map((r) => `${r.type}:${r.name}`);
    expect(names).toEqual(['index:__platform_order__a', 'index:__platform_order__b', 'table:a', 'table:b', 'index:b__byA']);
    driver.close();
  });
});
