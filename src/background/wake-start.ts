import { openForWake } from './db';

/**
 * The worker's IndexedDB open and wake read, started as the first thing background.js evaluates
 * (entrypoints/background.ts imports this module first; it imports nothing but idb), so the browser opens
 * the backing store while V8 evaluates the rest. Nothing is decided from it here: the store decodes and
 * checks every record when the monitor reads it (TaskStore.resume, readWakeState), and an open or read
 * that failed fails every decision closed there, as before. One open per worker start.
 */
export const wakeOpening = openForWake();
