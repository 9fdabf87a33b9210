import "server-only";
import { asc, inArray, lt } from "drizzle-orm";
import type { Database, Tx } from "@/lib/db/client";
import { orderOutcomes } from "@/lib/db/schema";
import { now } from "@/lib/util/clock";
import type { ServerRow } from "./present";

/** Order outcomes are kept this long: the status page shows 7 days of them. */
export const ORDER_OUTCOME_RETENTION_DAYS = 30;

/**
 * An order's build ended: the server became active (its SSH server answered the build's probe at
 * `sshAnsweredAt`, or at once on the simulated provisioner, which runs no machine) or failed for good. Written
 * in the transaction that records the end, once per order; the row names no account and no server.
 */
export async function recordOrderOutcome(
  tx: Tx,
  server: Pick<ServerRow, "location" | "os" | "createdAt">,
  outcome: { succeeded: boolean; sshAnsweredAt: Date | null },
  at: Date = now(),
): Promise<void> {
  await tx.insert(orderOutcomes).values({
    location: server.location,
    os: server.os,
    orderedAt: server.createdAt,
    finishedAt: at,
    succeeded: outcome.succeeded,
    sshAnsweredAt: outcome.sshAnsweredAt,
  });
}

/** Deletes up to `batch` outcomes of builds that ended before `before`, oldest first; returns how many. */
export async function pruneOrderOutcomes(database: Database, before: Date, batch: number): Promise<number> {
  const old = database
    .select({ id: orderOutcomes.id })
    .from(orderOutcomes)
    .where(lt(orderOutcomes.finishedAt, before))
    .orderBy(asc(orderOutcomes.finishedAt))
    .limit(batch);
  const deleted = await database
    .delete(orderOutcomes)
    .where(inArray(orderOutcomes.id, old))
    .returning({ id: orderOutcomes.id });
  return deleted.length;
}
