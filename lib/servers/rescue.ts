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
import { refuseWhileBusy, withHostQuota } from "./host-operations";
import { enqueueJob, finish, type Job, kickJobs } from "./jobs";
import { presentServerWithTraffic } from "./metrics/traffic";
import { applyServerNetwork } from "./network/firewall";
import type { ServerRow } from "./present";
import { provisioner } from "./provisioner";
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

/** The columns of a server out of rescue mode: its state, and its temporary login gone. */
export const NOT_IN_RESCUE = {
  rescueState: null,
  rescueSince: null,
  rescuePasswordEnc: null,
  rescueHostKeyFingerprint: null,
} as const;

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
        if (row.status !== "active") {
          throw conflict(
            "server_not_active",
            `Rescue mode needs an active server; this one is ${row.status}.`,
          );
        }
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

/** Leaves rescue mode: the job stops the rescue system and boots the server's own disk. */
export function leaveRescue(accountId: number, serverId: number) {
  return withHostQuota(accountId, async () => {
    const database = await db();
    const server = await database.transaction(async (tx) => {
      const row = await lockServer(tx, serverId, { ownedBy: accountId });
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
  if (server.rescueState !== "entering" || !server.rescuePasswordEnc) {
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

export async function runLeaveRescue(job: Job): Promise<void> {
  const database = await db();
  const server = await serverRow(job.serverId);
  if (server.rescueState !== "leaving") {
    await database.transaction((tx) => finish(tx, job, "done"));
    return;
  }
  await applyServerNetwork(server);
  await provisioner().leaveRescue({ ...server, rescueState: null });
  await database.transaction(async (tx) => {
    const row = await lockServer(tx, server.id);
    if (row.rescueState === "leaving") {
      await tx
        .update(servers)
        .set({ ...NOT_IN_RESCUE, powerState: "running", statusReason: null })
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

/** Leaving rescue mode failed for good: the server stays in it (its password still works) and says why. */
export async function endFailedLeaveRescue(tx: Tx, job: Job, reason: string): Promise<void> {
  const row = await lockServer(tx, job.serverId);
  if (row.rescueState !== "leaving") return;
  await tx
    .update(servers)
    .set({ rescueState: "active", statusReason: `Leaving rescue mode failed (${reason}); try again.` })
    .where(eq(servers.id, row.id));
}
