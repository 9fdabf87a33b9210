import "server-only";
import { sql } from "drizzle-orm";
import { type Database, db } from "@/lib/db/client";
import { hypervisors } from "@/lib/db/schema";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import type { HypervisorHost } from "./config";
import { hostColumns } from "./placement";

/** Every pass reads every host; a reading that says what the last one said is written at most this often. */
export const READING_REWRITE_MS = 30_000;

/**
 * Keeps the outcome of the background's reading of a host's machines (reconcileWithHosts), for the status
 * page: `read_at` when it answered, `failing_since` the first failure since it last did. No new call to the
 * host: the reading is the one the pass makes anyway. A failure to write is logged, never thrown.
 */
export async function recordHostReading(
  host: HypervisorHost,
  answered: boolean,
  at: Date = now(),
  database?: Database,
): Promise<void> {
  const written = processWide(
    "servers.host-readings",
    () => new Map<string, { answered: boolean; at: number }>(),
  );
  const last = written.get(host.name);
  if (last?.answered === answered && Date.now() - last.at < READING_REWRITE_MS) return;
  try {
    database ??= await db();
    await database
      .insert(hypervisors)
      .values({
        name: host.name,
        ...hostColumns(host),
        readAt: answered ? at : null,
        failingSince: answered ? null : at,
      })
      .onConflictDoUpdate({
        target: hypervisors.name,
        set: answered
          ? { readAt: at, failingSince: null }
          : { failingSince: sql`COALESCE(${hypervisors.failingSince}, excluded.failing_since)` },
      });
    written.set(host.name, { answered, at: Date.now() });
  } catch (error) {
    console.error(`hypervisor ${host.name}: its reading was not recorded: ${firstLine(error)}`);
  }
}
