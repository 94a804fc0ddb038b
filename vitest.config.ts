import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    // A worker per core. Vitest's default leaves one core to its main process (cores - 1), which on the
    // 2-core build machine is one worker: the main process only collects results, so a core sat idle.
    maxWorkers: availableParallelism(),
  },
});
