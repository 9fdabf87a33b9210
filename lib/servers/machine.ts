import "server-only";
import { createHmac } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { conflict, notFound } from "@/lib/api/errors";
import { now } from "@/lib/clock";
import { config } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import { fingerprint, type StoredResponse, withIdempotentTransaction } from "@/lib/idempotency/idempotency";
import type { Tx } from "@/lib/ledger/ledger";
import type { ReinstallServerRequest } from "@/lib/schemas/server-machine";
import type { ServerCreated } from "@/lib/schemas/servers";
import { enqueueJob, kickJobs } from "./jobs";
import { presentServer, type ServerRow } from "./present";
import { GuestAgentUnavailableError, provisioner } from "./provisioner";
import { checkReinstall } from "./reinstall-rules";
import { encryptRootPassword, generateRootPassword } from "./secrets";
import { normalizeSshKeys } from "./ssh-keys";

const present = (row: ServerRow) => presentServer(row, config().servers.graceDays, provisioner().name);

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
 * recorded, the server turns `provisioning` and a reinstall job is queued; the worker then wipes the disk
 * (a new overlay on the OS's base image, a new seed and host key) with no transaction open. Id, address,
 * plan and paid period stay. With an Idempotency-Key a retry queues nothing more.
 */
export async function reinstallServer(
  accountId: number,
  serverId: number,
  request: ReinstallServerRequest,
  idempotencyKey: string | undefined,
): Promise<StoredResponse> {
  const sshKeys = request.ssh_keys === undefined ? undefined : normalizeSshKeys(request.ssh_keys);
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
      const delayMs = provisioner().simulated ? settings.servers.provisionDelaySeconds * 1000 : 0;
      await enqueueJob(tx, row.id, "reinstall", { runAfter: new Date(now().getTime() + delayMs) });
      const body: ServerCreated = present(updated);
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

/**
 * Sets a new root password on the running machine through its guest agent (no transaction open across
 * the host call), then stores it for /credentials. A stopped machine or one without an agent is 409 and
 * keeps its password.
 */
export async function changeRootPassword(
  accountId: number,
  serverId: number,
  requested: string | undefined,
): Promise<{ username: "root"; password: string }> {
  const database = await db();
  const [row] = await database
    .select()
    .from(servers)
    .where(and(eq(servers.id, serverId), eq(servers.accountId, accountId)));
  if (!row) throw notFound(`No server with id ${serverId}.`);
  if (row.status !== "active") throw notActive(row);
  if (row.powerState !== "running") {
    throw conflict("guest_agent_unavailable", "The server is stopped: start it, then set its password.");
  }
  const password = requested ?? generateRootPassword();
  try {
    await provisioner().setRootPassword(row, password);
  } catch (error) {
    if (!(error instanceof GuestAgentUnavailableError)) throw error;
    throw conflict(
      "guest_agent_unavailable",
      `The server's guest agent did not take the password (${error.message}); the old one still works. ` +
        "Reinstall to choose a new one.",
    );
  }
  await database.transaction(async (tx) => {
    const locked = await lockOwned(tx, accountId, serverId);
    // A reinstall or termination since: its own password wins.
    if (locked.status !== "active") throw notActive(locked);
    await tx
      .update(servers)
      .set({ rootPasswordEnc: encryptRootPassword(config().encryptionKey, row.id, password) })
      .where(eq(servers.id, row.id));
  });
  return { username: "root", password };
}
