import "server-only";
import { type Database, db } from "@/lib/db/client";
import { pace } from "@/lib/db/pace";
import { pruneExpiredIdempotencyKeys } from "@/lib/idempotency/idempotency";
import { EVENT_RETENTION_DAYS, pruneOldEvents } from "@/lib/notifications/retention";
import { CONSOLE_SESSION_RETENTION_DAYS, pruneClosedConsoleSessions } from "@/lib/servers/console/tickets";
import { pruneFinishedJobs } from "@/lib/servers/jobs";
import { ORDER_OUTCOME_RETENTION_DAYS, pruneOrderOutcomes } from "@/lib/servers/order-outcomes";
import { now } from "@/lib/util/clock";
import { processWide } from "@/lib/util/process-wide";

/** Finished server jobs (with the host's words on failures) are kept this long for the operator. */
export const FINISHED_JOB_RETENTION_DAYS = 30;
const PRUNE_INTERVAL_MS = 10 * 60_000;
/** Rows deleted per statement, and statements per pass: a backlog is worked off over several passes. */
const BATCH = 1_000;
const BATCHES_PER_PASS = 10;

/**
 * Deletes what no longer serves anything: server jobs finished more than FINISHED_JOB_RETENTION_DAYS ago,
 * idempotency keys past their 24 hours, notification events (with their deliveries and attempts) older
 * than EVENT_RETENTION_DAYS, console sessions closed more than CONSOLE_SESSION_RETENTION_DAYS ago and order
 * outcomes older than ORDER_OUTCOME_RETENTION_DAYS. Returns how many of each went.
 */
export async function pruneExpiredRows(
  database: Database,
  clock: () => Date = now,
  rest: () => Promise<unknown> = pace,
): Promise<{
  jobs: number;
  idempotencyKeys: number;
  notificationEvents: number;
  consoleSessions: number;
  orderOutcomes: number;
}> {
  const daysAgo = (days: number) => new Date(clock().getTime() - days * 86_400_000);
  const pruned = { jobs: 0, idempotencyKeys: 0, notificationEvents: 0, consoleSessions: 0, orderOutcomes: 0 };
  for (const [name, prune] of [
    ["jobs", () => pruneFinishedJobs(database, daysAgo(FINISHED_JOB_RETENTION_DAYS), BATCH)],
    ["idempotencyKeys", () => pruneExpiredIdempotencyKeys(database, BATCH)],
    ["notificationEvents", () => pruneOldEvents(database, daysAgo(EVENT_RETENTION_DAYS), BATCH)],
    [
      "consoleSessions",
      () => pruneClosedConsoleSessions(database, daysAgo(CONSOLE_SESSION_RETENTION_DAYS), BATCH),
    ],
    ["orderOutcomes", () => pruneOrderOutcomes(database, daysAgo(ORDER_OUTCOME_RETENTION_DAYS), BATCH)],
  ] as const) {
    for (let pass = 0; pass < BATCHES_PER_PASS; pass++) {
      await rest();
      const deleted = await prune();
      pruned[name] += deleted;
      if (deleted < BATCH) break;
    }
  }
  return pruned;
}

/** Runs pruneExpiredRows on the process database at most every 10 minutes (from the background pass). */
export async function pruneWhenDue(): Promise<void> {
  const state = processWide("background.retention", () => ({ nextAt: 0 }));
  if (Date.now() < state.nextAt) return;
  state.nextAt = Date.now() + PRUNE_INTERVAL_MS;
  await pruneExpiredRows(await db());
}
