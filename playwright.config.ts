import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3217);
const dataDir = mkdtempSync(path.join(tmpdir(), "vps-e2e-"));

export default defineConfig({
  testDir: "e2e/browser",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  timeout: 30_000,
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: {
    command: `node node_modules/next/dist/bin/next start -H 127.0.0.1 -p ${port}`,
    url: `http://127.0.0.1:${port}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      DATA_DIR: dataDir,
      NEXT_TELEMETRY_DISABLED: "1",
      // Fast background work so payments confirm and servers build within a test's patience.
      WATCHER_INTERVAL_MS: "300",
      PROVISION_DELAY_SECONDS: "2",
    },
  },
});
