import "server-only";
import { eq } from "drizzle-orm";
import { conflict } from "@/lib/api/errors";
import type { Server } from "@/lib/api/schemas/servers";
import { db, type Tx } from "@/lib/db/client";
import { servers } from "@/lib/db/schema";
import type { PowerAction } from "@/lib/db/types";
import { fingerprint, withIdempotentTransaction } from "@/lib/idempotency/idempotency";
import { type Payer, renewInTx, reviveInTx, terminateInTx } from "./billing";
import { serverSettings } from "./config";
import { notActive, refuseWhileHeld } from "./holds";
import { refuseWhileBusy, withHostQuota } from "./host-operations";
import { enqueueJob, kickJobs, runJobNow } from "./jobs";
import { presentServerWithTraffic } from "./metrics/traffic";
import type { ServerRow } from "./present";
import { lockServer, serverRow } from "./rows";

/** What the owner does to a server besides building it: renew it, set auto-renew, power it, end it. */

/** Runs `change` on the account's server locked FOR UPDATE, and returns the server as it ends up. */
async function withLockedServer<T>(
  accountId: number,
  serverId: number,
  change: (tx: Tx, row: ServerRow) => Promise<T>,
): Promise<T> {
  const database = await db();
  return database.transaction(async (tx) =>
    change(tx, await lockServer(tx, serverId, { ownedBy: accountId })),
  );
}

/** Pays one more period now (or brings a lapsed server back), charged to `payer`'s key's spend cap. */
export async function renewServer(payer: Payer, serverId: number, idempotencyKey: string | undefined) {
  const { accountId, apiKeyId } = payer;
  const response = await withIdempotentTransaction(
    {
      accountId,
      operation: `POST /servers/${serverId}/renew`,
      key: idempotencyKey,
      fingerprint: fingerprint({}),
    },
    async (tx) => {
      const row = await lockServer(tx, serverId, { ownedBy: accountId });
      const renewed =
        row.status === "terminated"
          ? await reviveInTx(tx, row, apiKeyId)
          : await renewInTx(tx, row, apiKeyId);
      return { status: 200, body: await presentServerWithTraffic(tx, renewed) };
    },
  );
  kickJobs();
  return response;
}

export async function setAutoRenew(accountId: number, serverId: number, autoRenew: boolean): Promise<Server> {
  return withLockedServer(accountId, serverId, async (tx, row) => {
    if (row.status === "terminated") throw conflict("server_terminated", "This server is terminated.");
    const [updated] = await tx.update(servers).set({ autoRenew }).where(eq(servers.id, row.id)).returning();
    return presentServerWithTraffic(tx, updated ?? row);
  });
}

/**
 * Records the power action as a job, then performs it outside the transaction (or waits for the worker
 * that took it). The answer shows the state the host reported, or the last known one while the action is
 * still running (a guest slow to shut down is forced off after SERVER_STOP_TIMEOUT_SECONDS). A server with
 * host work in flight refuses with 409 server_busy, and the account's host-operation limit applies.
 */
export function powerAction(accountId: number, serverId: number, action: PowerAction): Promise<Server> {
  return withHostQuota(accountId, async () => {
    const jobId = await withLockedServer(accountId, serverId, async (tx, row) => {
      if (row.status !== "active") throw notActive(row, "Power actions need an active server");
      await refuseWhileBusy(tx, row.id);
      return enqueueJob(tx, row.id, "power", { action });
    });
    await runJobNow(jobId, (serverSettings().stopTimeoutSeconds + 30) * 1000);
    return presentServerWithTraffic(await db(), await serverRow(serverId, { ownedBy: accountId }));
  });
}

/**
 * The owner ends the server now: destroyed with its snapshots (then its address released), no refund of the
 * unused time.
 */
export async function terminateServer(accountId: number, serverId: number): Promise<Server> {
  const server = await withLockedServer(accountId, serverId, async (tx, row) => {
    if (row.status === "terminated")
      throw conflict("server_terminated", "This server is already terminated.");
    refuseWhileHeld(row, "terminating it");
    return presentServerWithTraffic(tx, await terminateInTx(tx, row));
  });
  kickJobs();
  return server;
}
