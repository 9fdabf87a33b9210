import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { notFound } from "@/lib/api/errors";
import type { CreateSnapshotRequest, RestoreSnapshotRequest, Snapshot } from "@/lib/api/schemas/snapshots";
import { db, type Tx } from "@/lib/db/client";
import { servers, snapshots } from "@/lib/db/schema";
import type { SnapshotKind } from "@/lib/db/types";
import { fingerprint, type StoredResponse, withIdempotentTransaction } from "@/lib/idempotency/idempotency";
import { now } from "@/lib/util/clock";
import { serverSettings } from "../config";
import { notActive, refuseWhileHeld } from "../holds";
import { refuseWhileBusy, withHostQuota } from "../host-operations";
import { enqueueJob, kickJobs } from "../jobs";
import { presentServerWithTraffic } from "../metrics/traffic";
import { reserveOnHost } from "../placement";
import type { ServerRow } from "../present";
import { provisioner } from "../provisioner";
import { type ServerReader, serverPart } from "../reads";
import { lockServer } from "../rows";
import { checkRestore, checkSnapshotLimit, snapshotName } from "./rules";
import { presentSchedule, scheduleOf } from "./schedule";

/**
 * Snapshots of a server's disk: taken on request (running or not), kept as volumes of the server's host's
 * pool, restored in place, deleted. Each is a host operation run as a job (one at a time per server, within
 * the account's host-operation limit); the request records it and answers 202 at once. A server keeps
 * SNAPSHOTS_PER_SERVER of them at no charge; each counts against its host's disk while it exists.
 */

type SnapshotRow = typeof snapshots.$inferSelect;

export function presentSnapshot(
  row: SnapshotRow,
  server: Pick<ServerRow, "status" | "retainedUntil">,
): Snapshot {
  return {
    id: row.id,
    server_id: row.serverId,
    name: row.name,
    kind: row.kind,
    state: row.state,
    os: row.os,
    size_bytes: row.sizeBytes,
    consistency: row.consistency,
    failure_reason: row.failureReason,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
    kept_until: server.status === "terminated" ? (server.retainedUntil?.toISOString() ?? null) : null,
  };
}

const snapshotNotFound = (snapshotId: number) =>
  notFound(`No snapshot with id ${snapshotId} on this server.`);

/** The server's snapshot `snapshotId`, locked; one of another server (or account) is 404. */
async function lockOwnSnapshot(tx: Tx, serverId: number, snapshotId: number): Promise<SnapshotRow> {
  const [row] = await tx
    .select()
    .from(snapshots)
    .where(and(eq(snapshots.id, snapshotId), eq(snapshots.serverId, serverId)))
    .for("update");
  if (!row) throw snapshotNotFound(snapshotId);
  return row;
}

/** What a server's snapshot reads are read from: reused until one of these is written. */
const SNAPSHOT_TABLES = ["snapshots", "snapshot_schedules"];

/** The server's snapshots, newest first, and its schedule (one load serves the list, one and the schedule). */
export function snapshotsPart(reader: ServerReader, serverId: number) {
  return serverPart(reader, serverId, "snapshots", SNAPSHOT_TABLES, async () => {
    const database = await db();
    const rows = await database
      .select()
      .from(snapshots)
      .where(eq(snapshots.serverId, serverId))
      .orderBy(desc(snapshots.id));
    return { rows, schedule: await scheduleOf(database, serverId) };
  });
}

/** The server's snapshots, newest first, with how many it may keep. */
export async function listSnapshots(reader: ServerReader, serverId: number) {
  const { row: server, part } = await snapshotsPart(reader, serverId);
  return {
    snapshots: part.rows.map((row) => presentSnapshot(row, server)),
    limit: serverSettings().snapshotsPerServer,
    schedule: presentSchedule(part.schedule),
  };
}

export async function getSnapshot(
  reader: ServerReader,
  serverId: number,
  snapshotId: number,
): Promise<Snapshot> {
  const { row: server, part } = await snapshotsPart(reader, serverId);
  const row = part.rows.find((snapshot) => snapshot.id === snapshotId);
  if (!row) throw snapshotNotFound(snapshotId);
  return presentSnapshot(row, server);
}

/**
 * Records a snapshot to be taken of the server (locked in `tx`): within the server's limit, and with room on
 * its host for a copy as large as its disk (the measured size counts once taken), else 409 before anything
 * is queued.
 */
