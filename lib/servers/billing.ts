import "server-only";
import { eq } from "drizzle-orm";
import type { AuthContext } from "@/lib/accounts/auth";
import { ApiError, conflict } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { accounts, servers } from "@/lib/db/schema";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { recordBuildFailed, recordServerResumed, recordServerTerminated } from "@/lib/notifications/facts";
import { centsToUsd, formatUsd } from "@/lib/util/cents";
import { now } from "@/lib/util/clock";
import { addCycle } from "./cycle";
import { releaseHeldPayment } from "./held-payments";
import { enqueueJob, type Job } from "./jobs";
import { recordOrderOutcome } from "./order-outcomes";
import type { ServerRow } from "./present";
import { provisioner } from "./provisioner";
import { NOT_IN_RESCUE } from "./rescue-columns";
import { day, prepareRevival, retainLastDisk, revivalReference, revivalRefundReference } from "./retention";
import { lockServer } from "./rows";

/**
 * What a server costs and how it ends, in the caller's transaction: a charge (an order, a renewal, a
 * return), a refund when a build fails for good, and the end of a server. The requests and the background
 * both use these, so a renewal is the same whoever makes it, and a server ends one way.
 */

/**
 * Who pays a charge: the account, and the API key whose request causes it (null: the account's own), which
 * may be limited to some servers (then one it orders joins them).
 */
export type Payer = { accountId: number; apiKeyId: number | null; boundToServers?: boolean };

/** The payer of a request: its account, through the key it was made with. */
export const payerOf = (auth: AuthContext): Payer => ({
  accountId: auth.accountId,
  apiKeyId: auth.keyId,
  boundToServers: auth.rights.serverIds !== null,
});

/** 402 with the spec's fields: what it costs, what there is, and what is missing, all in USD. */
export function insufficientBalance(
  priceCents: number,
  balanceCents: number,
  doing: "ordering" | "resizing" = "ordering",
): ApiError {
  const deficit = priceCents - balanceCents;
  return new ApiError(
    402,
    "insufficient_balance",
    `Top up your balance before ${doing}: ${formatUsd(deficit)} more is needed (price ${formatUsd(priceCents)}, balance ${formatUsd(balanceCents)}).`,
    { price: centsToUsd(priceCents), balance: centsToUsd(balanceCents), deficit: centsToUsd(deficit) },
  );
}

/**
 * Locks the account row and checks it can pay `priceCents`, or throws 402 with the deficit. Lock order
 * everywhere is account, then server: the account must be locked before any row that references it is
 * inserted (that takes a key-share lock, and two transactions upgrading it would deadlock).
 */
export async function lockFunds(
  tx: Tx,
  accountId: number,
  priceCents: number,
  doing: "ordering" | "resizing" = "ordering",
): Promise<void> {
  const [account] = await tx
    .select({ balanceCents: accounts.balanceCents })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .for("update");
  const balance = account?.balanceCents ?? 0;
  if (balance < priceCents) throw insufficientBalance(priceCents, balance, doing);
}

/**
 * Debits the (already locked) account with its ledger row; a reference already posted is refused. Every
 * charge for a server (an order, a renewal, a resize's upgrade) goes through here. `apiKeyId` is the key whose
 * request pays (its spend cap counts it), or null for the account's own (automatic renewal): every caller says
 * which.
 */
export async function debit(
  tx: Tx,
  charge: {
    accountId: number;
    apiKeyId: number | null;
    priceCents: number;
    kind: "order" | "renewal" | "resize";
    reference: string;
  },
) {
  const { accountId, apiKeyId, priceCents, kind, reference } = charge;
  const posted = await postLedgerEntry(tx, {
    accountId,
    amountCents: -priceCents,
    kind,
    reference,
    apiKeyId,
  });
  if (!posted.posted) throw conflict("already_charged", "This charge was already made.");
}

/**
 * Where a renewal's new period starts: at the old expiry, or now for a server whose period lapsed (the time it
 * was off is not billed). A server the operator holds with its period paused never lapses, whatever its
 * stored expiry says: its period starts at that expiry, and releasing it adds the time held once (holds.ts).
 */
export function renewalStart(
  row: Pick<ServerRow, "expiresAt" | "heldSince" | "heldPausesPeriod">,
  current: Date,
): Date {
  if (row.heldSince && row.heldPausesPeriod) return row.expiresAt;
  return new Date(Math.max(row.expiresAt.getTime(), current.getTime()));
}

/**
 * Pays one more cycle from the balance, from renewalStart, on behalf of `apiKeyId` (null: the account's own
 * automatic renewal, which no key's cap counts). A suspended server comes back to `active` unless
 * the operator holds it. The ledger reference names the period, so one period is never charged twice.
 */
export async function renewInTx(
  tx: Tx,
  row: ServerRow,
  apiKeyId: number | null,
  current: Date = now(),
): Promise<ServerRow> {
  const start = renewalStart(row, current);
  await lockFunds(tx, row.accountId, row.priceCents);
  await debit(tx, {
    accountId: row.accountId,
    apiKeyId,
    priceCents: row.priceCents,
    kind: "renewal",
    reference: `renewal:server:${row.id}:${row.expiresAt.toISOString()}`,
  });
  // A server the operator holds stays suspended: the renewal pays its period, the hold decides the rest.
  const resumes = row.status === "suspended" && !row.heldSince;
  const [renewed] = await tx
    .update(servers)
    .set({
      expiresAt: addCycle(start, row.cycle),
      ...(resumes ? { status: "active", suspendedAt: null, powerState: "running", statusReason: null } : {}),
    })
    .where(eq(servers.id, row.id))
    .returning();
  if (!renewed) throw new Error("server update returned no row");
  if (resumes) await enqueueJob(tx, row.id, "power", { action: "start" });
  if (resumes) await recordServerResumed(tx, renewed, row.suspendedAt);
  return renewed;
}

