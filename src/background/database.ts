/**
 * The worker's IndexedDB database, opened as the first thing a wake does. Evaluating background.js takes
 * ≈ 20 ms and opening the database ≈ 5 ms more (bench: the cold-start split); the browser opens it on its
 * own thread, so a request made before the rest of the bundle evaluates overlaps the two. The entrypoint
 * imports src/background/wake-first.ts before anything else for this; TaskStore.open takes the request.
 */
export const DB_NAME = 'agentsfence';
export const DB_VERSION = 1;

let early: IDBOpenDBRequest | null = null;

/** Starts opening the extension's database now (its upgrade handler is attached by TaskStore.open, in the same turn). */
export function openDatabaseEarly(): void {
  early ??= indexedDB.open(DB_NAME, DB_VERSION);
}

/** The request openDatabaseEarly started, once, when it is for this database. */
export function takeEarlyOpen(name: string): IDBOpenDBRequest | null {
  if (name !== DB_NAME) return null;
  const request = early;
  early = null;
  return request;
}
