import "server-only";
import { createHmac } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { ApiError, conflict, notFound } from "@/lib/api/errors";
import type { ReinstallServerRequest } from "@/lib/api/schemas/server-machine";
import type { ServerCreated } from "@/lib/api/schemas/servers";
import { config } from "@/lib/config/env";
import { db, type Tx } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import { fingerprint, type StoredResponse, withIdempotentTransaction } from "@/lib/idempotency/idempotency";
import { serverSettings } from "@/lib/servers/config";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { refuseWhileBusy, withHostQuota } from "./host-operations";
import { enqueueJob, finishRequestJob, kickJobs, startRequestJob } from "./jobs";
import { presentServerWithTraffic } from "./metrics/traffic";
import type { ServerRow } from "./present";
import {
  GuestAgentUnavailableError,
  HostUnreachableError,
  PasswordUnconfirmedError,
  provisioner,
} from "./provisioner";
import { checkReinstall } from "./reinstall-rules";
import { inRescue } from "./rescue";
import { encryptRootPassword, generateRootPassword } from "./secrets";
import { recordSnapshot } from "./snapshots/service";
import { normalizeSshKeys } from "./ssh-keys";

/** A chosen password enters a stored request fingerprint only as a keyed hash. */
const keyedHash = (password: string | undefined) =>
  password === undefined
    ? null
    : createHmac("sha256", config().requestFingerprintKey).update(password).digest("hex");

const notActive = (row: ServerRow) =>
  conflict("server_not_active", `This needs an active server; this one is ${row.status}.`);

async function lockOwned(tx: Tx, accountId: number, serverId: number): Promise<ServerRow> {
  const [row] = await tx
    .select()
    .from(servers)
    .where(and(eq(servers.id, serverId), eq(servers.accountId, accountId)))
    .for("update");
  if (!row) throw notFound(`No server with id ${serverId}.`);
  return row;
}

/**
 * Reinstalls a server: in one transaction the request is checked, the new OS, password and keys are
 * recorded, the server turns `provisioning` and a reinstall job is queued; the worker then (unless told not
 * to) shuts the machine down and keeps its disk as a snapshot, and wipes the disk (a new overlay on the OS's
 * base image, a new seed and host key) with no transaction open. Id, address, plan and paid period stay.
 * With an Idempotency-Key a retry queues nothing more.
 */
export function reinstallServer(
  accountId: number,
  serverId: number,
  request: ReinstallServerRequest,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  const sshKeys = request.ssh_keys === undefined ? undefined : normalizeSshKeys(request.ssh_keys);
  return withHostQuota(accountId, () =>
    reinstallWithinQuota(accountId, serverId, request, sshKeys, idempotencyKey),
  );
}

async function reinstallWithinQuota(
  accountId: number,
  serverId: number,
  request: ReinstallServerRequest,
  sshKeys: string[] | undefined,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  const settings = config();
  const response = await withIdempotentTransaction(
    {
      accountId,
      operation: `POST /servers/${serverId}/reinstall`,
      key: idempotencyKey,
      fingerprint: fingerprint({ ...request, root_password: keyedHash(request.root_password) }),
    },
    async (tx) => {
      const row = await lockOwned(tx, accountId, serverId);
      const os = checkReinstall(row, request, (id) => provisioner().imageAvailable(id));
      if (row.rescueState) throw inRescue();
      await refuseWhileBusy(tx, row.id);
      const snapshot = request.snapshot_first ? await recordSnapshot(tx, row, "reinstall") : undefined;
      const password = request.root_password ?? generateRootPassword();
      const [updated] = await tx
        .update(servers)
        .set({
          os,
          status: "provisioning",
          powerState: null,
          sshHostKeyFingerprint: null,
          statusReason: `Reinstalling ${os}: the disk is being wiped.`,
          rootPasswordEnc: encryptRootPassword(settings.encryptionKey, row.id, password),
          ...(sshKeys === undefined ? {} : { sshKeys: sshKeys.length > 0 ? JSON.stringify(sshKeys) : null }),
        })
        .where(eq(servers.id, row.id))
        .returning();
      if (!updated) throw new Error("server update returned no row");
      const delayMs = provisioner().simulated ? serverSettings().provisionDelaySeconds * 1000 : 0;
      await enqueueJob(tx, row.id, "reinstall", {
        runAfter: new Date(now().getTime() + delayMs),
        snapshotId: snapshot?.id,
      });
      const body: ServerCreated = await presentServerWithTraffic(tx, updated);
      return {
        status: 202,
        body,
        unstored: request.root_password === undefined ? { root_password: password } : undefined,
      };
    },
  );
  kickJobs();
  return response;
}

