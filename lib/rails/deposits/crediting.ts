import "server-only";
import { and, asc, eq, gt, gte, inArray, isNotNull, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import { pace } from "@/lib/background/pace";
import { config } from "@/lib/config/env";
import { type Database, db, type Tx } from "@/lib/db/client";
import { depositPayments, topups } from "@/lib/db/schema";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { rateSource } from "@/lib/rails/rates";
import { isDepositCoin } from "@/lib/rails/registry";
import { creditPayments, type PaymentCredit, rateFromE8, rateToE8 } from "@/lib/topups/amounts";
import { type PaymentRow, paymentTotals, type TopupRow, unitsOf } from "@/lib/topups/present";
import { nextTopupStatus } from "@/lib/topups/status";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";

/**
 * How a deposit top-up is credited, in one place. Watchers (real chains and the demo) only report what
 * they see through the functions below; this module stores it, tracks confirmations and reorgs, and turns
 * confirmed payments into ledger credits:
 *
 * 1. `observePayments`: a transfer to a deposit address, in the mempool (no block) or in a block.
 * 2. `setConfirmations` / `unconfirmPayment`: the chain moved on, or the payment's block left the best chain;
 *    `dropPayment`: it left the mempool unmined (replaced or evicted), so it no longer counts as arriving.
 * 3. `settleTopups`: per top-up, in one transaction that locks it, credit each payment that reached its
 *    confirmations, once (what it paid of the asked amount at the quote, the rest at the lower of the locked
 *    and the market rate, recorded on the payment; one ledger row per step, referenced by the running total,
 *    so a step can never post twice) and move its status. A credit is never taken back: a payment that had
 *    counted and is then reorged out is flagged (`reorged_at`) for the operator instead.
 * 4. `creditSettledPayment`: a payment final when it is made (the x402 rail: its USDC transfer is already
 *    on chain and checked) becomes a completed top-up, its payment and its credit in the caller's transaction.
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

/**
 * The deposit top-ups still worth watching: pending ones, and closed ones inside the late-payment window,
 * because a payment that arrives after expiry, cancellation or completion must still be credited.
 */
export function watchedTopups() {
  const windowStart = new Date(now().getTime() - config().deposits.latePaymentWindowHours * 3_600_000);
  return and(
    eq(topups.method, "deposit"),
    or(eq(topups.status, "pending"), gt(topups.closedAt, windowStart)),
  );
}

/**
 * Stores what a watcher saw and returns the top-ups touched. A payment already known keeps its row; a
 * block sighting updates a mempool sighting (the transaction was mined, or mined again after a reorg), but
 * a mempool sighting never erases a block. A dropped payment seen again is no longer dropped.
 */
export async function observePayments(network: string, payments: ObservedPayment[]): Promise<number[]> {
  if (payments.length === 0) return [];
  const database = await db();
  const touched = await database
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
        droppedAt: null,
      },
      setWhere: sql`(excluded.block_hash IS NOT NULL
        AND ${depositPayments.blockHash} IS DISTINCT FROM excluded.block_hash)
        OR ${depositPayments.droppedAt} IS NOT NULL`,
    })
    .returning({ topupId: depositPayments.topupId });
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

export async function setConfirmations(paymentId: number, confirmations: number): Promise<void> {
  const database = await db();
  await database.update(depositPayments).set({ confirmations }).where(eq(depositPayments.id, paymentId));
}

/** Simulated payments confirmed per poll at most: a large backlog moves on over several polls. */
const SIMULATED_PER_POLL = 1000;

