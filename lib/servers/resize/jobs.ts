import "server-only";
import { and, desc, eq, inArray } from "drizzle-orm";
import { findPlan } from "@/lib/catalog/catalog";
import { db, type Tx } from "@/lib/db/client";
import { serverResizes, servers, snapshots } from "@/lib/db/schema";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { now } from "@/lib/util/clock";
import { lockServerAfterAccount } from "../billing";
import { serverSettings } from "../config";
import { CustomerFacingError } from "../failure-reasons";
import { enqueueJob, finish, type Job, kickJobs, requeue } from "../jobs";
import { applyServerNetwork } from "../network/firewall";
import type { ServerRow } from "../present";
import { provisioner } from "../provisioner";
import { serverRow } from "../rows";
import { failSnapshot, snapshotAtRest } from "../snapshots/jobs";
import { type ResizeRow, resizeReference, resizeRefundReference } from "./requests";

/**
 * The host side of a resize, run by the job worker with no transaction open (see ../jobs.ts): the machine is
 * shut down (its downtime starts), its disk kept as a snapshot first when it grows, given its new size and
 * started; the resize is done once SSH answers, and a downgrade's credit is paid then. A resize that fails
 * after its retries puts the old size back (the server row at once, the machine by the same job kind, its disk
 * from the snapshot if it had grown) and refunds an upgrade's charge.
 */

/** How often a resized machine is probed for SSH: the downtime is measured to within this. */
const BOOT_POLL_MS = 500;

const nameOf = (plan: string) => findPlan(plan)?.name ?? plan;

/** The server's resize in progress (queued, running or being undone), if any. */
async function resizeInProgress(tx: Tx | Awaited<ReturnType<typeof db>>, serverId: number) {
  const [row] = await tx
    .select()
    .from(serverResizes)
    .where(
      and(
        eq(serverResizes.serverId, serverId),
        inArray(serverResizes.state, ["pending", "running", "reverting"]),
      ),
    )
    .orderBy(desc(serverResizes.id))
    .limit(1);
  return row;
}

/** Gives back an upgrade's charge, once (a downgrade charged nothing). */
async function refundCharge(tx: Tx, row: ServerRow, resize: ResizeRow): Promise<void> {
  if (resize.amountCents <= 0) return;
  await postLedgerEntry(tx, {
    accountId: row.accountId,
    amountCents: resize.amountCents,
    kind: "refund",
    reference: resizeRefundReference(resize.id),
    // A credit: no key's spend cap counts it (as an order's refund).
    apiKeyId: null,
  });
}

/** The resize ends as `state` (with `changes` of its own), and the server takes `server` in the same transaction. */
async function closeResize(
  tx: Tx,
  resize: ResizeRow,
  state: "done" | "failed",
  server: Partial<ServerRow>,
  changes: Partial<ResizeRow> = {},
): Promise<void> {
  await tx
    .update(serverResizes)
    .set({ state, finishedAt: now(), ...changes })
    .where(eq(serverResizes.id, resize.id));
  if (Object.keys(server).length > 0) {
    await tx.update(servers).set(server).where(eq(servers.id, resize.serverId));
  }
}

/** The server row back at the size, plan and price it had before the resize. */
async function putOldSizeBack(tx: Tx, resize: ResizeRow): Promise<void> {
  await tx
    .update(servers)
    .set({
      plan: resize.fromPlan,
      priceCents: resize.fromPriceCents,
      memoryMb: resize.fromMemoryMb,
      vcpus: resize.fromVcpus,
      diskGb: resize.fromDiskGb,
    })
    .where(eq(servers.id, resize.serverId));
}

/**
 * Runs a resize (or the undoing of a failed one): the host work, then the wait for SSH. A server terminated
 * meanwhile is not touched: the resize ends failed and an upgrade's charge is refunded.
 */
export async function runResize(job: Job): Promise<void> {
  const database = await db();
  const resize = await resizeInProgress(database, job.serverId);
  const server = await serverRow(job.serverId);
  if (!resize) {
    await database.transaction((tx) => finish(tx, job, "done"));
    return;
  }
  if (server.status === "terminated") {
    await database.transaction(async (tx) => {
      const row = await lockServerAfterAccount(tx, job.serverId);
      if (resize.state !== "reverting") await refundCharge(tx, row, resize);
      await closeResize(tx, resize, "failed", {}, { failureReason: "the server was terminated" });
      await finish(tx, job, "done");
    });
    return;
  }
  if (job.phase === "boot") return waitForResizedMachine(job, resize);
  if (resize.state === "pending") {
    await database.transaction(async (tx) => {
      await tx
        .update(serverResizes)
        .set({ state: "running", startedAt: now() })
        .where(and(eq(serverResizes.id, resize.id), eq(serverResizes.state, "pending")));
      await tx.update(servers).set({ powerState: "stopped" }).where(eq(servers.id, server.id));
    });
  }
  const reverting = resize.state === "reverting";
  // The disk is copied at rest before it grows (a retry whose copy was made goes straight on).
  if (!reverting && job.snapshotId !== null) await snapshotAtRest(job, server);
  // A machine started on its new size runs behind its firewall, as every start does.
  if (resize.wasRunning) await applyServerNetwork(server);
  await provisioner().resize(server, {
    start: resize.wasRunning,
    restoreDiskFrom: reverting ? await takenSnapshotVolume(resize.snapshotId) : undefined,
  });
  if (!resize.wasRunning) {
    await database.transaction((tx) => completeResize(tx, job, resize, null));
    return;
  }
  const current = now();
  await database.transaction((tx) =>
    requeue(tx, job, {
      phase: "boot",
      runAfter: new Date(current.getTime() + BOOT_POLL_MS),
      deadline: new Date(current.getTime() + serverSettings().bootTimeoutSeconds * 1000),
    }),
  );
  setTimeout(kickJobs, BOOT_POLL_MS).unref();
}

