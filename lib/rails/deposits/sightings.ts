import "server-only";
import { and, eq, gt, gte, isNotNull, isNull, or, type SQL, sql } from "drizzle-orm";
import { db, type Tx } from "@/lib/db/client";
import { depositPayments, topups } from "@/lib/db/schema";
import { recordPaymentsSeen } from "@/lib/notifications/facts";
import { now } from "@/lib/util/clock";
import { depositSettings } from "./config";

/**
 * The payment sightings the watchers keep: what each watcher (real chains and the demo) saw paid to a
 * deposit address, and what became of it since. Watchers only record here; crediting is the top-ups'
 * (lib/topups/settlement), which the background hands the top-up ids a poll returns:
 *
 * 1. `observePayments`: a transfer to a deposit address, in the mempool (no block) or in a block.
 * 2. `setConfirmations` / `unconfirmPayment`: the chain moved on, or the payment's block left the best chain;
 *    `dropPayment`: it left the mempool unmined (replaced or evicted), so it no longer counts as arriving.
 * 3. A payment that had counted and is then reorged out is flagged (`reorged_at`) for the operator: a credit
 *    is never taken back.
 */

/** A transfer found on chain (or simulated), matched to a top-up. */
export type ObservedPayment = {
  topupId: number;
  txHash: string;
  /** -1 for a native transfer, the output index (UTXO coins) or the log index (tokens). */
  logIndex: number;
  amountUnits: bigint;
  /** null while the transfer is only in the mempool. */
  blockNumber: number | null;
  blockHash: string | null;
  confirmations: number;
};

/** Top-ups closed after this are still watched: a payment sent late still counts for them. */
export const lateWindowStart = () =>
  new Date(now().getTime() - depositSettings().latePaymentWindowHours * 3_600_000);

/**
 * The deposit top-ups still worth watching: pending ones, and closed ones inside the late-payment window,
 * because a payment that arrives after expiry, cancellation or completion must still be credited.
 */
export function watchedTopups() {
  return and(
    eq(topups.method, "deposit"),
    or(eq(topups.status, "pending"), gt(topups.closedAt, lateWindowStart())),
  );
}

/**
 * Stores what a watcher saw and returns the top-ups touched. A payment already known keeps its row; a
 * block sighting updates a mempool sighting (the transaction was mined, or mined again after a reorg), but
 * a mempool sighting never erases a block. A dropped payment seen again is no longer dropped (unless an
 * adjustment settled it: it has counted then, and never counts again).
 */
export async function observePayments(network: string, payments: ObservedPayment[]): Promise<number[]> {
  if (payments.length === 0) return [];
  const database = await db();
  return database.transaction((tx) => storePayments(tx, network, payments));
}

async function storePayments(tx: Tx, network: string, payments: ObservedPayment[]): Promise<number[]> {
  const touched = await tx
    .insert(depositPayments)
    .values(
      payments.map((payment) => ({
        topupId: payment.topupId,
        network,
        txHash: payment.txHash,
        logIndex: payment.logIndex,
        amountUnits: payment.amountUnits.toString(),
        blockNumber: payment.blockNumber,
        blockHash: payment.blockHash,
        confirmations: payment.confirmations,
        seenAt: now(),
      })),
    )
    .onConflictDoUpdate({
      target: [depositPayments.network, depositPayments.txHash, depositPayments.logIndex],
      set: {
        blockNumber: sql`excluded.block_number`,
        blockHash: sql`excluded.block_hash`,
        confirmations: sql`excluded.confirmations`,
        // Seen again, it is no longer dropped, unless an operator's adjustment settled it meanwhile: then it
        // stays as it was settled (counted, crediting nothing more; see lib/operator/payments.ts closeOnRail).
        droppedAt: sql`CASE WHEN ${depositPayments.settledBy} IS NULL THEN NULL ELSE ${depositPayments.droppedAt} END`,
      },
      setWhere: sql`(excluded.block_hash IS NOT NULL
        AND ${depositPayments.blockHash} IS DISTINCT FROM excluded.block_hash)
        OR (${depositPayments.droppedAt} IS NOT NULL AND ${depositPayments.settledBy} IS NULL)`,
    })
    .returning({ id: depositPayments.id, topupId: depositPayments.topupId });
  await recordPaymentsSeen(tx, touched);
  return [...new Set(touched.map((row) => row.topupId))];
}

