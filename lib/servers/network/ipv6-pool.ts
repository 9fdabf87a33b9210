import "server-only";
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { LOCATIONS } from "@/lib/catalog/catalog";
import type { Tx } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import { serverSettings } from "../config";
import type { ServerRow } from "../present";
import { type Network, nthSlash64, parseNetwork, slash64Count } from "./addresses";

/**
 * Each server's routed /64: the lowest free one of its host's IPv6 prefix (HYPERVISORS `ipv6_prefix`), or for
 * the simulated provisioner of its location's documentation prefix. The first /64 of a prefix is left to the
 * host. A /64 is the server's (`servers.ipv6_prefix`) through reinstalls, restores, rescue and a lapse with
 * its disk kept; it is freed only once the server is terminated and its machine and disks are gone.
 */

/** The simulated provisioner's plan: location number i gets 2001:db8:1<i>::/48 (documentation space). */
export function simulatedIpv6Pool(location: string): Network | undefined {
  const index = LOCATIONS.findIndex((l) => l.id === location);
  if (index < 0) return undefined;
  return parseNetwork(`2001:db8:${(0x100 + index).toString(16)}::/48`);
}

/**
 * Where the server's /64 comes from: its host's prefix, the simulated plan, or nowhere (no IPv6 there). The
 * simulated provisioner calls no host, so hosts configured beside it (for placement) hand out no prefix: its
 * servers take their location's plan, whichever host they were placed on.
 */
export function ipv6PoolOf(server: Pick<ServerRow, "hypervisor" | "location">): Network | undefined {
  const settings = serverSettings();
  if (settings.provisioner === "simulated") return simulatedIpv6Pool(server.location);
  return settings.hypervisors.find((host) => host.name === server.hypervisor)?.network?.ipv6?.prefix;
}

/** Whose /64s a pool's are: a host's, or under the simulated provisioner a location's. */
function poolOwner(
  server: Pick<ServerRow, "hypervisor" | "location">,
): { hypervisor: string } | { location: string } {
  if (serverSettings().provisioner === "simulated" || !server.hypervisor)
    return { location: server.location };
  return { hypervisor: server.hypervisor };
}

/**
 * The server's /64, reserved now if it has none and its host hands IPv6 out; null where there is none. Under a
 * transaction lock per pool, so two builds never take one /64 (the unique index backs that up).
 */
export async function reserveIpv6Prefix(tx: Tx, server: ServerRow): Promise<string | null> {
  if (server.ipv6Prefix) return server.ipv6Prefix;
  const pool = ipv6PoolOf(server);
  if (!pool) return null;
  const owner = poolOwner(server);
  const scope = "hypervisor" in owner ? owner.hypervisor : `simulated:${owner.location}`;
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`vps-ipv6:${scope}`}))`);
  const held = await tx
    .select({ prefix: servers.ipv6Prefix })
    .from(servers)
    .where(
      and(
        isNotNull(servers.ipv6Prefix),
        "hypervisor" in owner
          ? eq(servers.hypervisor, owner.hypervisor)
          : eq(servers.location, owner.location),
      ),
    );
  const taken = new Set(held.map((row) => row.prefix));
  const count = slash64Count(pool);
  for (let index = 1; index < count; index++) {
    const prefix = nthSlash64(pool, index);
    if (taken.has(prefix)) continue;
    await tx.update(servers).set({ ipv6Prefix: prefix }).where(eq(servers.id, server.id));
    return prefix;
  }
  throw new Error(`the IPv6 prefix of ${scope} has no free /64`);
}

/** Frees a terminated server's /64 once nothing of it is left (its machine and its kept disk are gone). */
export async function releaseIpv6Prefix(tx: Tx, serverId: number): Promise<void> {
  await tx
    .update(servers)
    .set({ ipv6Prefix: null })
    .where(and(eq(servers.id, serverId), eq(servers.status, "terminated"), isNull(servers.retainedUntil)));
}
