import { LOCATIONS } from "@/lib/catalog/catalog";

/**
 * The simulated provisioner's address plan: each location gets a /20 of 100.64.0.0/10 (shared address
 * space, never routed on the internet), in catalog order. Hosts 1..4094 of each block are usable.
 */
export const HOSTS_PER_LOCATION = 4094;

export function poolAddress(location: string, host: number): string {
  const index = LOCATIONS.findIndex((l) => l.id === location);
  if (index < 0) throw new RangeError(`unknown location ${location}`);
  if (!Number.isInteger(host) || host < 1 || host > HOSTS_PER_LOCATION)
    throw new RangeError(`bad host ${host}`);
  const value = ((100 << 24) | (64 << 16)) + index * 4096 + host;
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join(".");
}

/** The location whose pool holds `address`, or undefined. */
export function poolOf(address: string): string | undefined {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts[0] !== 100 || (parts[1] ?? 0) < 64) return undefined;
  const offset = (((parts[1] ?? 0) - 64) << 16) + ((parts[2] ?? 0) << 8) + (parts[3] ?? 0);
  return LOCATIONS[Math.floor(offset / 4096)]?.id;
}
