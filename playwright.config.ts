import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "./e2e/support/chromium";

const port = Number(process.env.E2E_PORT ?? 3217);
const dataDir = mkdtempSync(path.join(tmpdir(), "vps-e2e-"));
// The app's demo chain listens here (see webServer.env); wallet specs fund their accounts on it.
process.env.E2E_DEMO_CHAIN_URL = `http://127.0.0.1:${port + 1000}`;

export default defineConfig({
  testDir: "e2e/browser",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // CI runs this suite beside the API suite on PostgreSQL and the VMs, whose emulated CPUs can slow a page
  // threefold: room for a busy machine.
  timeout: 75_000,
  // A step's patience too: 5 s was missed on a machine booting guests beside this suite.
  expect: { timeout: 15_000 },
  // Not the vm-browser suite's folder inside it, which that suite may be writing to meanwhile.
  outputDir: "test-results/browser",
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_FLAGS,
    },
  },
  webServer: {
    command: `node scripts/server.mjs -H 127.0.0.1 -p ${port}`,
    url: `http://127.0.0.1:${port}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      DATA_DIR: dataDir,
      NEXT_TELEMETRY_DISABLED: "1",
      // Fast background work so payments confirm and servers build within a test's patience.
      WATCHER_INTERVAL_MS: "300",
      PROVISION_DELAY_SECONDS: "2",
      // Usage graphs fill within seconds (server-usage.spec.ts).
      METRICS_INTERVAL_SECONDS: "1",
      // The demo chain on a known port, so wallet specs can fund their test accounts.
      DEMO_CHAIN_PORT: String(port + 1000),
      // Every spec signs up from 127.0.0.1; the default 10 per hour is too few for the whole suite.
      RATE_LIMIT_ACCOUNT_CREATE: "100/1h",
      // Notifications go to receivers the specs run on loopback.
      NOTIFY_TEST_ALLOW_LOOPBACK: "1",
      // The status page follows the specs' orders within a second (status.spec.ts).
      STATUS_REFRESH_SECONDS: "1",
    },
  },
});
