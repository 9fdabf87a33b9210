import type { HostNetwork } from "../config";
/** Guest networking: the MAC of a server, the bridged pool's addresses, and the seed's network-config. */

/** Where a guest on a host without a bridge is reached: its SSH port forwarded from this machine's loopback. */
export const FORWARDED_SSH_ADDRESS = "127.0.0.1";

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

/**
 * A locally administered MAC unique per server id on a bridge: 52:54 and the id's 32 bits, so every id a server
 * can have (a 32-bit integer column) gets its own; ids below 2^24 keep QEMU's familiar 52:54:00 prefix.
 */
export function macFor(serverId: number): string {
  if (!Number.isInteger(serverId) || serverId < 0 || serverId > 0xffff_ffff)
    throw new RangeError(`no MAC for server id ${serverId}`);
  const bytes = [24, 16, 8, 0].map((shift) => (serverId >>> shift) & 255);
  return `52:54:${bytes.map((byte) => byte.toString(16).padStart(2, "0")).join(":")}`;
}

/**
 * cloud-init network-config (version 2): a static IPv4 on the interface with this MAC, and no IPv6
 * autoconfiguration: router advertisements are not accepted and no link-local address is made, so a rogue
 * advertisement cannot give the guest a route or an address (the host's filter drops guests' IPv6 anyway).
 */
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
    "    accept-ra: false",
    "    link-local: []",
  ];
  if (input.nameservers && input.nameservers.length > 0) {
    lines.push(`    nameservers: {addresses: [${input.nameservers.join(", ")}]}`);
  }
  return `${lines.join("\n")}\n`;
}
