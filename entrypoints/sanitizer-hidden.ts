import { setPreset } from '../src/sanitizer/preset';

// ISOLATED world, registered just before frame-guard.js while a task runs with the Sanitizer in `hidden` mode
// (src/background/floor/registration.ts): the mode is known before the first node is parsed.
export default defineUnlistedScript({
  globalName: false,
  main() {
    setPreset('hidden');
  },
});
