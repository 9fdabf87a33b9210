/** What the real-VM benchmarks share: virsh on this machine, and removing what a run left behind. */
import { execFileSync } from "node:child_process";

/** virsh on qemu:///system; "" when it fails (a domain or volume already gone is no error here). */
export const virsh = (...args: string[]) => {
  try {
    return execFileSync("virsh", ["-c", "qemu:///system", ...args], { stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return "";
  }
};

/** Removes the domains named `<prefix>...` and their volumes in the pool `<prefix>disks`. */
export function removeMachines(prefix: string) {
  for (const name of virsh("list", "--all", "--name").split("\n")) {
    if (!name.startsWith(prefix)) continue;
    virsh("destroy", name);
    virsh("undefine", name);
  }
  const pool = `${prefix}disks`;
  virsh("pool-refresh", pool);
  for (const line of virsh("vol-list", "--pool", pool).split("\n")) {
    const volume = line.trim().split(/\s+/)[0] ?? "";
    if (volume.startsWith(prefix)) virsh("vol-delete", "--pool", pool, volume);
  }
}
