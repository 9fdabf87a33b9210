import "server-only";
import { and, eq, ne, sql } from "drizzle-orm";
import { conflict } from "@/lib/api/errors";
import type { Plan } from "@/lib/catalog/catalog";
import type { Database, Tx } from "@/lib/db/client";
import { hypervisors, servers, snapshots } from "@/lib/db/schema";
import { type HypervisorHost, type ServerSettings, serverSettings } from "./config";

export type Size = { memoryMb: number; vcpus: number; diskGb: number };

/** What a plan gets on this deployment: its size, capped by SERVER_MEMORY_CAP_MB / SERVER_DISK_CAP_GB. */
export function sizeFor(plan: Plan, settings: ServerSettings = serverSettings()): Size {
  return {
    memoryMb: Math.min(plan.ramMb, settings.memoryCapMb ?? plan.ramMb),
    vcpus: plan.vcpu,
    diskGb: Math.min(plan.diskGb, settings.diskCapGb ?? plan.diskGb),
  };
}

const outOfCapacity = (location: string) =>
  conflict(
    "out_of_capacity",
    `No host in ${location} has room for this plan right now; try another location or plan later.`,
  );

/** A byte count in GiB, the unit hosts are sized in. */
const GIB = 1_073_741_824;

/** A host's row as the configuration describes it (what the row keeps besides is the service's own). */
export const hostColumns = (host: HypervisorHost) => ({
  location: host.location,
  uri: host.uri,
  memoryMb: host.memoryMb,
  vcpus: host.vcpus,
  diskGb: host.diskGb,
});

/**
 * Upserts the host's row from the configuration, which also locks it for the reservation that follows, and
 * says whether an operator drained it (the row keeps that across upserts).
 */
export async function lockHost(tx: Tx, host: HypervisorHost): Promise<{ drained: boolean }> {
  const values = hostColumns(host);
  const [row] = await tx
    .insert(hypervisors)
    .values({ name: host.name, ...values })
    .onConflictDoUpdate({ target: hypervisors.name, set: values })
    .returning({ drainedAt: hypervisors.drainedAt });
  return { drained: Boolean(row?.drainedAt) };
}

/**
 * What a host has committed: its live servers' sizes, plus the disk its snapshots hold (their measured size, or
 * while one is being taken the server's disk size reserved for it; a failed one holds nothing).
 */
export async function usedOn(tx: Tx | Database, hostName: string): Promise<Size> {
  const [used] = await tx
    .select({
      memoryMb: sql<number>`coalesce(sum(${servers.memoryMb}), 0)::int`,
      vcpus: sql<number>`coalesce(sum(${servers.vcpus}), 0)::int`,
      diskGb: sql<number>`coalesce(sum(${servers.diskGb}), 0)::int`,
    })
    .from(servers)
    .where(and(eq(servers.hypervisor, hostName), ne(servers.status, "terminated")));
  const [held] = await tx
    .select({
      diskGb: sql<number>`ceil(coalesce(sum(coalesce(${snapshots.sizeBytes}, ${snapshots.reservedGb}::bigint * ${GIB})), 0) / ${GIB}::numeric)::int`,
    })
    .from(snapshots)
    .where(and(eq(snapshots.hypervisor, hostName), ne(snapshots.state, "failed")));
  return {
    memoryMb: used?.memoryMb ?? 0,
    vcpus: used?.vcpus ?? 0,
    diskGb: (used?.diskGb ?? 0) + (held?.diskGb ?? 0),
  };
}

const fits = (host: HypervisorHost, used: Size, size: Size) =>
  used.memoryMb + size.memoryMb <= host.memoryMb &&
  used.vcpus + size.vcpus <= host.vcpus &&
  used.diskGb + size.diskGb <= host.diskGb;

/**
 * Chooses a host of the location with room for `size`, inside the order's transaction. Each candidate's
 * row is upserted from the configuration, which also locks it: concurrent orders on any number of app
 * instances take the host's lock in turn, so what they reserve never adds up beyond its size. A host an
 * operator drained takes no new server. With no hosts configured (the simulated provisioner's default)
 * there is nothing to place and nothing refused.
 */
export async function placeServer(tx: Tx, location: string, size: Size): Promise<string | undefined> {
  const all = serverSettings().hypervisors;
  if (all.length === 0) return undefined;
  const candidates = all
    .filter((host) => host.location === location)
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const host of candidates) {
    if ((await lockHost(tx, host)).drained) continue;
    if (fits(host, await usedOn(tx, host.name), size)) return host.name;
  }
  throw outOfCapacity(location);
}

/**
 * Reserves `size` more on a server's own host (a snapshot's disk; a lapsed server coming back), under the
 * host's lock like an order, or refuses with 409 out_of_capacity saying `refusal`. `releasedBytes`: what the
 * same step frees there (the kept disk that becomes the server's own again). A server without a configured
 * host (the simulated provisioner) needs no room.
 */
export async function reserveOnHost(
  tx: Tx,
  hostName: string | null,
  size: Size,
  refusal: string,
  releasedBytes = 0,
): Promise<void> {
  const host = serverSettings().hypervisors.find((candidate) => candidate.name === hostName);
  if (!host) return;
  await lockHost(tx, host);
  const used = await usedOn(tx, host.name);
  const released = Math.floor(releasedBytes / GIB);
  if (!fits(host, { ...used, diskGb: used.diskGb - released }, size))
    throw conflict("out_of_capacity", refusal);
}