/**
 * Renews a server terminated because its period lapsed, while its last disk is kept: one cycle is charged
 * and the server comes back on that disk (see retention.ts); its new period starts once it runs again.
 * A revival that fails for good refunds this charge (endFailedRevival).
 */
export async function reviveInTx(tx: Tx, row: ServerRow, apiKeyId: number | null): Promise<ServerRow> {
  await lockFunds(tx, row.accountId, row.priceCents);
  const revival = await prepareRevival(tx, row);
  await debit(tx, {
    accountId: row.accountId,
    apiKeyId,
    priceCents: row.priceCents,
    kind: "renewal",
    reference: revivalReference(row.id, revival.jobId),
  });
  return revival.row;
}

/** What every ended server is: terminated, its machine's state unknown, out of rescue mode. */
const ENDED = { ...NOT_IN_RESCUE, status: "terminated", powerState: null } as const;

/**
 * Ends the server in the caller's transaction: capacity and credentials released at once; the machine itself
 * is removed by a destroy job after commit, and its address is released only when that has succeeded.
 * `keepLastDisk` (a lapsed period): the disk is kept for the retention period, and the server can come back.
 * `statusReason` tells the owner why, and `destroyMachine: false` queues no destroy job (nothing was built).
 * The end is announced as `server.terminated`, unless `announce: false` (a failed build announces its own).
 */
export async function terminateInTx(
  tx: Tx,
  row: ServerRow,
  current: Date = now(),
  options: {
    keepLastDisk?: boolean;
    statusReason?: string;
    destroyMachine?: boolean;
    announce?: boolean;
  } = {},
): Promise<ServerRow> {
  const retention = options.keepLastDisk
    ? await retainLastDisk(tx, row, current)
    : { retainedUntil: null, rootPasswordEnc: null };
  const [updated] = await tx
    .update(servers)
    .set({
      ...ENDED,
      terminatedAt: current,
      ...(options.statusReason === undefined ? {} : { statusReason: options.statusReason }),
      ...retention,
    })
    .where(eq(servers.id, row.id))
    .returning();
  if (!updated) throw new Error("server update returned no row");
  // Ended before it was built: an order paid with x402 takes nothing.
  await releaseHeldPayment(tx, row.id, "the order ended before its server was built");
  if (options.destroyMachine ?? true) await enqueueJob(tx, row.id, "destroy");
  if (options.announce ?? true) await recordServerTerminated(tx, updated, options.keepLastDisk === true);
  return updated;
}

/**
 * The server of a build that failed for good and is to be refunded, locked after its account (the order every
 * money-moving transaction locks in); undefined when it is no longer being built.
 */
export async function lockBuildToRefund(tx: Tx, job: Job): Promise<ServerRow | undefined> {
  const row = await lockServerAfterAccount(tx, job.serverId);
  return row.status === "provisioning" ? row : undefined;
}

/** A server locked after its account, for a job's transaction that moves money (a refund, a credit). */
export async function lockServerAfterAccount(tx: Tx, serverId: number): Promise<ServerRow> {
  // Read through tx: PGlite has one connection, and a query beside an open transaction would wait forever.
  const [{ accountId } = { accountId: 0 }] = await tx
    .select({ accountId: servers.accountId })
    .from(servers)
    .where(eq(servers.id, serverId));
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
  return lockServer(tx, serverId);
}

/** Gives back a charge that bought nothing, through the ledger, once (`reference` names the charge). */
async function refund(tx: Tx, row: ServerRow, reference: string): Promise<void> {
  await postLedgerEntry(tx, {
    accountId: row.accountId,
    amountCents: row.priceCents,
    kind: "refund",
    reference,
    apiKeyId: null,
  });
}

/** A first build that failed for good: the order is refunded and the server ends, saying why. */
export async function endFailedBuild(tx: Tx, job: Job, reason: string): Promise<void> {
  const row = await lockBuildToRefund(tx, job);
  if (!row) return;
  // An order paid with x402 was never charged: its payment is released, never submitted.
  const released = await releaseHeldPayment(tx, row.id, `the build failed: ${reason}`);
  if (!released) await refund(tx, row, `refund:server:${row.id}`);
  await terminateInTx(tx, row, now(), {
    statusReason: `The build failed after ${job.attempts} attempts (${reason}); ${released ? "the x402 payment was released, never taken" : "the charge was refunded"}.`,
    // A simulated build leaves nothing behind on a host.
    destroyMachine: !provisioner().simulated,
    announce: false,
  });
  await recordOrderOutcome(tx, row, { succeeded: false, sshAnsweredAt: null });
  await recordBuildFailed(tx, job, reason, released ? 0 : row.priceCents);
}

/**
 * A revival that failed for good: the renewal is refunded through the ledger, the server is terminated again
 * with its disk still kept until the end of its retention, and a destroy job removes what was started.
 */
export async function endFailedRevival(tx: Tx, job: Job, reason: string): Promise<void> {
  const row = await lockBuildToRefund(tx, job);
  if (!row) return;
  await refund(tx, row, revivalRefundReference(row.id, job.id));
  const until = row.retainedUntil ? ` Its disk is kept until ${day(row.retainedUntil)}.` : "";
  await tx
    .update(servers)
    .set({
      ...ENDED,
      statusReason: `Bringing the server back failed after ${job.attempts} attempts (${reason}); the renewal was refunded.${until}`,
    })
    .where(eq(servers.id, row.id));
  await recordBuildFailed(tx, job, reason, row.priceCents);
  await enqueueJob(tx, row.id, "destroy");
}
