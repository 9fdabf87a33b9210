import "server-only";
import { and, eq } from "drizzle-orm";
import { db, type Tx } from "@/lib/db/client";
import { snapshots } from "@/lib/db/schema";
import { recordRestoreFailed, recordSnapshotFailed, recordSnapshotTaken } from "@/lib/notifications/facts";
import { now } from "@/lib/util/clock";
import { endFailedDiskRewrite, finish, type Job } from "../jobs";
import { releaseIpv6Prefix } from "../network/ipv6-pool";
import type { ServerRow } from "../present";
import { provisioner, type SnapshotTaken } from "../provisioner";
import { serverRow } from "../rows";

/** The host work of snapshots, run by the job worker with no transaction open (see ../jobs.ts). */

type SnapshotRow = typeof snapshots.$inferSelect;

async function snapshotOf(job: Job): Promise<SnapshotRow | undefined> {
  if (job.snapshotId === null) return undefined;
  const database = await db();
  const [row] = await database.select().from(snapshots).where(eq(snapshots.id, job.snapshotId));
  return row;
}

/** A volume name the snapshot was given at its request; a row without one is a provisioner mismatch. */
function volumeOf(snapshot: SnapshotRow): string {
  if (!snapshot.volume) throw new Error(`snapshot ${snapshot.id} has no volume`);
  return snapshot.volume;
}

async function markTaken(tx: Tx, snapshotId: number, taken: SnapshotTaken) {
  await tx
    .update(snapshots)
    .set({
      state: "available",
      sizeBytes: taken.sizeBytes,
      consistency: taken.consistency,
      reservedGb: 0,
      completedAt: now(),
    })
    .where(and(eq(snapshots.id, snapshotId), eq(snapshots.state, "creating")));
  await recordSnapshotTaken(tx, snapshotId);
}

/** Takes a snapshot asked for: the disk is copied as it is, running or not. */
export async function runSnapshot(job: Job): Promise<void> {
  const database = await db();
  const snapshot = await snapshotOf(job);
  const server = await serverRow(job.serverId);
  if (snapshot?.state !== "creating" || server.status === "terminated") {
    await database.transaction(async (tx) => {
      if (snapshot?.state === "creating") await failSnapshot(tx, snapshot.id, "the server was terminated");
      await finish(tx, job, "done");
    });
    return;
  }
  const taken = await provisioner().snapshot(server, volumeOf(snapshot));
  await database.transaction(async (tx) => {
    await markTaken(tx, snapshot.id, taken);
    await finish(tx, job, "done");
  });
}

/**
 * The snapshot a reinstall (or a resize growing the disk) takes first: the machine is shut down (a clean stop,
 * forced after the stop timeout) so the copy is of a disk at rest. A retry whose snapshot was already taken
 * goes straight on.
 */
export async function snapshotAtRest(job: Job, server: ServerRow): Promise<void> {
  const snapshot = await snapshotOf(job);
  if (snapshot?.state !== "creating") return;
  await provisioner().power(server, "stop");
  const taken = await provisioner().snapshot({ ...server, powerState: "stopped" }, volumeOf(snapshot));
  const database = await db();
  await database.transaction((tx) => markTaken(tx, snapshot.id, taken));
}

/** A restore's host work: the server keeps its address, port and host key (the seed is not touched). */
export async function restoreOnHost(job: Job, server: ServerRow) {
  const snapshot = await snapshotOf(job);
  if (snapshot?.state !== "available") throw new Error("the snapshot is no longer available");
  await provisioner().restore(server, volumeOf(snapshot));
  return { ip: server.ip ?? undefined, sshPort: server.sshPort ?? 22, hostKeyFingerprint: undefined };
}

/** Removes a snapshot's volume, then its row. The last disk of a lapsed server goes with its seed. */
export async function runDeleteSnapshot(job: Job): Promise<void> {
  const database = await db();
  const snapshot = await snapshotOf(job);
  const server = await serverRow(job.serverId);
  if (snapshot?.kind === "expiry") await provisioner().destroy(server);
  else if (snapshot?.volume) await provisioner().deleteSnapshot(server, snapshot.volume);
  await database.transaction(async (tx) => {
    if (snapshot) await tx.delete(snapshots).where(eq(snapshots.id, snapshot.id));
    // A lapsed server's last disk gone, nothing of it is left to come back: its /64 is free again.
    if (snapshot?.kind === "expiry") await releaseIpv6Prefix(tx, server.id);
    await finish(tx, job, "done");
  });
}

/**
 * A snapshot that could not be taken: failed, with the customer's reason, holding no space (the copy left
 * nothing behind).
 */
export async function failSnapshot(tx: Tx, snapshotId: number | null, reason: string): Promise<void> {
  if (snapshotId === null) return;
  await tx
    .update(snapshots)
    .set({ state: "failed", failureReason: `The snapshot failed (${reason}).`, reservedGb: 0 })
    .where(and(eq(snapshots.id, snapshotId), eq(snapshots.state, "creating")));
  await recordSnapshotFailed(tx, snapshotId);
}

/**
 * A restore that failed for good: the server is `active` again, stopped (its disk may be the snapshot's copy,
 * or gone), and says so; the snapshot is untouched, so restoring again is the way out.
 */
export async function endFailedRestore(tx: Tx, job: Job, reason: string): Promise<void> {
  await recordRestoreFailed(tx, job, reason);
  return endFailedDiskRewrite(
    tx,
    job,
    `The restore failed after ${job.attempts} attempts (${reason}); restore the snapshot again.`,
  );
}
