import "server-only";
import { and, asc, eq, inArray, lte } from "drizzle-orm";
import { ApiError, badRequest, conflict } from "@/lib/api/errors";
import type { SetSnapshotScheduleRequest, SnapshotSchedule } from "@/lib/api/schemas/snapshots";
import { type Database, db, type Tx } from "@/lib/db/client";
import { servers, snapshotSchedules, snapshots } from "@/lib/db/schema";
import { recordSnapshotFailed } from "@/lib/notifications/facts";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { serverSettings } from "../config";
import { enqueueJob, jobInFlight } from "../jobs";
import type { ServerReader } from "../reads";
import { lockServer, serverRow } from "../rows";
import { recordSnapshot, snapshotsPart } from "./requests";
import { snapshotName } from "./rules";
import { isoWeekday, nextRun, rotation, weekdayName } from "./schedule-rules";

/**
 * Automatic snapshots: a server's schedule (daily, or weekly on a day, at an hour UTC) is run by the background
 * pass, which takes a snapshot (kind `automatic`) at each run and, when the server keeps as many as it may,
 * deletes its oldest automatic one to make room, never a snapshot of another kind. A run that cannot be taken
 * (a limit full of other snapshots, no room on the host, a server busy for an hour) is recorded as a failed
 * automatic snapshot, which sends `snapshot.failed`; a snapshot job that fails does the same (snapshots/jobs.ts).
 */

type ScheduleRow = typeof snapshotSchedules.$inferSelect;

/** A server busy with other host work at a run is tried again this often... */
const BUSY_RETRY_MS = 5 * 60_000;
/** ...until this long after the run, which then fails. */
const BUSY_GIVE_UP_MS = 60 * 60_000;
/** Schedules looked at per pass; the rest wait for the next one. */
const BATCH = 100;

export function presentSchedule(row: ScheduleRow | undefined): SnapshotSchedule | null {
  if (!row) return null;
  return {
    frequency: row.frequency,
    hour: row.hour,
    weekday: row.weekday === null ? null : (weekdayName(row.weekday) ?? null),
    next_run_at: row.occurrenceAt.toISOString(),
  };
}

export async function scheduleOf(database: Database | Tx, serverId: number) {
  const [row] = await database
    .select()
    .from(snapshotSchedules)
    .where(eq(snapshotSchedules.serverId, serverId));
  return row;
}

export async function getSchedule(reader: ServerReader, serverId: number) {
  const { part } = await snapshotsPart(reader, serverId);
  return { schedule: presentSchedule(part.schedule) };
}

/** Sets (or replaces) the server's schedule; its first run is the next matching hour. */
export async function setSchedule(accountId: number, serverId: number, request: SetSnapshotScheduleRequest) {
  if (request.frequency === "weekly" && request.weekday === undefined) {
    throw badRequest("invalid_weekday", "A weekly schedule needs weekday: monday, tuesday, ... or sunday.");
  }
  if (request.frequency === "daily" && request.weekday !== undefined) {
    throw badRequest("invalid_weekday", "A daily schedule runs every day: leave weekday out.");
  }
  const database = await db();
  return database.transaction(async (tx) => {
    const row = await lockServer(tx, serverId, { ownedBy: accountId });
    if (row.status === "terminated") throw conflict("server_terminated", "This server is terminated.");
    const timing = {
      frequency: request.frequency,
      hour: request.hour,
      weekday: request.weekday === undefined ? null : isoWeekday(request.weekday),
    };
    const first = nextRun(timing, now());
    const values = { ...timing, occurrenceAt: first, nextAt: first };
    const [saved] = await tx
      .insert(snapshotSchedules)
      .values({ serverId: row.id, ...values })
      .onConflictDoUpdate({ target: snapshotSchedules.serverId, set: values })
      .returning();
    return { schedule: presentSchedule(saved) };
  });
}

/** Turns the server's automatic snapshots off; those already taken stay. */
export async function clearSchedule(accountId: number, serverId: number) {
  const server = await serverRow(serverId, { ownedBy: accountId });
  const database = await db();
  await database.delete(snapshotSchedules).where(eq(snapshotSchedules.serverId, server.id));
  return { schedule: null };
}

/** The schedule moves to its next run after this one (and after `current`: runs missed while down are skipped). */
async function advance(tx: Tx, schedule: ScheduleRow, current: Date) {
  const after = new Date(Math.max(schedule.occurrenceAt.getTime(), current.getTime()));
  const next = nextRun(schedule, after);
  await tx
    .update(snapshotSchedules)
    .set({ occurrenceAt: next, nextAt: next })
    .where(eq(snapshotSchedules.serverId, schedule.serverId));
}

