/**
 * The browser test that ends in a real SSH login: the app with the libvirt provisioner and the tiny TEST
 * guest (see e2e/vm/host.ts), run in the vm step (`npx playwright test -c playwright.vm.config.ts`), not
 * with the normal browser suite. Its domains, pool and ports are its own, derived from the vm suite's settings.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "./e2e/support/chromium";
import { BROWSER_VM } from "./e2e/vm-browser/settings";

const dataDir = mkdtempSync(path.join(tmpdir(), "vps-e2e-vm-"));

export default defineConfig({
  testDir: "e2e/vm-browser",
  workers: 1,
  retries: 0,
  timeout: 240_000,
  // Its own results folder: Playwright empties its folder at start, and the browser suite may be running.
  outputDir: "test-results/vm-browser",
  // Booting VMs load the machine: page steps get more patience than in the browser suite.
  expect: { timeout: 20_000 },
  globalSetup: "./e2e/vm-browser/global-setup.ts",
  use: {
    baseURL: `http://127.0.0.1:${BROWSER_VM.appPort}`,
    trace: "retain-on-failure",
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS },
  },
  webServer: {
    command: `node scripts/server.mjs -H 127.0.0.1 -p ${BROWSER_VM.appPort}`,
    url: `http://127.0.0.1:${BROWSER_VM.appPort}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    env: {
      DATA_DIR: dataDir,
      NEXT_TELEMETRY_DISABLED: "1",
      WATCHER_INTERVAL_MS: "300",
      DEMO_CHAIN_PORT: String(BROWSER_VM.appPort + 1000),
      PROVISIONER: "libvirt",
      // A test machine only this run reaches: demo payments fund its real machines.
      ALLOW_DEMO_LIBVIRT: "1",
      HYPERVISORS: JSON.stringify([
        { name: "local-1", location: "nl", uri: "qemu:///system", memory_mb: 1536, vcpus: 2, disk_gb: 6 },
      ]),
      GUEST_IMAGES_DIR: BROWSER_VM.imagesDir,
      SERVER_DISKS_DIR: BROWSER_VM.disksDir,
      LIBVIRT_DOMAIN_PREFIX: BROWSER_VM.prefix,
      SERVER_MEMORY_CAP_MB: "512",
      SERVER_DISK_CAP_GB: "2",
      SSH_FORWARD_PORT_BASE: String(BROWSER_VM.sshPortBase),
      // Ends before the app's own port (sshPortBase + 200).
      SSH_FORWARD_PORT_COUNT: "100",
      SERVER_BOOT_TIMEOUT_SECONDS: "120",
    },
  },
});