export async function recordSnapshot(
  tx: Tx,
  row: ServerRow,
  kind: Exclude<SnapshotKind, "expiry">,
  name?: string,
): Promise<SnapshotRow> {
  const existing = await tx
    .select({ kind: snapshots.kind, state: snapshots.state })
    .from(snapshots)
    .where(eq(snapshots.serverId, row.id));
  checkSnapshotLimit(existing, serverSettings().snapshotsPerServer, kind === "reinstall");
  const diskGb = row.diskGb ?? 0;
  await reserveOnHost(
    tx,
    row.hypervisor,
    { memoryMb: 0, vcpus: 0, diskGb },
    "The server's host has no room for a copy of its disk right now; delete a snapshot or try again later.",
  );
  const created = now();
  const [inserted] = await tx
    .insert(snapshots)
    .values({
      serverId: row.id,
      name: snapshotName(name, kind, created),
      kind,
      os: row.os,
      hypervisor: row.hypervisor,
      reservedGb: diskGb,
      createdAt: created,
    })
    .returning();
  if (!inserted) throw new Error("snapshot insert returned no row");
  const [named] = await tx
    .update(snapshots)
    .set({ volume: provisioner().snapshotVolume(row, inserted.id) })
    .where(eq(snapshots.id, inserted.id))
    .returning();
  return named ?? inserted;
}

/**
 * Takes a snapshot of an active server, running or stopped (in rescue mode too): 202 with the snapshot
 * `creating`; it turns `available` once the copy is done. With an Idempotency-Key a retry takes no second one.
 */
export function takeSnapshot(
  accountId: number,
  serverId: number,
  request: CreateSnapshotRequest,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  return withHostQuota(accountId, async () => {
    const response = await withIdempotentTransaction(
      {
        accountId,
        operation: `POST /servers/${serverId}/snapshots`,
        key: idempotencyKey,
        fingerprint: fingerprint(request),
      },
      async (tx) => {
        const row = await lockServer(tx, serverId, { ownedBy: accountId });
        if (row.status !== "active") throw notActive(row, "Snapshots are taken of an active server");
        await refuseWhileBusy(tx, row.id);
        const snapshot = await recordSnapshot(tx, row, "manual", request.name);
        await enqueueJob(tx, row.id, "snapshot", { snapshotId: snapshot.id });
        return { status: 202, body: presentSnapshot(snapshot, row) };
      },
    );
    kickJobs();
    return response;
  });
}

/**
 * Returns the server's disk to a snapshot: the server turns `provisioning` ("Restoring ..."), the job stops
 * the machine, replaces its disk with a copy of the snapshot (which stays, to be restored again) and starts
 * it; it is `active` again once SSH answers. Id, address, port, host key, password and paid period stay; the
 * OS becomes the snapshot's.
 */
export function restoreSnapshot(
  accountId: number,
  serverId: number,
  snapshotId: number,
  request: RestoreSnapshotRequest,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  return withHostQuota(accountId, async () => {
    const response = await withIdempotentTransaction(
      {
        accountId,
        operation: `POST /servers/${serverId}/snapshots/${snapshotId}/restore`,
        key: idempotencyKey,
        fingerprint: fingerprint(request),
      },
      async (tx) => {
        const row = await lockServer(tx, serverId, { ownedBy: accountId });
        const snapshot = await lockOwnSnapshot(tx, row.id, snapshotId);
        checkRestore(row, snapshot, request.confirm);
        await refuseWhileBusy(tx, row.id);
        const taken = snapshot.createdAt.toISOString().slice(0, 16).replace("T", " ");
        const [updated] = await tx
          .update(servers)
          .set({
            os: snapshot.os,
            status: "provisioning",
            powerState: null,
            statusReason: `Restoring the snapshot "${snapshot.name}" of ${taken} UTC.`,
          })
          .where(eq(servers.id, row.id))
          .returning();
        if (!updated) throw new Error("server update returned no row");
        await enqueueJob(tx, row.id, "restore", { snapshotId: snapshot.id });
        return { status: 202, body: await presentServerWithTraffic(tx, updated) };
      },
    );
    kickJobs();
    return response;
  });
}

/**
 * Deletes a snapshot: 202 with it `deleting`; it is gone once its volume is removed. Deleting a lapsed
 * server's last disk ends its retention: the server can no longer be renewed. Refused while the operator
 * holds the server (409 server_held): a hold keeps what is being looked into.
 */
export function deleteSnapshot(accountId: number, serverId: number, snapshotId: number): Promise<Snapshot> {
  return withHostQuota(accountId, async () => {
    const database = await db();
    const snapshot = await database.transaction(async (tx) => {
      const row = await lockServer(tx, serverId, { ownedBy: accountId });
      const found = await lockOwnSnapshot(tx, row.id, snapshotId);
      if (found.state === "deleting") return presentSnapshot(found, row);
      refuseWhileHeld(row, "deleting its snapshots");
      await refuseWhileBusy(tx, row.id);
      const [deleting] = await tx
        .update(snapshots)
        .set({ state: "deleting" })
        .where(eq(snapshots.id, found.id))
        .returning();
      if (found.kind === "expiry") {
        await tx
          .update(servers)
          .set({
            retainedUntil: null,
            rootPasswordEnc: null,
            statusReason: "Its last disk was deleted by its owner.",
          })
          .where(eq(servers.id, row.id));
      }
      await enqueueJob(tx, row.id, "delete_snapshot", { snapshotId: found.id });
      return presentSnapshot(deleting ?? found, { ...row, retainedUntil: null });
    });
    kickJobs();
    return snapshot;
  });
}
