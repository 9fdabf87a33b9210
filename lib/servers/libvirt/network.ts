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

/** A server's routed /64 as its seed configures it: `::1` of the prefix, the gateway on the host's bridge. */
export type SeedIpv6 = { address: string; gateway: string };

/**
 * cloud-init network-config (version 2): a static IPv4 on the interface with this MAC (and a static IPv6 where
 * the server has a /64), and no IPv6 autoconfiguration: router advertisements are not accepted, so a rogue
 * advertisement cannot give the guest a route or an address (the host's filter drops them anyway). Without
 * IPv6 no link-local address is made either.
 */
export function networkConfig(input: {
  mac: string;
  address: string;
  prefix: number;
  gateway: string;
  nameservers?: string[];
  ipv6?: SeedIpv6;
}): string {
  const addresses = [
    `${input.address}/${input.prefix}`,
    ...(input.ipv6 ? [`'${input.ipv6.address}/64'`] : []),
  ];
  const lines = [
    "version: 2",
    "ethernets:",
    "  nic0:",
    `    match: {macaddress: '${input.mac}'}`,
    "    set-name: eth0",
    `    addresses: [${addresses.join(", ")}]`,
    `    gateway4: ${input.gateway}`,
    ...ipv6Lines(input.ipv6),
  ];
  if (input.nameservers && input.nameservers.length > 0) {
    lines.push(`    nameservers: {addresses: [${input.nameservers.join(", ")}]}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The interface's IPv6 lines: its gateway (link-local on the host's bridge), or no IPv6 part at all. */
function ipv6Lines(ipv6: SeedIpv6 | undefined): string[] {
  if (!ipv6) return ["    accept-ra: false", "    link-local: []"];
  return [`    gateway6: '${ipv6.gateway}'`, "    accept-ra: false", "    link-local: [ipv6]"];
}
