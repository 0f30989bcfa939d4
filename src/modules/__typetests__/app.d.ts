import type {} from 'platform/types';
declare module 'platform/types' {
  interface Register {
    app: {
      capabilities: 'database';
      tables: {
        todos: {
          row: { id: string; createdAt: Date; updatedAt: Date; ownerId: string; title: string; done: boolean; due?: Date; state: 'open' | 'done'; meta?: import('platform/types').JsonValue };
          insert: { ownerId?: string; title: string; done?: boolean; due?: Date | null; state?: 'open' | 'done'; meta?: import('platform/types').JsonValue | null };
          indexes: [['ownerId'], ['ownerId', 'done']];
        };
        notes: {
          row: { id: string; createdAt: Date; updatedAt: Date; workspaceId: string; body: string };
          insert: { workspaceId: string; body: string };
          indexes: [['workspaceId']];
        };
        tags: {
          row: { id: string; createdAt: Date; updatedAt: Date; label: string };
          insert: { id: string; label: string };
          indexes: [];
        };
      };
      policies: { todos: 'ownedTable'; notes: 'workspaceTable' };
    };
    server: typeof import('./fixture-server').default;
    operations: { queries: 'todos.list' | 'todos.get' | 'todos.page' | 'notes.list'; mutations: 'todos.add' | 'todos.remove' };
  }
}
