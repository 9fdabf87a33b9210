import "server-only";
import { createHash } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import type { EventServer } from "@/lib/api/schemas/events";
import { TRAFFIC_POLICY } from "@/lib/catalog/catalog";
import type { Tx } from "@/lib/db/client";
import {
  accounts,
  type consoleSessions,
  depositPayments,
  type serverJobs,
  servers,
  type serverTraffic,
  snapshots,
  topups,
} from "@/lib/db/schema";
import type { TopupStatus } from "@/lib/db/types";
import { formatCoinAmount, unitsOf } from "@/lib/rails/amounts";
import { centsToUsd } from "@/lib/util/cents";
import { now } from "@/lib/util/clock";
import { listensTo, recordEvent } from "./record";
import { HELD_OWNER_MAY, HELD_OWNER_MAY_NOT } from "./types";

type ServerRow = typeof servers.$inferSelect;
type TopupRow = typeof topups.$inferSelect;
type Job = typeof serverJobs.$inferSelect;
type TrafficRow = typeof serverTraffic.$inferSelect;

/**
 * The facts the rest of the service announces, one call each from the place that commits the change, in its
 * transaction (see recordEvent). Each names its fact so that it is announced once.
 */

export const eventServer = (row: ServerRow): EventServer => ({
  id: row.id,
  hostname: row.hostname,
  plan: row.plan,
  location: row.location,
  ip: row.ip,
  status: row.status,
  expires_at: row.expiresAt.toISOString(),
  auto_renew: row.autoRenew,
});

async function serverById(tx: Tx, id: number): Promise<ServerRow | undefined> {
  const [row] = await tx.select().from(servers).where(eq(servers.id, id));
  return row;
}

async function balanceUsd(tx: Tx, accountId: number): Promise<number> {
  const [row] = await tx
    .select({ balanceCents: accounts.balanceCents })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return centsToUsd(row?.balanceCents ?? 0);
}

const eventTopup = (row: TopupRow) => ({
  ref: row.ref,
  coin: row.coin,
  amount_usd: centsToUsd(row.amountCents),
  status: row.status,
  credited_usd: centsToUsd(row.creditedCents),
});

/** Payments just stored by a watcher (`id` of the payment, `topupId` of its top-up): each is seen once. */
export async function recordPaymentsSeen(tx: Tx, payments: { id: number; topupId: number }[]): Promise<void> {
  if (payments.length === 0) return;
  const rows = await tx
    .select({ payment: depositPayments, topup: topups })
    .from(depositPayments)
    .innerJoin(topups, eq(topups.id, depositPayments.topupId))
    .where(
      and(
        inArray(
          depositPayments.id,
          payments.map((payment) => payment.id),
        ),
        // A watcher may store thousands at once: only those of accounts that listen are looked at.
        listensTo(topups.accountId, "topup.payment_seen"),
      ),
    );
  for (const { payment, topup } of rows) {
    if (payment.droppedAt) continue;
    const { decimals, displayDecimals } = unitsOf(topup.coin);
    await recordEvent(tx, {
      accountId: topup.accountId,
      type: "topup.payment_seen",
      factKey: `topup.payment_seen:${payment.id}`,
      data: () => ({
        topup: eventTopup(topup),
        payment: {
          tx_hash: payment.txHash,
          amount: formatCoinAmount(BigInt(payment.amountUnits), decimals, displayDecimals),
          confirmations: payment.confirmations,
          confirmations_required: topup.confirmationsRequired,
        },
      }),
    });
  }
}

/**
 * A credit of `creditCents` just posted for the top-up (its row already updated); `before` is its status
 * before the credit. Each credit step of a top-up is its own fact, as each is its own ledger row.
 */
export async function recordTopupCredited(
  tx: Tx,
  topupId: number,
  creditCents: number,
  before: TopupStatus,
): Promise<void> {
  const [row] = await tx.select().from(topups).where(eq(topups.id, topupId));
  if (!row || creditCents <= 0) return;
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "topup.credited",
    factKey: `topup.credited:${row.ref}:${row.creditedCents}`,
    data: async () => ({
      kind: before !== "pending" ? "late" : row.status === "completed" ? "completed" : "partial",
      credited_usd: centsToUsd(creditCents),
      balance_usd: await balanceUsd(tx, row.accountId),
      topup: eventTopup(row),
    }),
  });
}

const ACTIVE_REASONS = {
  provision: "provisioned",
  reinstall: "reinstalled",
  restore: "restored",
  revive: "revived",
} as const;

