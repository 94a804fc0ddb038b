import { en } from 'zod/locales';
import { z } from 'zod/mini';

/**
 * The one zod every schema is written with: `zod/mini`, whose schemas are plain values with functional
 * checks, so the bundler keeps only what they use and the worker builds them cheaply at start.
 * zod/mini loads no locale; the English one is what classic zod shows, and its messages reach the
 * popup, the options form, the audit and the CLI ("malformed at options.baseUrl: Invalid URL").
 * `jitless`: an extension's CSP forbids `new Function`, so zod's JIT never runs there and its probe
 * would be reported as a CSP violation; tests take the path the extension takes.
 */
z.config({ ...en(), jitless: true });

export { z };
