/**
 * The real-VM suite: one app with the libvirt provisioner on this machine's libvirtd (TCG here), a
 * hypervisor with room for exactly one capped server, and the Debian 12 image built by `npm run guest:build`.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { freePort, type RunningApp, startApp } from "../support/app-server";
import { TEST_BRIDGE } from "./bridge";
import {
  cleanUpTestMachines,
  DISKS_DIR,
  IMAGES_DIR,
  PREFIX,
  TINY_DISKS_DIR,
  TINY_IMAGES_DIR,
  TINY_PREFIX,
  URI,
} from "./host";
import { type LocalSshd, startLocalSshd } from "./sshd";

let app: RunningApp | undefined;
let tinyApp: RunningApp | undefined;
let sshd: LocalSshd | undefined;
let scratch: string | undefined;

/**
 * A HOME nothing can be written in, as under the shipped systemd unit (ProtectHome=yes), even for root: its
 * parent is a regular file. virsh's interactive mode, which sets root passwords, must not need it.
 */
function unwritableHome(): string {
  scratch = mkdtempSync(path.join(tmpdir(), "vps-vm-home-"));
  const file = path.join(scratch, "not-a-directory");
  writeFileSync(file, "");
  return path.join(file, "home");
}

const UNREACHABLE_URI = "qemu+ssh://nobody@127.0.0.1:1/system?no_tty=1";

export const VM_LIMITS = {
  memoryMb: 1024,
  diskGb: 4,
  sshPortBase: Number(process.env.VM_TEST_SSH_PORT_BASE ?? 23600),
};
/**
 * The Debian app caps disks at 40 GB rather than VM_LIMITS.diskGb, so a Pup's 20 GB disk grows to a Fox's 40 GB
 * in a resize (sparse overlays: the host stores only what the guest writes).
 */
export const DEBIAN_DISK_CAP_GB = 40;
/**
 * How long the Debian guest may take to boot and answer SSH: under TCG beside CI's other suites its first boot
 * was seen to reach cloud-init only after six minutes, and to miss twelve in a busier run. Overridable
 * (VM_TEST_BOOT_MS).
 */
export const DEBIAN_BOOT_MS = Number(process.env.VM_TEST_BOOT_MS ?? 1_080_000);
/** A Pup's disk in the Debian app. */
export const DEBIAN_DISK_GB = 20;
/** The tiny guest's app caps memory at 2 GiB: a Pup gets its 1 GiB (VM_LIMITS), a resize to Jackal 2 GiB. */
export const TINY_MEMORY_CAP_MB = 2048;
/** The tiny guest's app forwards SSH from its own range; the local sshd listens just below it. */
export const TINY_SSH_PORT_BASE = VM_LIMITS.sshPortBase + 500;
/** Each app's range of forwarded ports ends before the next one's, and before the local sshd's port. */
const SSH_FORWARD_PORT_COUNT = "400";
export const LOCAL_SSHD_PORT = TINY_SSH_PORT_BASE - 1;
/** The tiny guest's app reads its hosts this often, and allows this much outbound traffic per period. */
export const TINY_METRICS_INTERVAL_SECONDS = 2;
export const TRAFFIC_CAP_MB = 8;

