import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

/**
 * Opening the background's IndexedDB database, apart from the store's records and schemas so the worker
 * can ask for it before the rest of background.js evaluates: a cold start waits for the open (≈ 10 ms)
 * and for the script's evaluation, and the two overlap when the open is issued first
 * (`openStoreEarly`, from script-start.ts, the entrypoint's first import).
 */

export const DB_NAME = 'agentsfence';

/** The database's object stores (records are parsed by store.ts and records.ts, never cast). */
export interface FenceDB extends DBSchema {
  kv: { key: string; value: unknown };
  approvals: { key: string; value: unknown };
  audit: { key: number; value: unknown };
}

export function openFenceDB(name: string): Promise<IDBPDatabase<FenceDB>> {
  return openDB<FenceDB>(name, 1, {
    upgrade(database) {
      database.createObjectStore('kv');
      database.createObjectStore('approvals', { keyPath: 'id' });
      database.createObjectStore('audit', { keyPath: 'seq', autoIncrement: true });
    },
  });
}

let early: Promise<IDBPDatabase<FenceDB>> | null = null;

/** Issues the open of the worker's database now; TaskStore.open takes it (once). No-op where there is no IndexedDB. */
export function openStoreEarly(): void {
  if (early !== null || typeof indexedDB === 'undefined') return;
  early = openFenceDB(DB_NAME);
  // Whoever takes it handles a failure; until then an early failure is not an unhandled rejection.
  early.catch(() => undefined);
}

/** The database `name`: the early open when it was issued for that name and not yet taken, else a new open. */
export function takeFenceDB(name: string): Promise<IDBPDatabase<FenceDB>> {
  const pending = name === DB_NAME ? early : null;
  if (pending === null) return openFenceDB(name);
  early = null;
  return pending;
}
