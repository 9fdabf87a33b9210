import "server-only";
import { and, eq, ne, sql } from "drizzle-orm";
import { conflict } from "@/lib/api/errors";
import type { Plan } from "@/lib/catalog/catalog";
import { config, type ServerSettings } from "@/lib/config/env";
import { hypervisors, servers } from "@/lib/db/schema";
import type { Tx } from "@/lib/ledger/ledger";

export type Size = { memoryMb: number; vcpus: number; diskGb: number };

/** What a plan gets on this deployment: its size, capped by SERVER_MEMORY_CAP_MB / SERVER_DISK_CAP_GB. */
export function sizeFor(plan: Plan, settings: ServerSettings = config().servers): Size {
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

/**
 * Chooses a host of the location with room for `size`, inside the order's transaction. Each candidate's
 * row is upserted from the configuration, which also locks it: concurrent orders on any number of app
 * instances take the host's lock in turn, so what they reserve never adds up beyond its size. With no
 * hosts configured (the simulated provisioner's default) there is nothing to place and nothing refused.
 */
export async function placeServer(tx: Tx, location: string, size: Size): Promise<string | undefined> {
  const all = config().servers.hypervisors;
  if (all.length === 0) return undefined;
  const candidates = all
    .filter((host) => host.location === location)
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const host of candidates) {
    const values = {
      location: host.location,
      uri: host.uri,
      memoryMb: host.memoryMb,
      vcpus: host.vcpus,
      diskGb: host.diskGb,
    };
    await tx
      .insert(hypervisors)
      .values({ name: host.name, ...values })
      .onConflictDoUpdate({ target: hypervisors.name, set: values });
    const [used] = await tx
      .select({
        memoryMb: sql<number>`coalesce(sum(${servers.memoryMb}), 0)::int`,
        vcpus: sql<number>`coalesce(sum(${servers.vcpus}), 0)::int`,
        diskGb: sql<number>`coalesce(sum(${servers.diskGb}), 0)::int`,
      })
      .from(servers)
      .where(and(eq(servers.hypervisor, host.name), ne(servers.status, "terminated")));
    if (
      (used?.memoryMb ?? 0) + size.memoryMb <= host.memoryMb &&
      (used?.vcpus ?? 0) + size.vcpus <= host.vcpus &&
      (used?.diskGb ?? 0) + size.diskGb <= host.diskGb
    ) {
      return host.name;
    }
  }
  throw outOfCapacity(location);
}