/** Longer than openssl and virsh may take together (60 s each): a change still running is never taken over. */
const PASSWORD_LEASE_MS = 3 * 60_000;

/** What the customer is told when the machine did not take the password; the host's words go to the log. */
function passwordRefusal(error: unknown): ApiError | undefined {
  if (error instanceof GuestAgentUnavailableError) {
    return conflict(
      "guest_agent_unavailable",
      "The server's guest agent did not take the password (the machine is not running, or its agent does not " +
        "answer); the old one still works. Reinstall to choose a new one.",
    );
  }
  if (error instanceof HostUnreachableError) {
    return new ApiError(
      503,
      "host_unreachable",
      "The server's host cannot be reached right now; the password was not changed. Retry shortly.",
      {},
      { "Retry-After": "30" },
    );
  }
  if (error instanceof PasswordUnconfirmedError) {
    return new ApiError(
      502,
      "password_unconfirmed",
      "The host did not confirm the new password, so the server may have either the old or the new one; " +
        "/credentials keeps the old one. Set a password again to be sure which one works.",
    );
  }
  return undefined;
}

/**
 * Sets a new root password on the running machine through its guest agent, then stores it for /credentials.
 * While the host call runs (no transaction open across it) the change is recorded as the server's job in
 * flight, so other host operations on the server wait for it. A stopped machine or one without an agent is
 * 409 and keeps its password; a change the host did not confirm is 502 password_unconfirmed and stores
 * nothing, so the answer and /credentials agree; a confirmed change is always stored and returned.
 */
export function changeRootPassword(
  accountId: number,
  serverId: number,
  requested: string | undefined,
): Promise<{ username: "root"; password: string }> {
  return withHostQuota(accountId, async () => {
    const database = await db();
    const { row, jobId } = await database.transaction(async (tx) => {
      const locked = await lockOwned(tx, accountId, serverId);
      if (locked.status !== "active") throw notActive(locked);
      if (locked.rescueState) throw inRescue();
      if (locked.powerState !== "running") {
        throw conflict("guest_agent_unavailable", "The server is stopped: start it, then set its password.");
      }
      await refuseWhileBusy(tx, locked.id);
      return { row: locked, jobId: await startRequestJob(tx, locked.id, "password", PASSWORD_LEASE_MS) };
    });
    const password = requested ?? generateRootPassword();
    try {
      await provisioner().setRootPassword(row, password);
    } catch (error) {
      const detail = firstLine(error);
      console.error(`server ${row.id}: root password change failed: ${detail}`);
      await database.transaction((tx) => finishRequestJob(tx, jobId, "failed", detail));
      throw passwordRefusal(error) ?? error;
    }
    const terminated = await database.transaction(async (tx) => {
      const locked = await lockOwned(tx, accountId, serverId);
      await finishRequestJob(tx, jobId, "done");
      // Terminated meanwhile: its credentials went with it.
      if (locked.status === "terminated") return locked;
      await tx
        .update(servers)
        .set({ rootPasswordEnc: encryptRootPassword(config().encryptionKey, row.id, password) })
        .where(eq(servers.id, row.id));
      return undefined;
    });
    if (terminated) throw notActive(terminated);
    return { username: "root", password };
  });
}
