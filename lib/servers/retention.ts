import "server-only";
import { and, eq, isNull, sql } from "drizzle-orm";
import { conflict } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { servers, snapshots } from "@/lib/db/schema";
import { now } from "@/lib/util/clock";
import { serverSettings } from "./config";
import { addCycle } from "./cycle";
import { refuseWhileBusy } from "./host-operations";
import { enqueueJob } from "./jobs";
import { reserveOnHost } from "./placement";
import type { ServerRow } from "./present";
import { type BuildSpec, provisioner, reserveForwardedPort } from "./provisioner";

/**
 * A server terminated because its period lapsed keeps its last disk for EXPIRED_SERVER_RETENTION_DAYS, as a
 * snapshot of kind `expiry` (the disk volume itself, with its seed, so no copy is made). Renewing it inside
 * that time brings it back on that disk, on the same address and port where they are still free, with the
 * same root password and (its seed kept) the same host key. At the end of the retention period the disk,
 * the seed and the server's other snapshots are deleted and their space freed (see lifecycle.ts).
 */

/** A day as the customer reads it in a sentence (UTC). */
export const day = (date: Date) => date.toISOString().slice(0, 10);

/** The name a lapsed server's kept disk is listed under. */
const KEPT_DISK_NAME = "Last disk at termination";

/** A terminated server's kept disk, in its snapshot row (for its size and its place on the host). */
async function keptDisk(tx: Tx, serverId: number) {
  const [row] = await tx
    .select()
    .from(snapshots)
    .where(and(eq(snapshots.serverId, serverId), eq(snapshots.kind, "expiry")));
  return row;
}

/**
 * What a termination for a lapsed period changes besides the status: the root password stays (sealed) for a
 * return, the disk is listed as a snapshot holding the disk's size until its destroy job measures it.
 */
export async function retainLastDisk(tx: Tx, row: ServerRow, current: Date): Promise<Partial<ServerRow>> {
  const days = serverSettings().retentionDays;
  if (days === 0) return { retainedUntil: null, rootPasswordEnc: null };
  if (!(await keptDisk(tx, row.id))) {
    await tx.insert(snapshots).values({
      serverId: row.id,
      name: KEPT_DISK_NAME,
      kind: "expiry",
      os: row.os,
      hypervisor: row.hypervisor,
      reservedGb: row.diskGb ?? 0,
      createdAt: current,
    });
  }
  return {
    retainedUntil: new Date(current.getTime() + days * 86_400_000),
    rootPasswordEnc: row.rootPasswordEnc,
  };
}

/** The destroy job of a lapsed server kept its disk: the snapshot row gets the size it measured. */
export async function recordKeptDisk(tx: Tx, server: ServerRow, keptBytes: number | null): Promise<void> {
  const kept = await keptDisk(tx, server.id);
  const measured = { state: "available" as const, sizeBytes: keptBytes, reservedGb: 0, completedAt: now() };
  if (kept) {
    await tx.update(snapshots).set(measured).where(eq(snapshots.id, kept.id));
    return;
  }
  await tx.insert(snapshots).values({
    serverId: server.id,
    name: KEPT_DISK_NAME,
    kind: "expiry",
    os: server.os,
    hypervisor: server.hypervisor,
    ...measured,
  });
}

/**
 * The address a returning server gets: the one it had where still free (on a bridged host its address, on a
 * host without a bridge its forwarded port, in the simulated pool its address), else a new one (the build
 * reserves it, or for a forwarded port now: none free is 409 out_of_capacity before anything is charged).
 */
async function reclaimAddress(tx: Tx, row: ServerRow): Promise<Partial<ServerRow>> {
  if (row.ip) return {};
  const host = serverSettings().hypervisors.find((candidate) => candidate.name === row.hypervisor);
  if (host && !host.network) {
    const forwarded = await reserveForwardedPort(tx, row.location, host.name, row.lastSshPort);
    return forwarded ?? {};
  }
  if (!row.lastIp) return {};
  const [taken] = await tx
    .select({ id: servers.id })
    .from(servers)
    .where(
      and(
        eq(servers.ip, row.lastIp),
        host ? eq(servers.hypervisor, host.name) : isNull(servers.hypervisor),
        sql`${servers.id} <> ${row.id}`,
      ),
    )
    .limit(1);
  return taken ? {} : { ip: row.lastIp, sshPort: 22 };
}

/**
 * Starts bringing a lapsed server back (the renewal's charge is the caller's, in the same transaction): its
 * kept disk must still be there and its host must have room for it again; its address is given back where
 * free; a revive job defines and starts the machine. Until the machine answers the server stays in its
 * retention (a failure leaves it terminated with its disk kept and the charge refunded).
 */
export async function prepareRevival(tx: Tx, row: ServerRow): Promise<{ row: ServerRow; jobId: number }> {
  const current = now();
  if (!row.retainedUntil || row.retainedUntil <= current) {
    throw conflict("server_terminated", "A terminated server cannot be renewed: its disk is no longer kept.");
  }
  await refuseWhileBusy(tx, row.id);
  const kept = await keptDisk(tx, row.id);
  if (kept?.state !== "available") {
    throw conflict("server_terminated", "This server's last disk is gone: it cannot be renewed.");
  }
  await reserveOnHost(
    tx,
    row.hypervisor,
    { memoryMb: row.memoryMb ?? 0, vcpus: row.vcpus ?? 0, diskGb: row.diskGb ?? 0 },
    `The server's host has no room to bring it back right now; try again later (its disk is kept until ${day(row.retainedUntil)}).`,
    kept.sizeBytes ?? 0,
  );
  const address = await reclaimAddress(tx, row);
  const jobId = await enqueueJob(tx, row.id, "revive");
  const [updated] = await tx
    .update(servers)
    .set({
      ...address,
      status: "provisioning",
      powerState: null,
      suspendedAt: null,
      statusReason: "Coming back on its last disk: the machine is being started.",
    })
    .where(eq(servers.id, row.id))
    .returning();
  if (!updated) throw new Error("server update returned no row");
  return { row: updated, jobId };
}

/** The ledger reference of a revival's charge, and of its refund. */
export const revivalReference = (serverId: number, jobId: number) =>
  `renewal:server:${serverId}:revival:${jobId}`;
export const revivalRefundReference = (serverId: number, jobId: number) =>
  `refund:server:${serverId}:revival:${jobId}`;

/**
 * A revival's host work: the machine is defined and started on its kept disk and seed. On a bridged host
 * whose kept address went to another server the seed is written anew (the new address, and so a new host key).
 */
export async function reviveOnHost(spec: BuildSpec) {
  const bridged = serverSettings().hypervisors.find((h) => h.name === spec.server.hypervisor)?.network;
  const newSeed = Boolean(bridged) && spec.server.ip !== spec.server.lastIp;
  const built = await provisioner().revive({ ...spec, newSeed });
  return { ...built, hostKeyFingerprint: newSeed ? built.hostKeyFingerprint : undefined };
}

/**
 * The revived machine answers: the server is back, with a new period from now (the renewal paid for it),
 * and its kept disk is its own disk again, no longer a snapshot.
 */
export async function completeRevival(tx: Tx, row: ServerRow): Promise<Partial<ServerRow>> {
  await tx.delete(snapshots).where(and(eq(snapshots.serverId, row.id), eq(snapshots.kind, "expiry")));
  return { expiresAt: addCycle(now(), row.cycle), terminatedAt: null, retainedUntil: null, lastIp: null };
}
