import { existsSync, readFileSync } from "node:fs";
import { sshWhenUp } from "../e2e/vm/host";
import { startLocalSshd } from "../e2e/vm/sshd";
import { apiCaller, fundedAccount, removeMachines, rssMb, startBenchApp, virsh } from "./bench-host";
import { percentile } from "./percentile";

const ORDERS = Number(process.env.BENCH_VM_ORDERS ?? 5);
const AT_ONCE = Number(process.env.BENCH_VM_PARALLEL ?? 2);
const PREFIX = "vpsb-";
const IMAGES = process.env.GUEST_IMAGES_DIR ?? "/var/lib/vps/images";
const TINY_IMAGES = process.env.TINY_GUEST_DIR ?? "/var/lib/vps/test-images";
// Forwarded SSH ports of its own, derived from the vm suite's base so parallel runs cannot collide.
const SSH_PORT_BASE = Number(process.env.VM_TEST_SSH_PORT_BASE ?? 23600) + 300;
// `tiny-remote`: the tiny guest on this machine's libvirtd reached as a remote host, over qemu+libssh through a
// local sshd, as the VM suite's remote host is: every virsh call of the build is an SSH connection.
const KINDS = (process.env.BENCH_VM_IMAGES ?? "tiny,tiny-remote,debian").split(",");
const REMOTE_SSHD_PORT = SSH_PORT_BASE + 150;

const cleanUp = () => removeMachines(PREFIX);

/** QEMU's pid for a domain, from libvirt's pid file. */
const qemuPid = (domain: string) => Number(readFileSync(`/run/libvirt/qemu/${domain}.pid`, "utf8").trim());
const cpuTicks = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(fields[11]) + Number(fields[12]);
};

/** Seconds from kernel start to the first userspace process, from the guest's console log. */
function kernelSeconds(domain: string): number | undefined {
  const file = `/var/log/libvirt/qemu/${domain}-console.log`;
  if (!existsSync(file)) return undefined;
  const line = readFileSync(file, "utf8")
    .split("\n")
    .find((l) => /Run \/init as init process|Run \/sbin\/init|Freeing unused kernel image/.test(l));
  const stamp = line && /\[\s*(\d+\.\d+)\]/.exec(line)?.[1];
  return stamp ? Number(stamp) : undefined;
}

type Result = {
  kind: string;
  logins: number[];
  idle: { rss: number; cpu: number }[];
  kernel: number[];
};

async function bench(kind: string, images: string, uri?: string): Promise<Result> {
  const app = await startBenchApp(
    {
      machines: AT_ONCE,
      memoryMb: 1024,
      vcpus: 2,
      diskGb: 8,
      prefix: PREFIX,
      images,
      disksDir: "/var/lib/vps/bench-servers",
      sshPortBase: SSH_PORT_BASE,
      uri,
    },
    { WATCHER_INTERVAL_MS: "500", SERVER_BOOT_TIMEOUT_SECONDS: "900" },
  );
  const call = apiCaller(app.url);
  const result: Result = { kind, logins: [], idle: [], kernel: [] };
  // First-boot work to let settle before measuring idle: cloud-init on Debian, next to nothing on the tiny guest.
  const settleMs = kind.startsWith("tiny") ? 5_000 : 20_000;
  try {
    const { key } = await fundedAccount(call, 100, "USDTTRC");

    const one = async (index: number) => {
      const started = Date.now();
      const created = await call("/servers", key, "POST", { plan: "pup", location: "nl", os: "debian-12" });
      if (typeof created.id !== "number") throw new Error(`order refused: ${JSON.stringify(created)}`);
      let server = created;
      while (server.status === "provisioning") {
        await new Promise((r) => setTimeout(r, 250));
        server = await call(`/servers/${created.id}`, key);
      }
      if (server.status !== "active") throw new Error(`build failed: ${server.status_reason}`);
      await sshWhenUp(
        server.ssh_port as number,
        server.ssh_host_key_fingerprint as string,
        { password: created.root_password as string },
        "true",
        600_000,
      );
      const seconds = (Date.now() - started) / 1000;
      result.logins.push(seconds);
      const domain = `${PREFIX}${created.id}`;
      const kernel = kernelSeconds(domain);
      if (kernel !== undefined) result.kernel.push(kernel);
      console.log(
        `${kind} order ${index + 1}: first SSH login after ${seconds.toFixed(1)} s (kernel ${kernel?.toFixed(1)} s)`,
      );
      await new Promise((r) => setTimeout(r, settleMs));
      const pid = qemuPid(domain);
      const ticks = cpuTicks(pid);
      await new Promise((r) => setTimeout(r, 20_000));
      const cpu = ((cpuTicks(pid) - ticks) / 100 / 20) * 100;
      result.idle.push({ rss: rssMb(pid), cpu });
      console.log(
        `${kind} order ${index + 1}: idle QEMU RSS ${rssMb(pid).toFixed(0)} MB, CPU ${cpu.toFixed(1)} %`,
      );
      await call(`/servers/${created.id}`, key, "DELETE");
      // The destroy job frees the host before the next order.
      while (virsh("domstate", domain)) await new Promise((r) => setTimeout(r, 500));
    };
    for (let next = 0; next < ORDERS; next += AT_ONCE) {
      await Promise.all(Array.from({ length: Math.min(AT_ONCE, ORDERS - next) }, (_, i) => one(next + i)));
    }
  } finally {
    await app.stop();
    cleanUp();
  }
  return result;
}

async function main() {
  cleanUp();
  const cpuFlags = /\b(vmx|svm)\b/.test(readFileSync("/proc/cpuinfo", "utf8"));
  const results: Result[] = [];
  for (const kind of KINDS) {
    const images = kind.startsWith("tiny") ? TINY_IMAGES : IMAGES;
    if (!kind.endsWith("-remote")) {
      results.push(await bench(kind, images));
      continue;
    }
    const sshd = await startLocalSshd(REMOTE_SSHD_PORT);
    try {
      results.push(await bench(kind, images, sshd.uri));
    } finally {
      await sshd.stop();
    }
  }
  const p50 = (values: number[]) => percentile(values, 50);
  console.log(
    `\n${cpuFlags ? "KVM" : "TCG (no vmx/svm), tb-cache 128 MiB"}, clocksource=hpet, 1 GiB / 1 vCPU guests, ` +
      `${ORDERS} orders per image, ${AT_ONCE} booting at once, load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`,
  );
  console.log("image        order->SSH p50  max     kernel p50  idle RSS p50  idle CPU p50");
  for (const r of results) {
    console.log(
      [
        r.kind.padEnd(12),
        `${p50(r.logins).toFixed(1)} s`.padStart(14),
        `${Math.max(...r.logins).toFixed(1)} s`.padStart(7),
        `${r.kernel.length ? p50(r.kernel).toFixed(1) : "?"} s`.padStart(11),
        `${p50(r.idle.map((s) => s.rss)).toFixed(0)} MB`.padStart(13),
        `${p50(r.idle.map((s) => s.cpu)).toFixed(1)} %`.padStart(13),
      ].join(" "),
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