/** The volume of the snapshot taken before the disk grew, when it was taken (else nothing to copy back). */
async function takenSnapshotVolume(snapshotId: number | null): Promise<string | undefined> {
  if (snapshotId === null) return undefined;
  const database = await db();
  const [snapshot] = await database.select().from(snapshots).where(eq(snapshots.id, snapshotId));
  return snapshot?.state === "available" ? (snapshot.volume ?? undefined) : undefined;
}

/** Polls the resized machine's SSH: done once it answers, a failed attempt once the boot timeout passes. */
async function waitForResizedMachine(job: Job, resize: ResizeRow): Promise<void> {
  const database = await db();
  const server = await serverRow(job.serverId);
  const up = await provisioner().ready(server);
  const current = now();
  if (up) {
    await database.transaction((tx) => completeResize(tx, job, resize, current));
    return;
  }
  if (job.deadline && job.deadline < current) {
    throw new CustomerFacingError(
      `the machine did not answer on SSH within ${serverSettings().bootTimeoutSeconds} s`,
    );
  }
  await database.transaction((tx) =>
    requeue(tx, job, { runAfter: new Date(current.getTime() + BOOT_POLL_MS) }),
  );
  setTimeout(kickJobs, BOOT_POLL_MS).unref();
}

/**
 * The machine runs on its new size (or, undoing a failure, on its old one): the resize is done with its
 * downtime measured and a downgrade's credit paid, in one transaction; or, undone, failed with the server
 * running as before.
 */
async function completeResize(tx: Tx, job: Job, resize: ResizeRow, answeredAt: Date | null) {
  const row = await lockServerAfterAccount(tx, job.serverId);
  const power = resize.wasRunning ? "running" : "stopped";
  if (resize.state === "reverting") {
    await closeResize(tx, resize, "failed", { powerState: power, statusReason: undoneReason(resize) });
    await finish(tx, job, "done");
    return;
  }
  if (resize.amountCents < 0) {
    await postLedgerEntry(tx, {
      accountId: row.accountId,
      amountCents: -resize.amountCents,
      kind: "resize",
      reference: resizeReference(resize.id),
      apiKeyId: null,
    });
  }
  const startedAt = resize.startedAt ?? answeredAt;
  await closeResize(
    tx,
    resize,
    "done",
    { powerState: power, statusReason: null },
    { downtimeMs: answeredAt && startedAt ? Math.max(0, answeredAt.getTime() - startedAt.getTime()) : null },
  );
  await finish(tx, job, "done");
}

/** What the owner reads once a failed resize has been undone. */
function undoneReason(resize: ResizeRow): string {
  const money = resize.amountCents > 0 ? "the charge was refunded" : "nothing was charged or credited";
  return (
    `The resize to ${nameOf(resize.toPlan)} failed (${resize.failureReason ?? "the host reported an error"}); ` +
    `the server is back on ${nameOf(resize.fromPlan)} and ${money}.`
  );
}

/**
 * A resize job that failed for good. A resize: the server row takes its old size, plan and price back at once,
 * an upgrade's charge is refunded, a snapshot not yet taken is failed, and a job of the same kind puts the
 * machine back on the old size (its disk from the snapshot, if it had grown). The undoing failing in turn: the
 * resize ends failed and the machine is left stopped, which its owner can start.
 */
export async function endFailedResize(tx: Tx, job: Job, reason: string): Promise<void> {
  const row = await lockServerAfterAccount(tx, job.serverId);
  const resize = await resizeInProgress(tx, row.id);
  if (!resize) return;
  if (resize.state === "reverting") {
    await closeResize(tx, resize, "failed", {
      powerState: "stopped",
      statusReason: `${undoneReason(resize)} Starting it on that size failed too (${reason}): start it.`,
    });
    return;
  }
  await refundCharge(tx, row, resize);
  await putOldSizeBack(tx, resize);
  if (resize.snapshotId !== null) await failSnapshot(tx, resize.snapshotId, reason);
  await tx
    .update(serverResizes)
    .set({ state: "reverting", failureReason: `after ${job.attempts} attempts: ${reason}` })
    .where(eq(serverResizes.id, resize.id));
  await tx
    .update(servers)
    .set({
      statusReason: `The resize to ${nameOf(resize.toPlan)} failed after ${job.attempts} attempts (${reason}); the old size is being put back.`,
    })
    .where(eq(servers.id, row.id));
  await enqueueJob(tx, row.id, "resize", { snapshotId: resize.snapshotId ?? undefined });
}