/** A build job made its server active; a restore also announces the snapshot it restored. */
export async function recordBuildDone(tx: Tx, job: Job): Promise<void> {
  const row = await serverById(tx, job.serverId);
  const reason = ACTIVE_REASONS[job.kind as keyof typeof ACTIVE_REASONS];
  if (row?.status !== "active" || !reason) return;
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "server.active",
    factKey: `server.active:job:${job.id}`,
    data: () => ({ reason, server: eventServer(row) }),
  });
  if (job.kind !== "restore") return;
  const snapshot = job.snapshotId === null ? undefined : await snapshotById(tx, job.snapshotId);
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "snapshot.restored",
    factKey: `snapshot.restored:job:${job.id}`,
    data: () => ({ snapshot: snapshot ? eventSnapshot(snapshot) : null, server: eventServer(row) }),
  });
}

/** A suspended server was renewed: it runs again. `suspendedAt` names the suspension it ends. */
export async function recordServerResumed(tx: Tx, row: ServerRow, suspendedAt: Date | null): Promise<void> {
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "server.active",
    factKey: `server.active:resumed:${row.id}:${suspendedAt?.toISOString() ?? row.expiresAt.toISOString()}`,
    data: () => ({ reason: "resumed", server: eventServer(row) }),
  });
}

/** A build (an order's, or a revival's) failed for good and `refundCents` were refunded. */
export async function recordBuildFailed(
  tx: Tx,
  job: Job,
  reason: string,
  refundCents: number,
): Promise<void> {
  const row = await serverById(tx, job.serverId);
  if (!row) return;
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "server.build_failed",
    factKey: `server.build_failed:job:${job.id}`,
    data: async () => ({
      reason,
      refunded_usd: centsToUsd(refundCents),
      balance_usd: await balanceUsd(tx, row.accountId),
      server: eventServer(row),
    }),
  });
}

/** The server's period ended unpaid and it was suspended; unless renewed it ends at `terminatesAt`. */
export async function recordServerSuspended(tx: Tx, serverId: number, terminatesAt: Date): Promise<void> {
  const row = await serverById(tx, serverId);
  if (row?.status !== "suspended") return;
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "server.suspended",
    factKey: `server.suspended:${row.id}:${row.expiresAt.toISOString()}`,
    data: () => ({ terminates_at: terminatesAt.toISOString(), server: eventServer(row) }),
  });
}

/** What an operator's hold is, as its event tells it. */
export type HoldFact = { reason: string; pausesPeriod: boolean; scope: "server" | "account" };

/**
 * The operator put the server on hold (or changed why it is held: its own suspension lifted while its account's
 * stays): the owner hears why, whether the paid period waits, and what they may still do.
 */
export async function recordServerHeld(tx: Tx, row: ServerRow, hold: HoldFact): Promise<void> {
  const since = row.heldSince?.toISOString() ?? "";
  const why = createHash("sha256").update(`${hold.scope}:${hold.reason}`).digest("hex").slice(0, 16);
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "server.held",
    factKey: `server.held:${row.id}:${since}:${why}`,
    data: () => ({
      reason: hold.reason,
      scope: hold.scope,
      period_paused: hold.pausesPeriod,
      owner_may: [...HELD_OWNER_MAY],
      refused_until_lifted: [...HELD_OWNER_MAY_NOT],
      server: eventServer(row),
    }),
  });
}

/** The operator's hold that began at `heldSince` ended; `row` is the server as it stands after it. */
export async function recordServerReleased(
  tx: Tx,
  row: ServerRow,
  heldSince: Date,
  extendedMs: number,
): Promise<void> {
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "server.released",
    factKey: `server.released:${row.id}:${heldSince.toISOString()}`,
    data: () => ({
      held_since: heldSince.toISOString(),
      period_extended_seconds: Math.round(extendedMs / 1000),
      status_after: row.status,
      server: eventServer(row),
    }),
  });
}

/** The server was terminated, on request or because its period lapsed. */
export async function recordServerTerminated(tx: Tx, row: ServerRow, lapsed: boolean): Promise<void> {
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "server.terminated",
    factKey: `server.terminated:${row.id}:${row.terminatedAt?.toISOString() ?? row.expiresAt.toISOString()}`,
    data: () => ({
      reason: lapsed ? "lapsed" : "owner",
      disk_kept_until: row.retainedUntil?.toISOString() ?? null,
      server: eventServer(row),
    }),
  });
}

type SnapshotRow = typeof snapshots.$inferSelect;

async function snapshotById(tx: Tx, id: number): Promise<SnapshotRow | undefined> {
  const [row] = await tx.select().from(snapshots).where(eq(snapshots.id, id));
  return row;
}

const eventSnapshot = (row: SnapshotRow) => ({ id: row.id, name: row.name, kind: row.kind });