/** Demo mode: each simulated payment on `networks` still confirming gains one confirmation (oldest first). */
export async function confirmSimulatedPayments(networks: readonly string[], txPrefix: string) {
  if (networks.length === 0) return [];
  const database = await db();
  const result = await database.execute(sql`
    UPDATE deposit_payments AS p SET confirmations = p.confirmations + 1
    WHERE p.id IN (
      SELECT q.id FROM deposit_payments AS q JOIN topups AS t ON t.id = q.topup_id
      WHERE q.tx_hash LIKE ${`${txPrefix}%`}
        AND q.network IN (${sql.join(
          networks.map((n) => sql`${n}`),
          sql`, `,
        )})
        AND q.confirmations < t.confirmations_required
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

// ---------------------------------------------------------------------------------------------
// Settling: payments -> status and ledger credit
// ---------------------------------------------------------------------------------------------

/** Payments that reached their confirmations and have not counted yet, in the order they arrived. */
function countingNow(row: TopupRow, payments: PaymentRow[]): PaymentRow[] {
  return payments
    .filter((payment) => payment.confirmedAt === null && payment.confirmations >= row.confirmationsRequired)
    .sort((a, b) => a.seenAt.getTime() - b.seenAt.getTime() || a.id - b.id);
}

/** Where the top-up should stand; `heldUnits` reached their confirmations but wait for a rate to count. */
function targetStatus(row: TopupRow, payments: PaymentRow[], at: Date, heldUnits = 0n) {
  const { confirmed, unconfirmed } = paymentTotals(row, payments);
  return nextTopupStatus({
    status: row.status,
    now: at,
    expiresAt: row.expiresAt,
    confirmedUnits: confirmed - heldUnits,
    unconfirmedUnits: unconfirmed + heldUnits,
    requiredUnits: BigInt(row.depositUnits),
  });
}

/** True when the top-up's status already matches its payments and every confirmed one has counted. */
export function isSettled(row: TopupRow, payments: PaymentRow[], at: Date): boolean {
  if (row.method !== "deposit") return true;
  return countingNow(row, payments).length === 0 && targetStatus(row, payments, at) === row.status;
}

/**
 * What the payments counting now credit (lib/topups/amounts `creditPayments`): a payment seen before
 * `expires_at` pays the asked amount at the quote, anything else is valued at the lower of the locked rate
 * and `marketRate` (undefined: not known, and the payments needing it are left out).
 */
function creditsDue(row: TopupRow, payments: PaymentRow[], marketRate: string | undefined) {
  const due = countingNow(row, payments);
  const quote = {
    requiredUnits: BigInt(row.depositUnits),
    amountCents: row.amountCents,
    lockedRateE8: rateToE8(row.rateUsd),
    decimals: unitsOf(row.coin).decimals,
    paidUnits: payments.reduce((sum, payment) => sum + BigInt(payment.quoteUnits ?? 0), 0n),
  };
  const arrivals = due.map((payment) => ({
    units: BigInt(payment.amountUnits),
    withinQuote: row.expiresAt !== null && payment.seenAt < row.expiresAt,
  }));
  const credits = creditPayments(
    quote,
    arrivals,
    marketRate === undefined ? undefined : rateToE8(marketRate),
  );
  return { due, credits };
}

const creditColumns = (credit: PaymentCredit) => ({
  quoteUnits: credit.quoteUnits.toString(),
  quoteCents: credit.quoteCents,
  extraRateUsd: credit.extraRateE8 === null ? null : rateFromE8(credit.extraRateE8),
  extraCents: credit.extraCents,
});

/**
 * Brings one deposit top-up up to date inside a transaction that locks its row: each payment that reached
 * its confirmations counts once, with what it credited recorded on it; their sum is one ledger row; the
 * status moves. `marketRate`: undefined when not asked yet (then, if a payment needs it, nothing is written
 * and the coin is returned, to ask outside the transaction and come back), null when the source has none
 * (those payments wait, as if still confirming).
 */
async function settleInTx(
  tx: Tx,
  topupId: number,
  at: Date,
  marketRate: string | null | undefined,
): Promise<{ needsRateOf: string } | undefined> {
  const [row] = await tx.select().from(topups).where(eq(topups.id, topupId)).for("update");
  if (row?.method !== "deposit") return;
  const payments = await tx.select().from(depositPayments).where(eq(depositPayments.topupId, topupId));
  const { due, credits } = creditsDue(row, payments, marketRate ?? undefined);
  if (credits.length < due.length && marketRate === undefined) return { needsRateOf: row.coin };
  const creditCents = credits.reduce((sum, credit) => sum + credit.quoteCents + credit.extraCents, 0);
  const creditedCents = row.creditedCents + creditCents;
  if (creditCents > 0) {
    await postLedgerEntry(tx, {
      accountId: row.accountId,
      amountCents: creditCents,
      kind: "topup",
      reference: `topup:${row.ref}:${creditedCents}`,
    });
  }
  for (const [i, credit] of credits.entries()) {
    await tx
      .update(depositPayments)
      .set({ confirmedAt: at, ...creditColumns(credit) })
      .where(eq(depositPayments.id, due[i]?.id ?? 0));
  }
  const held = due.slice(credits.length).reduce((sum, payment) => sum + BigInt(payment.amountUnits), 0n);
  const status = targetStatus(row, payments, at, held);
  if (creditCents > 0 || status !== row.status) {
    await tx
      .update(topups)
      .set({ creditedCents, status, closedAt: status !== row.status ? at : row.closedAt })
      .where(eq(topups.id, topupId));
  }
}

/** The coin's market rate now, or null (logged when the reason changes) when the source has none. */
async function marketRateNow(coin: string): Promise<string | null> {
  const failing = processWide("deposits.rate-failure", () => ({ reason: "" }));
  try {
    if (!isDepositCoin(coin)) throw new RangeError(`no market rate for ${coin}`);
    const rate = await rateSource().usdPerCoin(coin);
    rateToE8(rate);
    failing.reason = "";
    return rate;
  } catch (error) {
    const reason = firstLine(error);
    if (reason !== failing.reason) console.error(`payments outside their quote wait for a rate: ${reason}`);
    failing.reason = reason;
    return null;
  }
}

/**
 * Settles the given top-ups, each in its own short transaction; one failure does not stop the others.
 * Between two top-ups, requests waiting on the database go first. A payment valued at the market rate
 * asks the rate source outside the transaction (once per coin per call) and settles again with it.
 */
export async function settleTopups(
  topupIds: Iterable<number>,
  database?: Database,
  clock: () => Date = now,
  marketRate: (coin: string) => Promise<string | null> = marketRateNow,
): Promise<void> {
  database ??= await db();
  const rates = new Map<string, Promise<string | null>>();
  let first = true;
  for (const id of new Set(topupIds)) {
    if (!first) await pace();
    first = false;
    try {
      const asked = await database.transaction((tx) => settleInTx(tx, id, clock(), undefined));
      if (!asked) continue;
      const rate = rates.get(asked.needsRateOf) ?? marketRate(asked.needsRateOf);
      rates.set(asked.needsRateOf, rate);
      const known = await rate;
      await database.transaction((tx) => settleInTx(tx, id, clock(), known));
    } catch (error) {
      console.error(`top-up ${id}: settling failed: ${firstLine(error)}`);
    }
  }
}

/** The payments of the given top-ups, oldest first, grouped by top-up. */
export async function paymentsOf(topupIds: number[]): Promise<Map<number, PaymentRow[]>> {
  const byTopup = new Map<number, PaymentRow[]>();
  if (topupIds.length === 0) return byTopup;
  const database = await db();
  const rows = await database
    .select()
    .from(depositPayments)
    .where(inArray(depositPayments.topupId, topupIds))
    .orderBy(depositPayments.id);
  for (const row of rows) {
    const list = byTopup.get(row.topupId);
    if (list) list.push(row);
    else byTopup.set(row.topupId, [row]);
  }
  return byTopup;
}

/** Watched top-ups checked per pass by the sweep below; it moves on through them pass after pass. */
const SWEEP_BATCH = 200;

/**
 * The safety net behind the watchers: every watched top-up whose confirmed payments are worth more than it
 * has credited, or whose status should move, is settled, whether or not a poll reported it. Each pass
 * checks the next SWEEP_BATCH of them in id order, wrapping around, so the cost of a pass stays bounded.
 */
export async function settleOutstandingTopups(): Promise<void> {
  const database = await db();
  const sweep = processWide("deposits.sweep", () => ({ afterId: 0 }));
  const rows = await database
    .select()
    .from(topups)
    .where(
      and(
        watchedTopups(),
        gt(topups.id, sweep.afterId),
        sql`EXISTS (SELECT 1 FROM ${depositPayments} WHERE ${depositPayments.topupId} = ${topups.id})`,
      ),
    )
    .orderBy(asc(topups.id))
    .limit(SWEEP_BATCH);
  sweep.afterId = rows.length < SWEEP_BATCH ? 0 : (rows[rows.length - 1]?.id ?? 0);
  const payments = await paymentsOf(rows.map((row) => row.id));
  const at = now();
  await settleTopups(
    rows.filter((row) => !isSettled(row, payments.get(row.id) ?? [], at)).map((row) => row.id),
  );
}

/** Pending top-ups past their expiry, a bounded batch per pass (earliest first): settled so those with
 * nothing received become `expired`. */
export async function expireDueTopups(): Promise<number> {
  const database = await db();
  const due = await database
    .select({ id: topups.id })
    .from(topups)
    .where(and(eq(topups.status, "pending"), eq(topups.method, "deposit"), lt(topups.expiresAt, now())))
    .orderBy(asc(topups.expiresAt))
    .limit(100);
  await settleTopups(due.map((row) => row.id));
  return due.length;
}

/** A top-up paid in one settled payment: what the rail knows of it (status and credit are decided here). */
export type SettledTopup = Omit<
  typeof topups.$inferInsert,
  "id" | "status" | "creditedCents" | "closedAt" | "confirmationsRequired" | "depositUnits"
>;

/**
 * Credits a payment that is final when it is made (x402: the USDC transfer is on chain and was checked
 * against the offer), inside the caller's transaction: the top-up is written completed with its amount
 * credited, its one payment counted, and one ledger row posted under `reference`, which must be unique to
 * the payment so that it can never be credited twice. Returns the top-up's id.
 */
export async function creditSettledPayment(
  tx: Tx,
  input: {
    topup: SettledTopup;
    payment: { txHash: string; logIndex: number; amountUnits: bigint };
    reference: string;
  },
): Promise<number> {
  const at = new Date();
  const [topup] = await tx
    .insert(topups)
    .values({
      ...input.topup,
      status: "completed",
      depositUnits: input.payment.amountUnits.toString(),
      confirmationsRequired: 1,
      creditedCents: input.topup.amountCents,
      closedAt: at,
    })
    .returning({ id: topups.id });
  if (!topup) throw new Error("top-up insert returned no row");
  await tx.insert(depositPayments).values({
    topupId: topup.id,
    network: input.topup.network,
    txHash: input.payment.txHash,
    logIndex: input.payment.logIndex,
    amountUnits: input.payment.amountUnits.toString(),
    confirmations: 1,
    confirmedAt: at,
    // All of it paid the asked amount, at the quote.
    quoteUnits: input.payment.amountUnits.toString(),
    quoteCents: input.topup.amountCents,
    extraCents: 0,
  });
  await postLedgerEntry(tx, {
    accountId: input.topup.accountId,
    amountCents: input.topup.amountCents,
    kind: "topup",
    reference: input.reference,
  });
  return topup.id;
}
