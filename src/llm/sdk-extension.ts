import { onDemandScript } from '../background/on-demand-script';
import type { OpenAISdk } from './sdk';
import { OPENAI_SDK_GLOBAL, OPENAI_SDK_SCRIPT } from './sdk-script';

/**
 * The extension's openai SDK, kept out of background.js (wxt.config.ts puts this module in place of
 * ./sdk.ts): its own script, loaded when a model mode or the model compiler first runs after a start
 * (../background/on-demand-script.ts). A failure here is a failure of that model call (the callers fall
 * back to their deterministic result).
 */
export const loadOpenAI = onDemandScript<OpenAISdk>(OPENAI_SDK_SCRIPT, OPENAI_SDK_GLOBAL, 'model client');
