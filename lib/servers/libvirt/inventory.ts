/**
 * What a host's libvirt says it holds: its CPUs and memory (`virsh nodeinfo`), every domain with the vCPUs and
 * memory it is given (`virsh domstats --state --vcpu --balloon`, shut-off domains included) and the disk pool
 * of the servers' volumes (`virsh pool-info --bytes`). The parsers are pure, tested on real output.
 */
import { domstatsBlocks, isRunningState } from "../metrics/domstats";

export type InventoryDomain = {
  name: string;
  /** The server id the name stands for under the domain prefix; null for another prefix's domain. */
  serverId: number | null;
  running: boolean;
  vcpus: number;
  memoryMb: number;
};

export type HostInventory = {
  cpus: number;
  memoryMb: number;
  /** The servers' disk pool; null until the first build defines it. */
  pool: { capacityBytes: number; allocationBytes: number; availableBytes: number } | null;
  domains: InventoryDomain[];
};

const KIB_PER_MB = 1024;

/** `CPU(s):` and `Memory size: N KiB` of `virsh nodeinfo`. */
export function parseNodeinfo(output: string): { cpus: number; memoryMb: number } {
  const cpus = /^CPU\(s\):\s+(\d+)/m.exec(output)?.[1];
  const memory = /^Memory size:\s+(\d+) KiB/m.exec(output)?.[1];
  if (cpus === undefined || memory === undefined) throw new Error("virsh nodeinfo: unexpected output");
  return { cpus: Number(cpus), memoryMb: Math.floor(Number(memory) / KIB_PER_MB) };
}

/** `Capacity:`, `Allocation:` and `Available:` of `virsh pool-info --bytes`. */
export function parsePoolInfo(output: string): NonNullable<HostInventory["pool"]> {
  const field = (name: string) => {
    const value = new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(output)?.[1];
    if (value === undefined) throw new Error(`virsh pool-info: no ${name}`);
    return Number(value);
  };
  return {
    capacityBytes: field("Capacity"),
    allocationBytes: field("Allocation"),
    availableBytes: field("Available"),
  };
}

/** Every domain of `virsh domstats --state --vcpu --balloon`, with the server id its name carries. */
export function parseDomains(output: string, prefix: string): InventoryDomain[] {
  return [...domstatsBlocks(output)].map(([name, stats]) => {
    const rest = name.startsWith(prefix) ? name.slice(prefix.length) : "";
    const id = /^[1-9]\d{0,9}$/.test(rest) ? Number(rest) : null;
    return {
      name,
      serverId: id,
      running: isRunningState(stats),
      vcpus: Number(stats.get("vcpu.maximum") ?? stats.get("vcpu.current") ?? 0),
      memoryMb: Math.floor(Number(stats.get("balloon.maximum") ?? 0) / KIB_PER_MB),
    };
  });
}

export const INVENTORY_COMMANDS = {
  node: ["nodeinfo"],
  domains: ["domstats", "--state", "--vcpu", "--balloon"],
  pool: (pool: string) => ["pool-info", "--bytes", pool],
} as const;
