/**
 * The scripts kept out of background.js: one row each, named as its entrypoint (`entrypoints/<name>.ts`
 * → `/<name>.js`), pointing at the module it carries. The worker evaluates such a script only when
 * `lazy(name)` is first awaited after a start (./load-extension.ts); Node (the tests, the CLI) imports the
 * module itself (./load.ts). A new lazy script is a row here and an entrypoint that calls `lazyScript`
 * (./script.ts): the install step, the loader and the build read this table.
 */
export const LAZY_SCRIPTS = {
  /** The rules compiler (src/compiler, zod's JSON-schema generator): the first compile after a start. */
  compiler: () => import('../background/task/task-compiler'),
  /** The popup's and options page's requests no decision needs: the first such request. */
  control: () => import('../background/task/control'),
  /** The openai SDK: the first model call (model compiler, model modes). */
  'openai-sdk': () => import('openai'),
  /** The Minimizer's and the Sanitizer's model modes: the first time a model mode is asked. */
  'model-modes': () => import('../llm/model-modes'),
  /** The audit shipper and its OTLP encoding: once the organisation names a collector. */
  collector: () => import('../org/collector'),
  /** The Minimizer's name finder (compromise): the first compile whose words paste something. */
  names: () => import('../minimizer/names'),
} as const;

export type LazyName = keyof typeof LAZY_SCRIPTS;
export type LazyModule<N extends LazyName> = Awaited<ReturnType<(typeof LAZY_SCRIPTS)[N]>>;

