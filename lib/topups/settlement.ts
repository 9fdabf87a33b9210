import "server-only";
import { and, asc, eq, gt, inArray, lt, sql } from "drizzle-orm";
import { type Database, db, type Tx } from "@/lib/db/client";
import { pace } from "@/lib/db/pace";
import { depositPayments, topups } from "@/lib/db/schema";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { recordTopupCredited } from "@/lib/notifications/facts";
import { unitsOf } from "@/lib/rails/amounts";
import { lateWindowStart } from "@/lib/rails/deposits/sightings";
import { rateSource } from "@/lib/rails/rates";
import { isDepositCoin } from "@/lib/rails/registry";
import { now } from "@/lib/util/clock";
import { firstLine } from "@/lib/util/log";
import { processWide } from "@/lib/util/process-wide";
import { creditPayments, type PaymentCredit, rateFromE8, rateToE8 } from "./amounts";
import { type PaymentRow, paymentTotals, type TopupRow } from "./present";
import { nextTopupStatus } from "./status";

/**
 * How a top-up is credited, in one place. The rails record what they see (lib/rails/deposits/sightings)
 * and report which top-ups it touched; this module turns confirmed payments into ledger credits:
 *
 * 1. `settleTopups`: per top-up, in one transaction that locks it, credit each payment that reached its
 *    confirmations, once (what it paid of the asked amount at the quote, the rest at the lower of the locked
 *    and the market rate, recorded on the payment; one ledger row per step, referenced by the running total,
 *    so a step can never post twice) and move its status. A credit is never taken back.
 * 2. `settleOutstandingTopups` / `expireDueTopups`: the sweeps behind the watchers' reports.
 * 3. `creditSettledPayment`: a payment final when it is made (the x402 rail: its USDC transfer is already
 *    on chain and checked) becomes a completed top-up, its payment and its credit in the caller's transaction.
 */

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
      apiKeyId: null,
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
  await recordTopupCredited(tx, topupId, creditCents, row.status);
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

/** Watched top-ups of each kind (pending; closed inside the late-payment window) checked per pass. */
const SWEEP_BATCH = 100;

/** Where the sweep stands in one index: the last top-up it checked there, by the index's time and its id. */
type SweepCursor = { at: Date; id: number } | null;

/**
 * The next top-ups after `cursor` in one of the watched set's two partial indexes, in that index's order
 * (expires_at for the pending ones, closed_at for the closed ones, then id), among those with a payment. The
 * row comparison starts the index scan at the cursor, so a pass reads what it checks and not the history
 * before it. Returns them with where the next pass starts (null: from the start again).
 */
async function nextInIndex(
  database: Database,
  kind: "pending" | "closed",
  cursor: SweepCursor,
): Promise<{ rows: TopupRow[]; next: SweepCursor }> {
  const time = kind === "pending" ? topups.expiresAt : topups.closedAt;
  const rows = await database
    .select()
    .from(topups)
    .where(
      and(
        eq(topups.method, "deposit"),
        kind === "pending" ? eq(topups.status, "pending") : gt(topups.closedAt, lateWindowStart()),
        cursor
          ? sql`(${time}, ${topups.id}) > (${cursor.at.toISOString()}::timestamptz, ${cursor.id}::integer)`
          : undefined,
        sql`EXISTS (SELECT 1 FROM ${depositPayments} WHERE ${depositPayments.topupId} = ${topups.id})`,
      ),
    )
    .orderBy(asc(time), asc(topups.id))
    .limit(SWEEP_BATCH);
  const last = rows[rows.length - 1];
  const lastAt = kind === "pending" ? last?.expiresAt : last?.closedAt;
  return { rows, next: rows.length === SWEEP_BATCH && last && lastAt ? { at: lastAt, id: last.id } : null };
}

/**
 * The safety net behind the watchers: every watched top-up whose confirmed payments are worth more than it
 * has credited, or whose status should move, is settled, whether or not a poll reported it. Each pass
 * checks the next SWEEP_BATCH pending top-ups and the next SWEEP_BATCH closed inside the late-payment
 * window, each through its partial index and starting again on its own once through: a pass costs what it
 * checks, and the history closed before the window is never read.
 */
export async function settleOutstandingTopups(): Promise<void> {
  const database = await db();
  const sweep = processWide("deposits.sweep", () => ({
    pending: null as SweepCursor,
    closed: null as SweepCursor,
  }));
  const pending = await nextInIndex(database, "pending", sweep.pending);
  const closed = await nextInIndex(database, "closed", sweep.closed);
  sweep.pending = pending.next;
  sweep.closed = closed.next;
  const rows = [...pending.rows, ...closed.rows];
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
    apiKeyId: null,
  });
  await recordTopupCredited(tx, topup.id, input.topup.amountCents, "pending");
  return topup.id;
}
