import "server-only";
import { and, eq, isNotNull, isNull, ne } from "drizzle-orm";
import { conflict, notFound } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { type Database, db } from "@/lib/db/client";
import { operatorSuspensions, servers } from "@/lib/db/schema";
import { accountSuspension, holdServer, releaseServer } from "@/lib/servers/holds";
import { kickJobs } from "@/lib/servers/jobs";
import type { ServerRow } from "@/lib/servers/present";
import { lockServer } from "@/lib/servers/rows";
import { type Actor, recordAudit } from "./audit";
import { OperatorError } from "./errors";
import { lockAccount } from "./locks";

export type SuspendRequest = {
  /** What the customer reads, on the dashboard and in `status_reason`. */
  reason: string;
  /** Default true: the paid period waits while the suspension lasts. */
  pausesPeriod: boolean;
};

/** The server locked after its account (the order every money-moving transaction takes), or 404. */
async function lockServerOfAccount(tx: Tx, serverId: number): Promise<ServerRow> {
  const [found] = await tx
    .select({ accountId: servers.accountId })
    .from(servers)
    .where(eq(servers.id, serverId));
  if (!found) throw notFound(`No server with id ${serverId}.`);
  await lockAccount(tx, found.accountId);
  return lockServer(tx, serverId);
}

const openServerSuspension = async (tx: Tx, serverId: number) =>
  (
    await tx
      .select()
      .from(operatorSuspensions)
      .where(and(eq(operatorSuspensions.serverId, serverId), isNull(operatorSuspensions.liftedAt)))
  )[0];

/** Runs `change` in one transaction, then lets the job worker take the stop or start it queued. */
async function inTransaction<T>(database: Database | undefined, change: (tx: Tx) => Promise<T>): Promise<T> {
  const handle = database ?? (await db());
  const result = await handle.transaction(change);
  if (database === undefined) kickJobs();
  return result;
}

/**
 * Suspends one server for abuse: it is held (stopped, `suspended`, `status_reason` with the reason) until
 * lifted, its period paused unless told otherwise; the customer's power actions, console, reinstalls and
 * rescue are refused meanwhile. Recorded in the audit log in the same transaction.
 */
export async function suspendServer(
  actor: Actor,
  serverId: number,
  request: SuspendRequest,
  database?: Database,
) {
  return inTransaction(database, async (tx) => {
    const row = await lockServerOfAccount(tx, serverId);
    if (row.status === "terminated") throw conflict("server_terminated", "This server is terminated.");
    if (await openServerSuspension(tx, serverId)) {
      throw new OperatorError(409, "already_suspended", "This server is suspended already; lift it first.");
    }
    await tx.insert(operatorSuspensions).values({
      accountId: row.accountId,
      serverId,
      reason: request.reason,
      pausesPeriod: request.pausesPeriod,
      createdBy: actor.operatorId,
    });
    const held = await holdServer(tx, row, request);
    await recordAudit(tx, actor, {
      action: "suspend_server",
      target: `server:${serverId}`,
      reason: request.reason,
      detail: { account_id: row.accountId, pauses_period: request.pausesPeriod, status_before: row.status },
    });
    return held;
  });
}

/**
 * Lifts a server's suspension: the server gets back what it had (holds.ts), its period moved on by the time
 * held when it was paused. While its account stays suspended, the server stays held with the account's reason.
 */
export async function liftServer(actor: Actor, serverId: number, reason: string, database?: Database) {
  return inTransaction(database, async (tx) => {
    const row = await lockServerOfAccount(tx, serverId);
    const open = await openServerSuspension(tx, serverId);
    if (!open) throw new OperatorError(409, "not_suspended", "This server is not suspended by an operator.");
    await tx
      .update(operatorSuspensions)
      .set({ liftedAt: new Date(), liftedBy: actor.operatorId })
      .where(eq(operatorSuspensions.id, open.id));
    const account = await accountSuspension(tx, row.accountId);
    const after = account
      ? await holdServer(tx, row, {
          reason: account.reason,
          pausesPeriod: account.pausesPeriod,
          scope: "account",
        })
      : await releaseServer(tx, row);
    await recordAudit(tx, actor, {
      action: "lift_server",
      target: `server:${serverId}`,
      reason,
      detail: {
        account_id: row.accountId,
        status_after: after.status,
        expires_at: after.expiresAt.toISOString(),
        still_held_by_account: Boolean(account),
      },
    });
    return after;
  });
}

/**
 * Suspends a whole account: every server it has is held with the reason (and one it gets back later too),
 * and it can order no new server; top-ups and reads still work, so the customer can see why.
 */
export async function suspendAccount(
  actor: Actor,
  accountId: number,
  request: SuspendRequest,
  database?: Database,
) {
  return inTransaction(database, async (tx) => {
    await lockAccount(tx, accountId);
    if (await accountSuspension(tx, accountId)) {
      throw new OperatorError(409, "already_suspended", "This account is suspended already; lift it first.");
    }
    await tx.insert(operatorSuspensions).values({
      accountId,
      reason: request.reason,
      pausesPeriod: request.pausesPeriod,
      createdBy: actor.operatorId,
    });
    const live = await tx
      .select({ id: servers.id })
      .from(servers)
      .where(and(eq(servers.accountId, accountId), ne(servers.status, "terminated")))
      .orderBy(servers.id);
    for (const { id } of live) {
      await holdServer(tx, await lockServer(tx, id), { ...request, scope: "account" });
    }
    await recordAudit(tx, actor, {
      action: "suspend_account",
      target: `account:${accountId}`,
      reason: request.reason,
      detail: { pauses_period: request.pausesPeriod, servers_held: live.map((server) => server.id) },
    });
  });
}

/** Lifts an account's suspension: its servers are released, except those suspended on their own. */
export async function liftAccount(actor: Actor, accountId: number, reason: string, database?: Database) {
  return inTransaction(database, async (tx) => {
    await lockAccount(tx, accountId);
    const open = await accountSuspension(tx, accountId);
    if (!open) throw new OperatorError(409, "not_suspended", "This account is not suspended by an operator.");
    await tx
      .update(operatorSuspensions)
      .set({ liftedAt: new Date(), liftedBy: actor.operatorId })
      .where(eq(operatorSuspensions.id, open.id));
    const held = await tx
      .select({ id: servers.id })
      .from(servers)
      .where(and(eq(servers.accountId, accountId), isNotNull(servers.heldSince)))
      .orderBy(servers.id);
    const released: number[] = [];
    for (const { id } of held) {
      const row = await lockServer(tx, id);
      const own = await openServerSuspension(tx, id);
      if (own) {
        await holdServer(tx, row, { reason: own.reason, pausesPeriod: own.pausesPeriod, scope: "server" });
      } else {
        await releaseServer(tx, row);
        released.push(id);
      }
    }
    await recordAudit(tx, actor, {
      action: "lift_account",
      target: `account:${accountId}`,
      reason,
      detail: { servers_released: released },
    });
  });
}
