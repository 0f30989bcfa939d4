/**
 * The records of control plane processes sharing one database (nodes.ts): each node and where it is
 * reached, which apps it hosts by default, and the values every node must hold alike (the secrets of
 * secrets.ts). Rows are the records' rows.
 */
import type { Records } from './records';

export function nodeRecords(records: Records) {
  const nodes = {
    /** Records where `name` is reached, and places on it the apps no node hosts (records from before nodes). */
    register: (name: string, address: string, seenAt: number): Promise<void> =>
      records.transaction(async () => {
        await records.run('INSERT INTO nodes (name, address, seenAt) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET address = excluded.address, seenAt = excluded.seenAt', [name, address, seenAt]);
        await records.run('UPDATE apps SET node = ? WHERE node IS NULL', [name]);
      }),
    /** Where a node is reached, if it is known. */
    address: async (name: string): Promise<string | undefined> => {
      const row = await records.get('SELECT address FROM nodes WHERE name = ?', [name]);
      return row ? String(row.address) : undefined;
    },
  };

  const settings = {
    /** A shared value, if one is kept. */
    get: async (name: string): Promise<string | undefined> => {
      const row = await records.get('SELECT value FROM shared_settings WHERE name = ?', [name]);
      return row ? String(row.value) : undefined;
    },
    /** Keeps a value unless one is kept already (the first process to start wins); the value kept. */
    keepFirst: async (name: string, value: string): Promise<string> => {
      await records.run('INSERT INTO shared_settings (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING', [name, value]);
      return (await settings.get(name))!;
    },
  };

  return { nodes, settings };
}