/** The snapshot's copy is done (it is available now). */
export async function recordSnapshotTaken(tx: Tx, snapshotId: number): Promise<void> {
  const snapshot = await snapshotById(tx, snapshotId);
  const row = snapshot && (await serverById(tx, snapshot.serverId));
  if (snapshot?.state !== "available" || !row) return;
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "snapshot.taken",
    factKey: `snapshot.taken:${snapshot.id}`,
    data: () => ({ snapshot: eventSnapshot(snapshot), server: eventServer(row) }),
  });
}

/** The snapshot could not be taken (it is failed now). */
export async function recordSnapshotFailed(tx: Tx, snapshotId: number | null): Promise<void> {
  const snapshot = snapshotId === null ? undefined : await snapshotById(tx, snapshotId);
  const row = snapshot && (await serverById(tx, snapshot.serverId));
  if (snapshot?.state !== "failed" || !row) return;
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "snapshot.failed",
    factKey: `snapshot.failed:${snapshot.id}`,
    data: () => ({
      operation: "snapshot",
      reason: snapshot.failureReason ?? "The snapshot failed.",
      snapshot: eventSnapshot(snapshot),
      server: eventServer(row),
    }),
  });
}

/** A restore failed for good: the server is stopped, the snapshot untouched. */
export async function recordRestoreFailed(tx: Tx, job: Job, reason: string): Promise<void> {
  const row = await serverById(tx, job.serverId);
  if (!row) return;
  const snapshot = job.snapshotId === null ? undefined : await snapshotById(tx, job.snapshotId);
  await recordEvent(tx, {
    accountId: row.accountId,
    type: "snapshot.failed",
    factKey: `snapshot.failed:restore:${job.id}`,
    data: () => ({
      operation: "restore",
      reason,
      snapshot: snapshot ? eventSnapshot(snapshot) : null,
      server: eventServer(row),
    }),
  });
}

/** The rescue system runs (`rescue.entered`), or the server's own system again (`rescue.left`). */
export async function recordRescueChange(
  tx: Tx,
  type: "rescue.entered" | "rescue.left",
  job: Job,
): Promise<void> {
  const row = await serverById(tx, job.serverId);
  if (!row || (type === "rescue.entered") !== (row.rescueState === "active")) return;
  const factKey = `${type}:job:${job.id}`;
  if (type === "rescue.left") {
    await recordEvent(tx, {
      accountId: row.accountId,
      type,
      factKey,
      data: () => ({ server: eventServer(row) }),
    });
    return;
  }
  await recordEvent(tx, {
    accountId: row.accountId,
    type,
    factKey,
    data: () => ({ host_key_fingerprint: row.rescueHostKeyFingerprint, server: eventServer(row) }),
  });
}

/**
 * A console session was opened (its ticket redeemed): announced for the first session of the server in each
 * window of `windowMinutes` (on the service's clock), so opening and closing it again and again cannot turn
 * into a flood of deliveries.
 */
export async function recordConsoleOpened(
  tx: Tx,
  session: typeof consoleSessions.$inferSelect,
  windowMinutes: number,
): Promise<void> {
  const row = await serverById(tx, session.serverId);
  if (!row) return;
  const window = Math.floor((session.openedAt ?? now()).getTime() / (windowMinutes * 60_000));
  await recordEvent(tx, {
    accountId: session.accountId,
    type: "console.opened",
    factKey: `console.opened:${session.serverId}:${windowMinutes}:${window}`,
    data: () => ({ session_id: session.id, opened_from: session.openedFrom ?? "", server: eventServer(row) }),
  });
}

/**
 * Traffic periods just written by the reading taken `at`: a period whose 80 % or 100 % moment is that very
 * reading reached it now (the moments are set once per period, to the reading that crossed them).
 */
export async function recordTrafficThresholds(tx: Tx, periods: TrafficRow[], at: Date): Promise<void> {
  for (const period of periods) {
    const reached: [80 | 100, Date | null][] = [
      [80, period.reached80At],
      [100, period.reached100At],
    ];
    for (const [percent, moment] of reached) {
      if (moment?.getTime() !== at.getTime()) continue;
      const row = await serverById(tx, period.serverId);
      if (!row) continue;
      await recordEvent(tx, {
        accountId: row.accountId,
        type: "traffic.threshold_reached",
        factKey: `traffic:${row.id}:${period.periodStart.toISOString()}:${percent}`,
        data: () => ({
          percent,
          allowance_bytes: period.allowanceBytes,
          outbound_bytes: period.txBytes,
          period_start: period.periodStart.toISOString(),
          period_end: period.periodEnd.toISOString(),
          slowed_to_mbps: percent === 100 ? TRAFFIC_POLICY.slowedMbps : null,
          server: eventServer(row),
        }),
      });
    }
  }
}
