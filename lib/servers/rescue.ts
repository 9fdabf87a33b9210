import "server-only";
import { eq } from "drizzle-orm";
import { conflict } from "@/lib/api/errors";
import { config } from "@/lib/config/env";
import { db, type Tx } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import type { RescueState } from "@/lib/db/types";
import { fingerprint, type StoredResponse, withIdempotentTransaction } from "@/lib/idempotency/idempotency";
import { recordRescueChange } from "@/lib/notifications/facts";
import { now } from "@/lib/util/clock";
import { notActive } from "./holds";
import { refuseWhileBusy, withHostQuota } from "./host-operations";
import { enqueueJob, finish, type Job, kickJobs } from "./jobs";
import { presentServerWithTraffic } from "./metrics/traffic";
import { applyServerNetwork } from "./network/firewall";
import type { ServerRow } from "./present";
import { provisioner } from "./provisioner";
import { NOT_IN_RESCUE } from "./rescue-columns";
import { lockServer, serverRow } from "./rows";
import { decryptRescuePassword, encryptRescuePassword, generateRootPassword } from "./secrets";

/**
 * Rescue mode: the server boots a small rescue system (busybox and dropbear on a Linux kernel, installed by
 * the operator as GUEST_IMAGES_DIR/rescue.{vmlinuz,initrd}) with its own disk attached but not mounted, a
 * temporary root password and a host key of its own, on the server's usual address. Leaving it boots the
 * server's own disk again. Both are host operations run as jobs, one at a time per server.
 *
 * `entering` -> `active` once the rescue system runs; `active` -> `leaving` -> (none) once the server's own
 * system runs again. Power actions in rescue mode restart the rescue system.
 */
export type { RescueState };

export const inRescue = () =>
  conflict(
    "server_in_rescue",
    "This server is in rescue mode: leave it first (DELETE /servers/{id}/rescue).",
  );

/** The temporary password while the rescue system runs (or is starting), for /credentials. */
export const rescuePasswordOf = (row: ServerRow): string | null =>
  row.rescuePasswordEnc && (row.rescueState === "entering" || row.rescueState === "active")
    ? decryptRescuePassword(config().encryptionKey, row.id, row.rescuePasswordEnc)
    : null;

/**
 * Boots the rescue system: a new temporary root password is generated, sealed and returned once (a replay
 * omits it; /credentials shows it as `rescue_password`), and the job stops the machine and starts the rescue
 * system. With an Idempotency-Key a retry queues nothing more.
 */
export function enterRescue(
  accountId: number,
  serverId: number,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  return withHostQuota(accountId, async () => {
    const response = await withIdempotentTransaction(
      {
        accountId,
        operation: `POST /servers/${serverId}/rescue`,
        key: idempotencyKey,
        fingerprint: fingerprint({}),
      },
      async (tx) => {
        const row = await lockServer(tx, serverId, { ownedBy: accountId });
        if (row.status !== "active") throw notActive(row, "Rescue mode needs an active server");
        await refuseWhileBusy(tx, row.id);
        if (row.rescueState) throw conflict("server_in_rescue", "This server is already in rescue mode.");
        if (!provisioner().rescueAvailable()) {
          throw conflict("rescue_unavailable", "The rescue system is not installed on this deployment.");
        }
        const password = generateRootPassword();
        const [updated] = await tx
          .update(servers)
          .set({
            rescueState: "entering",
            rescueSince: now(),
            rescuePasswordEnc: encryptRescuePassword(config().encryptionKey, row.id, password),
            rescueHostKeyFingerprint: null,
          })
          .where(eq(servers.id, row.id))
          .returning();
        if (!updated) throw new Error("server update returned no row");
        await enqueueJob(tx, row.id, "rescue");
        return {
          status: 202,
          body: await presentServerWithTraffic(tx, updated),
          unstored: { rescue_password: password },
        };
      },
    );
    kickJobs();
    return response;
  });
}

/**
 * Leaves rescue mode: the job stops the rescue system and boots the server's own disk. Only an active server
 * may: a held or lapsed one is taken out of rescue mode, stopped, by the hold or the lapse itself.
 */
export function leaveRescue(accountId: number, serverId: number) {
  return withHostQuota(accountId, async () => {
    const database = await db();
    const server = await database.transaction(async (tx) => {
      const row = await lockServer(tx, serverId, { ownedBy: accountId });
      if (row.status !== "active") throw notActive(row, "Leaving rescue mode needs an active server");
      await refuseWhileBusy(tx, row.id);
      if (row.rescueState !== "active") {
        throw conflict("not_in_rescue", "This server is not in rescue mode.");
      }
      const [updated] = await tx
        .update(servers)
        .set({ rescueState: "leaving" })
        .where(eq(servers.id, row.id))
        .returning();
      await enqueueJob(tx, row.id, "leave_rescue");
      return presentServerWithTraffic(tx, updated ?? row);
    });
    kickJobs();
    return server;
  });
}

