/**
 * What the benchmarks share: the app on one libvirt host of this machine, its API, a funded account, virsh,
 * removing their machines, the machine's processes, a process's memory and CPU time.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { startApp } from "../e2e/support/app-server";

/** `virsh -c qemu:///system ...`: its output, or "" when it fails (a machine already gone). */
export const virsh = (...args: string[]) => {
  try {
    return execFileSync("virsh", ["-c", "qemu:///system", ...args], { stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return "";
  }
};

/** Removes every domain named `<prefix>...` and its volumes from the pool `<prefix>disks`. */
export function removeMachines(prefix: string): void {
  for (const name of virsh("list", "--all", "--name").split("\n")) {
    if (!name.startsWith(prefix)) continue;
    virsh("destroy", name);
    virsh("undefine", name);
  }
  virsh("pool-refresh", `${prefix}disks`);
  for (const line of virsh("vol-list", "--pool", `${prefix}disks`).split("\n")) {
    const volume = line.trim().split(/\s+/)[0] ?? "";
    if (volume.startsWith(prefix)) virsh("vol-delete", "--pool", `${prefix}disks`, volume);
  }
}

/** pid and arguments of every process on the machine. */
export const processes = () =>
  execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .flatMap((match) => (match ? [{ pid: Number(match[1]), args: match[2] ?? "" }] : []));

/** The pid of an app started by startApp, found by the port it listens on. */
export const appPidOf = (appUrl: string) =>
  processes().find((p) => p.args.includes(`scripts/server.mjs -H 127.0.0.1 -p ${new URL(appUrl).port}`))?.pid;

/** The CPU time a process has used so far (user and system, all its threads), in ms. */
export function cpuMs(pid: number): number {
  // The fields after the command (which may hold spaces) in /proc/<pid>/stat: utime and stime are 14 and 15.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
}

/** A process's resident memory in MB. */
export const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/** One benchmark machine's caps; the host gets room for `machines` of them. */
type BenchMachines = { machines: number; memoryMb: number; vcpus: number; diskGb: number };

/**
 * The app on the libvirt provisioner with one host, this machine, sized for the benchmark's machines, which
 * get its own domain prefix, pool, disk folder and forwarded SSH ports. `uri`: the host's libvirt address (this
 * machine's libvirtd by default; a `qemu+libssh` one reaches it as a remote host). `env` adds to or overrides
 * the rest.
 */
export function startBenchApp(
  options: BenchMachines & {
    prefix: string;
    images: string;
    disksDir: string;
    sshPortBase: number;
    uri?: string;
  },
  env: Record<string, string> = {},
) {
  return startApp({
    PROVISIONER: "libvirt",
    // A test machine only this run reaches: demo payments fund its real machines.
    ALLOW_DEMO_LIBVIRT: "1",
    HYPERVISORS: JSON.stringify([
      {
        name: "bench-1",
        location: "nl",
        uri: options.uri ?? "qemu:///system",
        memory_mb: options.memoryMb * options.machines,
        vcpus: options.vcpus * options.machines,
        disk_gb: options.diskGb * options.machines,
      },
    ]),
    GUEST_IMAGES_DIR: options.images,
    SERVER_DISKS_DIR: options.disksDir,
    LIBVIRT_DOMAIN_PREFIX: options.prefix,
    SERVER_MEMORY_CAP_MB: String(options.memoryMb),
    SERVER_DISK_CAP_GB: String(options.diskGb),
    SSH_FORWARD_PORT_BASE: String(options.sshPortBase),
    SSH_FORWARD_PORT_COUNT: "100",
    ...env,
  });
}

export type BenchCall = (
  path: string,
  key?: string,
  method?: string,
  body?: unknown,
) => Promise<Record<string, unknown>>;

/** A JSON call to the app's API, with an API key when given. */
export const apiCaller =
  (appUrl: string): BenchCall =>
  async (path, key, method = "GET", body) => {
    const response = await fetch(`${appUrl}/api/v1${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  };

/** A new account (its API key and login token), its balance topped up by `usd` in `coin` by a demo payment. */
export async function fundedAccount(call: BenchCall, usd: number, coin: string) {
  const account = await call("/account", undefined, "POST");
  const key = account.api_key as string;
  const topup = await call("/topups", key, "POST", { amount: usd, coin });
  await call(`/demo/topups/${topup.ref}/pay`, key, "POST", {});
  while ((await call(`/topups/${topup.ref}`, key)).status !== "completed")
    await new Promise((r) => setTimeout(r, 250));
  return { key, loginToken: account.login_token as string };
}
