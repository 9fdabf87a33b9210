import "server-only";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { type Database, db } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import { kickJobs, unfinishedJobServers } from "../jobs";
import { provisioner } from "../provisioner";
import { queueFirewallApply } from "./firewall";

/**
 * A host that restarted (or whose rules someone flushed) has lost its servers' firewall tables: each pass
 * that is due lists a host's tables and queues a `firewall` job for every server there that should have one
 * and has none. Servers with host work in flight are left to it (each start applies the table first).
 */

/** How often a host's tables are listed: one `nft list tables` per host and interval. */
export const FIREWALL_RECONCILE_MS = 10_000;

export async function reconcileFirewalls(hostName: string, database?: Database): Promise<number> {
  const due = processWide("servers.firewall.reconcile", () => new Map<string, number>());
  if ((due.get(hostName) ?? 0) > Date.now()) return 0;
  due.set(hostName, Date.now() + FIREWALL_RECONCILE_MS);
  let present: Set<number> | undefined;
  try {
    present = await provisioner().firewallTables(hostName);
  } catch (error) {
    console.error(`hypervisor ${hostName}: firewall tables: ${firstLine(error)}`);
    return 0;
  }
  if (!present) return 0;
  const handle = database ?? (await db());
  const rows = await handle
    .select({ id: servers.id })
    .from(servers)
    .where(
      and(
        eq(servers.hypervisor, hostName),
        inArray(servers.status, ["active", "suspended"]),
        isNotNull(servers.powerState),
        isNotNull(servers.ip),
      ),
    );
  const missing = rows.filter((row) => !present.has(row.id));
  if (missing.length === 0) return 0;
  const busy = await unfinishedJobServers(
    missing.map((row) => row.id),
    handle,
  );
  let queued = 0;
  for (const { id } of missing) {
    if (busy.has(id)) continue;
    await handle.transaction((tx) => queueFirewallApply(tx, id));
    console.error(`server ${id}: its firewall was missing on ${hostName}; applying it again`);
    queued++;
  }
  if (queued > 0) kickJobs();
  return queued;
}