export async function runEnterRescue(job: Job): Promise<void> {
  const database = await db();
  const server = await serverRow(job.serverId);
  // Held or lapsed since it was asked for: the hold or the lapse took it out of rescue mode (endRescueWithStop).
  if (server.status !== "active" || server.rescueState !== "entering" || !server.rescuePasswordEnc) {
    await database.transaction((tx) => finish(tx, job, "done"));
    return;
  }
  await applyServerNetwork(server);
  const { hostKeyFingerprint } = await provisioner().enterRescue({
    server,
    rootPassword: decryptRescuePassword(config().encryptionKey, server.id, server.rescuePasswordEnc),
    sshKeys: server.sshKeys ? (JSON.parse(server.sshKeys) as string[]) : [],
  });
  await database.transaction(async (tx) => {
    const row = await lockServer(tx, server.id);
    if (row.rescueState === "entering") {
      await tx
        .update(servers)
        .set({
          rescueState: "active",
          rescueHostKeyFingerprint: hostKeyFingerprint,
          powerState: "running",
          statusReason: null,
        })
        .where(eq(servers.id, row.id));
    }
    await recordRescueChange(tx, "rescue.entered", job);
    await finish(tx, job, "done");
  });
}

/**
 * Boots the server's own disk again; a server no longer active (held or lapsed meanwhile) is only redefined on
 * its own disk and left stopped: it boots its own system when it is next started.
 */
export async function runLeaveRescue(job: Job): Promise<void> {
  const database = await db();
  const server = await serverRow(job.serverId);
  if (server.rescueState !== "leaving") {
    await database.transaction((tx) => finish(tx, job, "done"));
    return;
  }
  await applyServerNetwork(server);
  const start = server.status === "active";
  await provisioner().leaveRescue({ ...server, rescueState: null }, { start });
  await database.transaction(async (tx) => {
    const row = await lockServer(tx, server.id);
    if (row.rescueState === "leaving") {
      await tx
        .update(servers)
        .set({
          ...NOT_IN_RESCUE,
          powerState: start ? "running" : "stopped",
          // A held server keeps saying why it is held.
          ...(start ? { statusReason: null } : {}),
        })
        .where(eq(servers.id, row.id));
    }
    if (row.rescueState === "leaving") await recordRescueChange(tx, "rescue.left", job);
    await finish(tx, job, "done");
  });
}

/**
 * Rescue mode that could not start: the server is out of it again (its next start boots its own disk) and
 * says why; its power state is left to the host's next report.
 */
export async function endFailedRescue(tx: Tx, job: Job, reason: string): Promise<void> {
  const row = await lockServer(tx, job.serverId);
  if (row.rescueState !== "entering") return;
  await tx
    .update(servers)
    .set({ ...NOT_IN_RESCUE, statusReason: `Rescue mode could not start (${reason}); try again.` })
    .where(eq(servers.id, row.id));
}

/**
 * Leaving rescue mode failed for good: an active server stays in it (its password still works) and says why.
 * A held or lapsed one is out of it all the same: its next start defines the machine from its row, on its own
 * disk, and it keeps saying why it is suspended.
 */
export async function endFailedLeaveRescue(tx: Tx, job: Job, reason: string): Promise<void> {
  const row = await lockServer(tx, job.serverId);
  if (row.rescueState !== "leaving") return;
  if (row.status !== "active") {
    await tx.update(servers).set(NOT_IN_RESCUE).where(eq(servers.id, row.id));
    return;
  }
  await tx
    .update(servers)
    .set({ rescueState: "active", statusReason: `Leaving rescue mode failed (${reason}); try again.` })
    .where(eq(servers.id, row.id));
}

/**
 * A hold or a lapse has just stopped the locked server (its stop job queued): out of rescue mode too, so that
 * neither its owner nor its next start can boot the rescue system. Rescue mode still starting is called off
 * (its job then does nothing); a running rescue system leaves, after the stop, by a job that redefines the
 * machine on its own disk and leaves it stopped. Returns the row as it now stands.
 */
export async function endRescueWithStop(tx: Tx, row: ServerRow): Promise<ServerRow> {
  if (row.rescueState !== "entering" && row.rescueState !== "active") return row;
  const changes = row.rescueState === "entering" ? NOT_IN_RESCUE : { rescueState: "leaving" as const };
  const [updated] = await tx.update(servers).set(changes).where(eq(servers.id, row.id)).returning();
  if (row.rescueState === "active") await enqueueJob(tx, row.id, "leave_rescue");
  return updated ?? row;
}
