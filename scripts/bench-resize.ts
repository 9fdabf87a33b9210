/**
 * Resize downtime on the tiny test guest: one server resized back and forth between Pup (1 vCPU, 1 GiB) and
 * Jackal (2 vCPUs, 2 GiB) without growing its disk, BENCH_RESIZES times (default 6). Reports the downtime the
 * service measures and shows (from the shutdown request until SSH answers on the new size) and what a client
 * sees (from its request until it logs in and finds the new vCPU count), p50 and max. Needs root, libvirtd and
 * `npm run guest:build-tiny`; run it under `flock /tmp/vm.lock` beside other VM work.
 */
import { readFileSync } from "node:fs";
import { sshRun, sshWhenUp } from "../e2e/vm/host";
import { apiCaller, fundedAccount, removeMachines, startBenchApp } from "./bench-host";
import { percentile } from "./percentile";

const RESIZES = Number(process.env.BENCH_RESIZES ?? 6);
const PREFIX = "vpsr-";
const TINY_IMAGES = process.env.TINY_GUEST_DIR ?? "/var/lib/vps/test-images";
// Forwarded SSH ports of its own, beside the vm suite's and bench:vm's.
const SSH_PORT_BASE = Number(process.env.VM_TEST_SSH_PORT_BASE ?? 23600) + 400;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  removeMachines(PREFIX);
  const app = await startBenchApp(
    {
      machines: 1,
      memoryMb: 2048,
      vcpus: 2,
      diskGb: 4,
      prefix: PREFIX,
      images: TINY_IMAGES,
      disksDir: "/var/lib/vps/bench-resize",
      sshPortBase: SSH_PORT_BASE,
    },
    { WATCHER_INTERVAL_MS: "500", SERVER_STOP_TIMEOUT_SECONDS: "30", SERVER_BOOT_TIMEOUT_SECONDS: "300" },
  );
  const call = apiCaller(app.url);
  const service: number[] = [];
  const client: number[] = [];
  try {
    const { key } = await fundedAccount(call, 200, "USDTTRC");
    const created = await call("/servers", key, "POST", { plan: "pup", location: "nl", os: "debian-12" });
    if (typeof created.id !== "number") throw new Error(`order refused: ${JSON.stringify(created)}`);
    let server = created;
    while (server.status === "provisioning") {
      await sleep(250);
      server = await call(`/servers/${created.id}`, key);
    }
    if (server.status !== "active") throw new Error(`build failed: ${server.status_reason}`);
    const port = server.ssh_port as number;
    const pinned = server.ssh_host_key_fingerprint as string;
    const login = { password: created.root_password as string };
    await sshWhenUp(port, pinned, login, "true", 300_000);

    for (let i = 0; i < RESIZES; i++) {
      const plan = i % 2 === 0 ? "jackal" : "pup";
      const cpus = plan === "jackal" ? "2" : "1";
      const asked = Date.now();
      const accepted = await call(`/servers/${created.id}/resize`, key, "POST", { plan });
      if (accepted.state !== "pending") throw new Error(`resize refused: ${JSON.stringify(accepted)}`);
      // The client's view: the first login that finds the new size.
      for (;;) {
        const seen = await sshRun(port, pinned, login, "nproc", 3_000).catch(() => "");
        if (seen === cpus) break;
        if (Date.now() - asked > 300_000) throw new Error(`no SSH on ${plan} after 300 s`);
        await sleep(200);
      }
      client.push((Date.now() - asked) / 1000);
      let resize = (await call(`/servers/${created.id}/resizes`, key)).resizes as Record<string, unknown>[];
      while (resize[0]?.state !== "done" && resize[0]?.state !== "failed") {
        await sleep(250);
        resize = (await call(`/servers/${created.id}/resizes`, key)).resizes as Record<string, unknown>[];
      }
      if (resize[0]?.state !== "done") throw new Error(`resize failed: ${resize[0]?.failure_reason}`);
      service.push(resize[0].downtime_seconds as number);
      console.log(
        `resize ${i + 1} to ${plan}: downtime ${resize[0].downtime_seconds} s (service), ` +
          `request -> login on the new size ${(client.at(-1) ?? 0).toFixed(1)} s (client)`,
      );
    }
    await call(`/servers/${created.id}`, key, "DELETE");
  } finally {
    await app.stop();
    removeMachines(PREFIX);
  }
  const cpuFlags = /\b(vmx|svm)\b/.test(readFileSync("/proc/cpuinfo", "utf8"));
  const row = (name: string, values: number[]) =>
    `${name.padEnd(48)} ${`${percentile(values, 50).toFixed(1)} s`.padStart(8)} ${`${Math.max(...values).toFixed(1)} s`.padStart(8)}`;
  console.log(
    `\ntiny guest, ${cpuFlags ? "KVM" : "TCG (no vmx/svm)"}, ${RESIZES} resizes Pup <-> Jackal without growing ` +
      `the disk, load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]} (target: downtime <= 30 s)`,
  );
  console.log(`${"".padEnd(48)} ${"p50".padStart(8)} ${"max".padStart(8)}`);
  console.log(row("downtime: shutdown -> SSH answers (service)", service));
  console.log(row("request -> login on the new size (client)", client));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