/** A payment a watcher keeps checking: still confirming, or recent enough that a reorg could remove it. */
export type TrackedPayment = {
  id: number;
  topupId: number;
  txHash: string;
  logIndex: number;
  blockNumber: number | null;
  blockHash: string | null;
  confirmations: number;
  confirmationsRequired: number;
  droppedAt: Date | null;
};

/**
 * Payments on `network` still confirming, plus (with `sinceBlock`) those in blocks from that height on,
 * whose blocks a reorg could still take away after they counted. Two reads, each from its own index
 * (migration 0016), so the cost follows the payments in play, not every payment ever seen.
 */
export async function trackedPayments(network: string, sinceBlock?: number): Promise<TrackedPayment[]> {
  const database = await db();
  const select = (where: SQL | undefined) =>
    database
      .select({
        id: depositPayments.id,
        topupId: depositPayments.topupId,
        txHash: depositPayments.txHash,
        logIndex: depositPayments.logIndex,
        blockNumber: depositPayments.blockNumber,
        blockHash: depositPayments.blockHash,
        confirmations: depositPayments.confirmations,
        confirmationsRequired: topups.confirmationsRequired,
        droppedAt: depositPayments.droppedAt,
      })
      .from(depositPayments)
      .innerJoin(topups, eq(topups.id, depositPayments.topupId))
      .where(and(eq(depositPayments.network, network), where));
  // Confirming: not counted yet, or counted and then set back by a reorg (the only way back below).
  const confirming = await select(
    and(
      or(isNull(depositPayments.confirmedAt), isNotNull(depositPayments.reorgedAt)),
      sql`${depositPayments.confirmations} < ${topups.confirmationsRequired}`,
    ),
  );
  if (sinceBlock === undefined) return confirming;
  const recent = await select(gte(depositPayments.blockNumber, Math.max(0, sinceBlock)));
  const known = new Set(confirming.map((payment) => payment.id));
  return [...confirming, ...recent.filter((payment) => !known.has(payment.id))];
}

/**
 * Writes, on each payment of `network` that reached its confirmations and has not counted yet, the time of
 * the block that completed them (at `block_number + confirmations required - 1`), as `timeOf` reads it from
 * the chain (undefined: not known, left empty). Watchers call it at the end of a poll, before the payments are
 * settled, so the time from that block to the credit can be shown per coin.
 */
export async function recordConfirmingBlockTimes(
  network: string,
  timeOf: (height: number) => Promise<Date | undefined>,
): Promise<void> {
  const database = await db();
  const due = await database
    .select({
      id: depositPayments.id,
      blockNumber: depositPayments.blockNumber,
      required: topups.confirmationsRequired,
    })
    .from(depositPayments)
    .innerJoin(topups, eq(topups.id, depositPayments.topupId))
    .where(
      and(
        eq(depositPayments.network, network),
        isNull(depositPayments.confirmedAt),
        isNull(depositPayments.confirmingBlockAt),
        isNotNull(depositPayments.blockNumber),
        sql`${depositPayments.confirmations} >= ${topups.confirmationsRequired}`,
      ),
    );
  for (const payment of due) {
    const time = await timeOf((payment.blockNumber as number) + Math.max(1, payment.required) - 1);
    if (!time) continue;
    await database
      .update(depositPayments)
      .set({ confirmingBlockAt: time })
      .where(eq(depositPayments.id, payment.id));
  }
}

export async function setConfirmations(paymentId: number, confirmations: number): Promise<void> {
  const database = await db();
  await database.update(depositPayments).set({ confirmations }).where(eq(depositPayments.id, paymentId));
}

/** Simulated payments confirmed per poll at most: a large backlog moves on over several polls. */
const SIMULATED_PER_POLL = 1000;

/**
 * Demo mode: each simulated payment on `networks` still confirming gains one confirmation (oldest first). The
 * simulated chain makes its block now, so the one that completes a payment's confirmations is timed now.
 * Only open payments are looked at, as the watchers' partial index has them (`deposit_payments_open_idx`):
 * a history of 100,000 credited payments is not read row by row at every block (117 ms to 0.1 ms).
 */
