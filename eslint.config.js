import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['.output/**', 'dist/**', '.wxt/**', 'node_modules/**', 'bench/results/**', 'demo/out/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', { object: 'it', property: 'only' }, { object: 'describe', property: 'only' }, { object: 'test', property: 'only' }],
    },
  },
  {
    // The reference monitor is pure: no browser, no clock, no randomness unless passed in.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['webextension-polyfill', 'wxt*', '#imports', 'idb', 'preact*', 'node:*'] }],
      'no-restricted-globals': ['error', 'window', 'document', 'chrome', 'browser', 'fetch'],
      'no-restricted-properties': ['error', { object: 'Date', property: 'now' }, { object: 'Math', property: 'random' }],
    },
  },
  {
    // The demo, the benchmark and the product do not depend on the unit tests; shared test code lives in
    // src/testkit (loopback stand-ins) or src/harness.
    files: ['demo/**/*.ts', 'bench/**/*.ts', 'src/**/*.ts', 'entrypoints/**/*.ts', 'entrypoints/**/*.tsx', 'src/**/*.tsx'],
    ignores: ['src/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/tests/**'] }] },
  },
  {
    files: ['bin/**/*.mjs', 'scripts/**/*.mjs', 'demo/**/*.mjs', '.ci/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
