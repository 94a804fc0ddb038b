import { defineConfig } from '@playwright/test';

// Real Chromium (/usr/bin/chromium, see design.md §8), one worker: the machine has 2 cores and every
// spec launches its own browser. Servers listen on 127.0.0.1 only; *.test names map to loopback.
export default defineConfig({
  testDir: 'e2e',
  workers: 1,
  fullyParallel: false,
  globalSetup: './e2e/background.global-setup.ts',
  timeout: 90_000,
  expect: { timeout: 10_000 },
  retries: 0,
  reporter: 'list',
  use: { headless: true, actionTimeout: 10_000, navigationTimeout: 15_000 },
});
