import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(import.meta.dirname),
  // `server-only` guards the Next bundles; under vitest the code runs on the server anyway.
  "server-only": path.resolve(import.meta.dirname, "lib/testing/empty-module.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "components/**/*.test.ts"],
          environment: "node",
          // Most files run an embedded PostgreSQL: under CI, beside the VM suite's guests, a test that takes
          // a second alone can take ten.
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "api",
          include: ["e2e/api/**/*.test.ts"],
          environment: "node",
          globalSetup: ["e2e/api/global-setup.ts"],
          // CI runs the suite beside the VM suite's emulated guests: a test that takes 10 s alone can take 30.
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // One app server is shared; files run one after another so rate-limit tests see their own counters.
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          // Real coin nodes in regtest (litecoind, monerod): its own step, since it needs those binaries.
          name: "nodes",
          include: ["e2e/nodes/**/*.test.ts"],
          environment: "node",
          globalSetup: ["e2e/nodes/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          // Real virtual machines under libvirt (TCG on hosts without vmx/svm): slow, so a suite of its own.
          name: "vm",
          include: ["e2e/vm/**/*.test.ts"],
          environment: "node",
          globalSetup: ["e2e/vm/global-setup.ts"],
          // The Debian test boots once under TCG (twice with VM_DEBIAN_RESIZE=1), each boot allowed DEBIAN_BOOT_MS.
          testTimeout: 2_400_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
