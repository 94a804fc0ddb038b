import * as openai from 'openai';
import { lazyScript } from '../src/lazy/script';

// The openai SDK: a lazy script (src/lazy/scripts.ts), so background.js does not carry it.
export default defineUnlistedScript(lazyScript('openai-sdk', openai));