export async function confirmSimulatedPayments(networks: readonly string[], txPrefix: string) {
  if (networks.length === 0) return [];
  const database = await db();
  const result = await database.execute(sql`
    UPDATE deposit_payments AS p SET confirmations = p.confirmations + 1,
      confirming_block_at = CASE WHEN p.confirmations + 1 >= (SELECT t.confirmations_required FROM topups t
        WHERE t.id = p.topup_id) THEN ${now().toISOString()}::timestamptz END
    WHERE p.id IN (
      SELECT q.id FROM deposit_payments AS q JOIN topups AS t ON t.id = q.topup_id
      WHERE q.tx_hash LIKE ${`${txPrefix}%`}
        AND q.network IN (${sql.join(
          networks.map((n) => sql`${n}`),
          sql`, `,
        )})
        AND q.confirmations < t.confirmations_required
        AND (q.confirmed_at IS NULL OR q.reorged_at IS NOT NULL)
      ORDER BY q.id
      LIMIT ${SIMULATED_PER_POLL})
    RETURNING p.topup_id`);
  const rows = (result as unknown as { rows: { topup_id: number }[] }).rows;
  return [...new Set(rows.map((row) => Number(row.topup_id)))];
}

/**
 * The payment's block left the best chain: it is unconfirmed again (the watcher sees it anew in the
 * mempool or a new block). If it had already counted toward a credit, that credit stands and the payment
 * is flagged for the operator. Returns whether it was flagged.
 */
export async function unconfirmPayment(paymentId: number): Promise<boolean> {
  const database = await db();
  const [row] = await database
    .update(depositPayments)
    .set({
      blockNumber: null,
      blockHash: null,
      confirmations: 0,
      // Another block will confirm it now; one that counted keeps the time it counted with.
      confirmingBlockAt: sql`CASE WHEN ${depositPayments.confirmedAt} IS NULL THEN NULL
        ELSE ${depositPayments.confirmingBlockAt} END`,
      reorgedAt: sql`CASE WHEN ${depositPayments.confirmedAt} IS NOT NULL
        THEN COALESCE(${depositPayments.reorgedAt}, now()) ELSE ${depositPayments.reorgedAt} END`,
    })
    .where(eq(depositPayments.id, paymentId))
    .returning({
      txHash: depositPayments.txHash,
      network: depositPayments.network,
      flagged: depositPayments.reorgedAt,
    });
  if (row?.flagged) {
    console.error(
      `deposit ${row.network} ${row.txHash}: credited, then its block left the best chain; check it by hand`,
    );
  }
  return Boolean(row?.flagged);
}

/**
 * The payment's transaction left the mempool without being mined (replaced by a double spend, or
 * evicted): it stops counting as received, is never credited, and shows as dropped. Only an unmined
 * payment can be dropped; if its transaction is seen again, `observePayments` restores it.
 */
export async function dropPayment(paymentId: number): Promise<boolean> {
  const database = await db();
  const rows = await database
    .update(depositPayments)
    .set({ droppedAt: sql`now()` })
    .where(
      and(
        eq(depositPayments.id, paymentId),
        isNull(depositPayments.blockHash),
        isNull(depositPayments.droppedAt),
      ),
    )
    .returning({ id: depositPayments.id });
  return rows.length > 0;
}

/**
 * For watchers that rescan instead of reading a mempool (EVM): a payment not yet counted is dropped and
 * found again if re-mined; one that counted is kept, unconfirmed and flagged.
 */
export async function forgetPayment(paymentId: number): Promise<void> {
  const database = await db();
  await database
    .delete(depositPayments)
    .where(and(eq(depositPayments.id, paymentId), isNull(depositPayments.confirmedAt)));
  await unconfirmPayment(paymentId);
}

/** Payments credited and later reorged out, per network: what the operator must look at. */
export async function flaggedPaymentCounts(): Promise<Map<string, number>> {
  const database = await db();
  const rows = await database
    .select({ network: depositPayments.network, n: sql<number>`count(*)`.mapWith(Number) })
    .from(depositPayments)
    .where(isNotNull(depositPayments.reorgedAt))
    .groupBy(depositPayments.network);
  return new Map(rows.map((row) => [row.network, row.n]));
}
