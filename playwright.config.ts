import { defineConfig } from '@playwright/test';

// Real Chromium (/usr/bin/chromium, see docs/machine-facts.md). Two workers on 2 cores: most of a spec is waiting
// (quiet periods, page loads, a browser starting), so two spec files at a time take about half the
// time; the tests within a file stay in order. Every spec has its own servers and browsers; the builds
// are made before the workers start (global setup). Servers listen on 127.0.0.1 only; *.test names
// map to loopback.
export default defineConfig({
  testDir: 'e2e',
  workers: 2,
  fullyParallel: false,
  globalSetup: './e2e/background.global-setup.ts',
  timeout: 90_000,
  expect: { timeout: 10_000 },
  retries: 0,
  reporter: 'list',
  use: { headless: true, actionTimeout: 10_000, navigationTimeout: 15_000 },
});
