/** What the real-VM benchmarks share: virsh on this machine, removing their machines, a process's memory. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

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

/** A process's resident memory in MB. */
export const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