/** A run that could not be taken: a failed automatic snapshot saying why, announced as `snapshot.failed`. */
async function failRun(tx: Tx, row: typeof servers.$inferSelect, at: Date, reason: string) {
  const [failed] = await tx
    .insert(snapshots)
    .values({
      serverId: row.id,
      name: snapshotName(undefined, "automatic", at),
      kind: "automatic",
      state: "failed",
      os: row.os,
      hypervisor: row.hypervisor,
      failureReason: `The scheduled snapshot was not taken (${reason}).`,
      createdAt: at,
    })
    .returning({ id: snapshots.id });
  if (failed) await recordSnapshotFailed(tx, failed.id);
}

/**
 * One due schedule, in its own transaction with the server locked: skipped while suspended, tried again while
 * busy, otherwise room made (the oldest automatic snapshots deleted) and the snapshot recorded with its job.
 */
async function runSchedule(
  tx: Tx,
  row: typeof servers.$inferSelect,
  schedule: ScheduleRow,
  current: Date,
): Promise<void> {
  if (row.status === "terminated") {
    await tx.delete(snapshotSchedules).where(eq(snapshotSchedules.serverId, row.id));
    return;
  }
  if (row.status === "suspended") return advance(tx, schedule, current);
  if (row.status !== "active" || (await jobInFlight(tx, row.id))) {
    if (current.getTime() - schedule.occurrenceAt.getTime() < BUSY_GIVE_UP_MS) {
      await tx
        .update(snapshotSchedules)
        .set({ nextAt: new Date(current.getTime() + BUSY_RETRY_MS) })
        .where(eq(snapshotSchedules.serverId, row.id));
      return;
    }
    await failRun(tx, row, current, "the server was busy with other work for an hour");
    return advance(tx, schedule, current);
  }
  // Failed automatic runs hold nothing: only the latest one stays listed.
  await tx
    .delete(snapshots)
    .where(
      and(eq(snapshots.serverId, row.id), eq(snapshots.kind, "automatic"), eq(snapshots.state, "failed")),
    );
  const existing = await tx.select().from(snapshots).where(eq(snapshots.serverId, row.id));
  const limit = serverSettings().snapshotsPerServer;
  const room = rotation(existing, limit);
  if (room.full) {
    await failRun(
      tx,
      row,
      current,
      `the server keeps ${limit} snapshots and none of them is automatic: delete one`,
    );
    return advance(tx, schedule, current);
  }
  if (room.remove.length > 0) {
    await tx
      .update(snapshots)
      .set({ state: "deleting" })
      .where(
        inArray(
          snapshots.id,
          room.remove.map((snapshot) => snapshot.id),
        ),
      );
    for (const snapshot of room.remove) {
      await enqueueJob(tx, row.id, "delete_snapshot", { snapshotId: snapshot.id });
    }
  }
  try {
    const snapshot = await recordSnapshot(tx, row, "automatic");
    await enqueueJob(tx, row.id, "snapshot", { snapshotId: snapshot.id });
  } catch (error) {
    // Refused before anything was written (its host has no room): the run fails, saying so.
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    await failRun(tx, row, current, error.message.replace(/\.$/, ""));
  }
  await advance(tx, schedule, current);
}

/**
 * Runs every due schedule (from the background pass; the business clock, so tests can move it). Each runs in
 * its own transaction; one that fails is logged and tried again at the next pass.
 */
export async function runSnapshotSchedules(clock: () => Date = now): Promise<number> {
  const database = await db();
  const current = clock();
  const due = await database
    .select()
    .from(snapshotSchedules)
    .where(lte(snapshotSchedules.nextAt, current))
    .orderBy(asc(snapshotSchedules.nextAt))
    .limit(BATCH);
  for (const schedule of due) {
    try {
      await database.transaction(async (tx) => {
        // The server first, as every request changing it locks it; one being changed is left for the next pass.
        const [row] = await tx
          .select()
          .from(servers)
          .where(eq(servers.id, schedule.serverId))
          .for("update", { skipLocked: true });
        const locked = row && (await scheduleOf(tx, row.id));
        if (row && locked && locked.nextAt <= current) await runSchedule(tx, row, locked, current);
      });
    } catch (error) {
      console.error(`server ${schedule.serverId}: scheduled snapshot failed: ${firstLine(error)}`);
    }
  }
  return due.length;
}