export async function setup(project: TestProject) {
  if (!existsSync(path.join(IMAGES_DIR, "debian-12.qcow2"))) {
    throw new Error(`no guest image in ${IMAGES_DIR}: run \`npm run guest:build\` first`);
  }
  await cleanUpTestMachines();
  app = await startApp({
    // No cache folder of its own either: virsh would fall back to HOME/.cache.
    HOME: unwritableHome(),
    XDG_CACHE_HOME: "",
    PROVISIONER: "libvirt",
    // A test machine only this run reaches: demo payments fund its real machines.
    ALLOW_DEMO_LIBVIRT: "1",
    HYPERVISORS: JSON.stringify([
      // Room for one capped server (1 GiB, 1 vCPU) with its disk grown to 40 GB and snapshots of it: a second
      // order in nl is out of capacity (memory).
      { name: "local-1", location: "nl", uri: URI, memory_mb: 1536, vcpus: 2, disk_gb: 120 },
      // A host that cannot be reached (nothing listens on port 1): every build there fails.
      { name: "unreachable-1", location: "fr", uri: UNREACHABLE_URI, memory_mb: 4096, vcpus: 4, disk_gb: 40 },
    ]),
    // A build waits 20 s (not 5 min) for a host it cannot reach before it is refunded.
    BUILD_HOST_WAIT_SECONDS: "20",
    GUEST_IMAGES_DIR: IMAGES_DIR,
    SERVER_DISKS_DIR: DISKS_DIR,
    LIBVIRT_DOMAIN_PREFIX: PREFIX,
    SERVER_MEMORY_CAP_MB: String(VM_LIMITS.memoryMb),
    SERVER_DISK_CAP_GB: String(DEBIAN_DISK_CAP_GB),
    SSH_FORWARD_PORT_BASE: String(VM_LIMITS.sshPortBase),
    SSH_FORWARD_PORT_COUNT,
    SERVER_STOP_TIMEOUT_SECONDS: "60",
    SERVER_BOOT_TIMEOUT_SECONDS: String(Math.round(DEBIAN_BOOT_MS / 1000) - 20),
    WATCHER_INTERVAL_MS: "1000",
    // The status page follows the real machine's order within a second (real-vm.test.ts).
    STATUS_REFRESH_SECONDS: "1",
  });
  project.provide("baseUrl", app.url);

  // Most tests run on the tiny test guest (seconds to boot): a second app whose images folder holds it.
  if (!existsSync(path.join(TINY_IMAGES_DIR, "debian-12.qcow2"))) {
    throw new Error(`no tiny test guest in ${TINY_IMAGES_DIR}: run \`npm run guest:build-tiny\` first`);
  }
  // A second host, reached through a remote libvirt URI: this machine's libvirtd behind a local sshd.
  sshd = await startLocalSshd(LOCAL_SSHD_PORT);
  // Its demo chain on a known port: the x402 order test funds a wallet there (x402-order.test.ts).
  const demoChainPort = await freePort();
  tinyApp = await startApp({
    DEMO_CHAIN_PORT: String(demoChainPort),
    PROVISIONER: "libvirt",
    // A test machine only this run reaches: demo payments fund its real machines.
    ALLOW_DEMO_LIBVIRT: "1",
    HYPERVISORS: JSON.stringify([
      // Room for one server (memory) and its two snapshots (disk).
      { name: "local-1", location: "nl", uri: URI, memory_mb: 1536, vcpus: 2, disk_gb: 16 },
      // Room for two capped servers (the console test holds the consoles of one account's two) and the
      // snapshots of one.
      { name: "remote-1", location: "se", uri: sshd.uri, memory_mb: 2560, vcpus: 2, disk_gb: 24 },
      // Two guests on the isolation test's own bridge (guest-isolation.test.ts creates it), one on each of
      // two hosts sharing it: this machine's libvirtd, and the same behind the local sshd (qemu+libssh), so
      // their firewalls are applied both ways. Room for one server each; disjoint pools and IPv6 prefixes.
      ...[URI, sshd.uri].map((uri, index) => ({
        name: `bridged-${index + 1}`,
        location: "ro",
        uri,
        memory_mb: 1536,
        vcpus: 2,
        disk_gb: 8,
        bridge: TEST_BRIDGE.name,
        ipv4_pool: TEST_BRIDGE.pools[index],
        ipv4_prefix: TEST_BRIDGE.prefix,
        ipv4_gateway: TEST_BRIDGE.gateway,
        ipv6_prefix: TEST_BRIDGE.ipv6Prefixes[index],
      })),
      { name: "unreachable-1", location: "fr", uri: UNREACHABLE_URI, memory_mb: 4096, vcpus: 4, disk_gb: 40 },
      // Room for the lapse test's server to grow to a Jackal (2 GiB, 2 vCPUs) and come back after lapsing.
      { name: "local-2", location: "bg", uri: URI, memory_mb: 3072, vcpus: 2, disk_gb: 12 },
    ]),
    // A build waits 20 s (not 5 min) for a host it cannot reach before it is refunded.
    BUILD_HOST_WAIT_SECONDS: "20",
    GUEST_IMAGES_DIR: TINY_IMAGES_DIR,
    SERVER_DISKS_DIR: TINY_DISKS_DIR,
    LIBVIRT_DOMAIN_PREFIX: TINY_PREFIX,
    SERVER_MEMORY_CAP_MB: String(TINY_MEMORY_CAP_MB),
    SERVER_DISK_CAP_GB: String(VM_LIMITS.diskGb),
    SSH_FORWARD_PORT_BASE: String(TINY_SSH_PORT_BASE),
    SSH_FORWARD_PORT_COUNT,
    SERVER_STOP_TIMEOUT_SECONDS: "30",
    SERVER_BOOT_TIMEOUT_SECONDS: "120",
    WATCHER_INTERVAL_MS: "1000",
    // A server keeps two snapshots, so the limit is reached within one test; the lapse test moves the clock.
    SNAPSHOTS_PER_SERVER: "2",
    // Usage within seconds, a tiny allowance to pass, and business time to move to the next period.
    METRICS_INTERVAL_SECONDS: String(TINY_METRICS_INTERVAL_SECONDS),
    TRAFFIC_ALLOWANCE_CAP_MB: String(TRAFFIC_CAP_MB),
    // The console test: one server's console per account, and a clock it moves past a ticket's expiry.
    CONSOLE_MAX_PER_ACCOUNT: "1",
    // A client that reads nothing while its guest floods the line is cut off after this long behind.
    CONSOLE_BEHIND_SECONDS: "5",
    ENABLE_TEST_CLOCK: "1",
  });
  project.provide("tinyBaseUrl", tinyApp.url);
  project.provide("tinyAppEnv", { DATA_DIR: tinyApp.dataDir });
  project.provide("tinyDemoChainUrl", `http://127.0.0.1:${demoChainPort}`);
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The app whose images are the tiny test guest (see host.ts), with a second host over a remote URI. */
    tinyBaseUrl: string;
    /** What a command run beside the tiny guest's app needs of its environment (`operator:add`). */
    tinyAppEnv: Record<string, string>;
    /** The tiny guest's app's demo chain (Base's chain id, test USDC at USDC's address), for x402 payments. */
    tinyDemoChainUrl: string;
  }
}

export async function teardown() {
  if (process.env.VM_TEST_LOGS) console.log(app?.logs(), tinyApp?.logs());
  await app?.stop();
  await tinyApp?.stop();
  await sshd?.stop();
  await cleanUpTestMachines();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
