/** Guest networking: the MAC of a server, the bridged pool's addresses, and the seed's network-config. */
import type { HostNetwork } from "@/lib/config/env";

const toNumber = (address: string) =>
  address.split(".").reduce((value, part) => value * 256 + Number(part), 0);
const toAddress = (value: number) => [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join(".");

/** Every address of a pool, first to last. */
export function poolAddresses(pool: HostNetwork["pool"]): string[] {
  const addresses: string[] = [];
  for (let value = toNumber(pool.first); value <= toNumber(pool.last); value++)
    addresses.push(toAddress(value));
  return addresses;
}

/** The lowest address of the pool not in `taken`, or undefined when the pool is exhausted. */
export function freeAddress(pool: HostNetwork["pool"], taken: Iterable<string>): string | undefined {
  const used = new Set(taken);
  return poolAddresses(pool).find((address) => !used.has(address));
}

/** A locally administered MAC (QEMU's 52:54:00 prefix) unique per server id on a bridge. */
export function macFor(serverId: number): string {
  const bytes = [(serverId >>> 16) & 255, (serverId >>> 8) & 255, serverId & 255];
  return `52:54:00:${bytes.map((byte) => byte.toString(16).padStart(2, "0")).join(":")}`;
}

/** cloud-init network-config (version 2): a static IPv4 on the interface with this MAC. */
export function networkConfig(input: {
  mac: string;
  address: string;
  prefix: number;
  gateway: string;
  nameservers?: string[];
}): string {
  const lines = [
    "version: 2",
    "ethernets:",
    "  nic0:",
    `    match: {macaddress: '${input.mac}'}`,
    "    set-name: eth0",
    `    addresses: [${input.address}/${input.prefix}]`,
    `    gateway4: ${input.gateway}`,
  ];
  if (input.nameservers && input.nameservers.length > 0) {
    lines.push(`    nameservers: {addresses: [${input.nameservers.join(", ")}]}`);
  }
  return `${lines.join("\n")}\n`;
}
