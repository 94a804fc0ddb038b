import { openDatabaseEarly } from './database';
import { startupMark } from './startup-marks';

// The entrypoint's first import, so these run before the rest of background.js is evaluated (see database.ts).
startupMark('script-start');
openDatabaseEarly();
