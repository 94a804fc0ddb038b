import { openStoreEarly } from '../task/store-open';
import { startupMark } from './startup-marks';

// The entrypoint's first import: when background.js's own code began (the bench's cold-start split tells
// the browser's part — worker thread, script load, code cache — from the modules' top-level code).
startupMark('script-start');

// Then the database: its open overlaps the evaluation of the rest of background.js (task/store-open.ts).
openStoreEarly();
