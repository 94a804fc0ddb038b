import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

/**
 * The background's IndexedDB as bytes on disk: its stores, keys, and the wake's one read-only
 * transaction, undecoded. Imports nothing but idb, so the worker can start opening it before the rest of
 * background.js evaluates (src/background/wake-start.ts); decoding each record (migrate, parse) is the
 * store's (src/background/store.ts).
 */

export interface FenceDB extends DBSchema {
  kv: { key: string; value: unknown };
  approvals: { key: string; value: unknown };
  audit: { key: number; value: unknown };
}

export type FenceDatabase = IDBPDatabase<FenceDB>;

export const DB_NAME = 'agentsfence';

export const KEY_TASK = 'task';
export const KEY_OPTIONS = 'options';
export const KEY_WINDOWS = 'controlWindows';
export const KEY_NOTICE = 'notice';
export const KEY_COLLECTOR = 'collector';

export function openFenceDb(name = DB_NAME): Promise<FenceDatabase> {
  return openDB<FenceDB>(name, 1, {
    upgrade(database) {
      database.createObjectStore('kv');
      database.createObjectStore('approvals', { keyPath: 'id' });
      database.createObjectStore('audit', { keyPath: 'seq', autoIncrement: true });
    },
  });
}

/** The records a wake reads before deciding, as stored (undefined: none stored). */
export interface WakeRecords {
  task: unknown;
  options: unknown;
  controlWindows: unknown;
  notice: unknown;
  approvals: unknown[];
  /** Same order as `approvals`: the key of an approval too broken to name its own id. */
  approvalKeys: string[];
}

/** Everything a wake needs before it can decide, in one read-only transaction. */
export async function readWakeRecords(db: FenceDatabase): Promise<WakeRecords> {
  const tx = db.transaction(['kv', 'approvals'], 'readonly');
  const kv = tx.objectStore('kv');
  const [task, options, controlWindows, notice, approvals, approvalKeys] = await Promise.all([
    kv.get(KEY_TASK),
    kv.get(KEY_OPTIONS),
    kv.get(KEY_WINDOWS),
    kv.get(KEY_NOTICE),
    tx.objectStore('approvals').getAll(),
    tx.objectStore('approvals').getAllKeys(),
    tx.done,
  ]);
  return { task, options, controlWindows, notice, approvals, approvalKeys };
}

/** The database being opened and, once it is, the wake's read: started together, awaited by the store. */
export interface WakeOpening {
  db: Promise<FenceDatabase>;
  records: Promise<WakeRecords>;
}

export function openForWake(name = DB_NAME): WakeOpening {
  const db = openFenceDb(name);
  const records = db.then(readWakeRecords);
  // Reported where it is awaited (TaskStore.open / readWakeState); not an unhandled rejection meanwhile.
  records.catch(() => undefined);
  return { db, records };
}
