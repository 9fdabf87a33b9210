import "server-only";
import { and, desc, eq, isNotNull, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import { notFound } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { type Database, db } from "@/lib/db/client";
import { depositPayments, operators, paymentReviews, topups, x402Authorizations } from "@/lib/db/schema";
import { formatCoinAmount, unitsOf } from "@/lib/rails/amounts";
import { centsToUsd } from "@/lib/util/cents";
import { type Actor, recordAudit } from "./audit";
import { OperatorError } from "./errors";

/**
 * Payments a person should look at, as the rails recorded them (read from the tables, so the rails' own code
 * stays theirs):
 * - `reorged`: credited, then its block left the best chain (the credit stands; the coins may never come);
 * - `dropped`: left the mempool unmined (replaced or evicted) and was never credited;
 * - `late`: arrived after its top-up's quote ended, credited at the lower of the locked and the market rate;
 * - `overpaid`: paid more than the top-up asked, the excess credited at the locked rate;
 * - `settlement_unknown`: an x402 settlement whose transaction may have been sent but whose outcome was never
 *   recorded (the claim's lease ran out with nothing credited): only the chain can say whether it paid.
 * Each stays under "needs attention" until an operator marks it reviewed or posts an adjustment for it.
 */
export type PaymentFlag = "reorged" | "dropped" | "late" | "overpaid" | "settlement_unknown";

export type FlaggedPayment = {
  /** `deposit:<id>` or `x402:<id>`: what reviews and adjustments name. */
  id: string;
  flags: PaymentFlag[];
  coin: string;
  network: string;
  tx_hash: string | null;
  amount: string | null;
  confirmations: number | null;
  confirmations_required: number | null;
  credited_usd: number | null;
  seen_at: string;
  account_id: number;
  topup: { ref: string; status: string; amount_usd: number } | null;
  payer: string | null;
  review: { by: string; at: string; note: string } | null;
};

export type AttentionFilter = "attention" | "reviewed";

const LIST_LIMIT = 200;

/** SQL for "this deposit payment is flagged", one condition per flag. */
const depositFlags = {
  reorged: () => isNotNull(depositPayments.reorgedAt),
  dropped: () => isNotNull(depositPayments.droppedAt),
  late: () => sql`${topups.expiresAt} IS NOT NULL AND ${depositPayments.seenAt} >= ${topups.expiresAt}`,
  overpaid: () =>
    sql`${depositPayments.extraCents} > 0 AND ${topups.expiresAt} IS NOT NULL AND ${depositPayments.seenAt} < ${topups.expiresAt}`,
} satisfies Record<Exclude<PaymentFlag, "settlement_unknown">, () => SQL>;

type DepositRow = {
  payment: typeof depositPayments.$inferSelect;
  topup: typeof topups.$inferSelect;
  review: { by: string | null; at: Date | null; note: string | null };
};

/** Which flags a deposit payment carries (the same rules as the SQL above, for one row). */
export function flagsOf(payment: DepositRow["payment"], topup: DepositRow["topup"]): PaymentFlag[] {
  const flags: PaymentFlag[] = [];
  if (payment.reorgedAt) flags.push("reorged");
  if (payment.droppedAt) flags.push("dropped");
  const withinQuote = topup.expiresAt !== null && payment.seenAt < topup.expiresAt;
  if (topup.expiresAt !== null && !withinQuote) flags.push("late");
  if (withinQuote && (payment.extraCents ?? 0) > 0) flags.push("overpaid");
  return flags;
}

const reviewOf = (review: DepositRow["review"]) =>
  review.at ? { by: review.by ?? "?", at: review.at.toISOString(), note: review.note ?? "" } : null;

function presentDeposit({ payment, topup, review }: DepositRow): FlaggedPayment {
  const { decimals, displayDecimals } = unitsOf(topup.coin);
  return {
    id: `deposit:${payment.id}`,
    flags: flagsOf(payment, topup),
    coin: topup.coin,
    network: payment.network,
    tx_hash: payment.txHash,
    amount: formatCoinAmount(BigInt(payment.amountUnits), decimals, displayDecimals),
    confirmations: payment.confirmations,
    confirmations_required: topup.confirmationsRequired,
    credited_usd:
      payment.quoteCents === null ? null : centsToUsd(payment.quoteCents + (payment.extraCents ?? 0)),
    seen_at: payment.seenAt.toISOString(),
    account_id: topup.accountId,
    topup: { ref: topup.ref, status: topup.status, amount_usd: centsToUsd(topup.amountCents) },
    payer: topup.payer,
    review: reviewOf(review),
  };
}

const reviewed = (filter: AttentionFilter, column: SQL) =>
  filter === "attention" ? sql`${column} IS NULL` : sql`${column} IS NOT NULL`;

/** The flagged payments, newest first: those still needing attention, or those reviewed. */
export async function flaggedPayments(
  filter: AttentionFilter = "attention",
  options: { accountId?: number; at?: Date } = {},
  database?: Database,
): Promise<FlaggedPayment[]> {
  database ??= await db();
  const at = options.at ?? new Date();
  const reviewColumns = {
    by: operators.name,
    at: paymentReviews.reviewedAt,
    note: paymentReviews.note,
  };
  const deposits = await database
    .select({ payment: depositPayments, topup: topups, review: reviewColumns })
    .from(depositPayments)
    .innerJoin(topups, eq(topups.id, depositPayments.topupId))
    .leftJoin(paymentReviews, eq(paymentReviews.payment, sql`'deposit:' || ${depositPayments.id}`))
    .leftJoin(operators, eq(operators.id, paymentReviews.operatorId))
    .where(
      and(
        eq(topups.method, "deposit"),
        options.accountId ? eq(topups.accountId, options.accountId) : undefined,
        or(...Object.values(depositFlags).map((flag) => flag())),
        reviewed(filter, sql`${paymentReviews.payment}`),
      ),
    )
    .orderBy(desc(depositPayments.seenAt))
    .limit(LIST_LIMIT);
  const settlements = await database
    .select({ authorization: x402Authorizations, review: reviewColumns })
    .from(x402Authorizations)
    .leftJoin(paymentReviews, eq(paymentReviews.payment, sql`'x402:' || ${x402Authorizations.id}`))
    .leftJoin(operators, eq(operators.id, paymentReviews.operatorId))
    .where(
      and(
        eq(x402Authorizations.state, "in_flight"),
        or(isNull(x402Authorizations.leaseUntil), lt(x402Authorizations.leaseUntil, at)),
        options.accountId ? eq(x402Authorizations.accountId, options.accountId) : undefined,
        reviewed(filter, sql`${paymentReviews.payment}`),
      ),
    )
    .orderBy(desc(x402Authorizations.createdAt))
    .limit(LIST_LIMIT);
  const unknown: FlaggedPayment[] = settlements.map(({ authorization, review }) => ({
    id: `x402:${authorization.id}`,
    flags: ["settlement_unknown"],
    coin: "USDCBASE",
    network: authorization.network,
    tx_hash: authorization.txHash,
    amount: null,
    confirmations: null,
    confirmations_required: null,
    credited_usd: null,
    seen_at: authorization.createdAt.toISOString(),
    account_id: authorization.accountId,
    topup: null,
    payer: authorization.payer,
    review: reviewOf(review),
  }));
  return [...deposits.map(presentDeposit), ...unknown]
    .sort((a, b) => b.seen_at.localeCompare(a.seen_at))
    .slice(0, LIST_LIMIT);
}

/** How many payments need attention now (the overview's count). */
export async function attentionCount(database?: Database): Promise<number> {
  return (await flaggedPayments("attention", {}, database)).length;
}

const PAYMENT_ID = /^(deposit|x402):([1-9]\d{0,9})$/;

/** The flagged payment `id` names, or 404 when it names none (or one nothing is wrong with). */
export async function flaggedPayment(id: string, database?: Database): Promise<FlaggedPayment> {
  const match = PAYMENT_ID.exec(id);
  if (!match) throw notFound(`No flagged payment ${id}.`);
  database ??= await db();
  const numeric = Number(match[2]);
  const accountId =
    match[1] === "deposit"
      ? (
          await database
            .select({ accountId: topups.accountId })
            .from(depositPayments)
            .innerJoin(topups, eq(topups.id, depositPayments.topupId))
            .where(eq(depositPayments.id, numeric))
        )[0]?.accountId
      : (
          await database
            .select({ accountId: x402Authorizations.accountId })
            .from(x402Authorizations)
            .where(eq(x402Authorizations.id, numeric))
        )[0]?.accountId;
  if (accountId === undefined) throw notFound(`No flagged payment ${id}.`);
  for (const filter of ["attention", "reviewed"] as const) {
    const found = (await flaggedPayments(filter, { accountId }, database)).find((p) => p.id === id);
    if (found) return found;
  }
  throw notFound(`No flagged payment ${id}.`);
}

/** Marks a flagged payment reviewed, with what was found; recorded in the audit log in the same transaction. */
export async function reviewPayment(actor: Actor, id: string, note: string, database?: Database) {
  database ??= await db();
  const payment = await flaggedPayment(id, database);
  if (payment.review) {
    throw new OperatorError(409, "already_reviewed", `This payment was reviewed by ${payment.review.by}.`);
  }
  await database.transaction(async (tx) => {
    const [added] = await tx
      .insert(paymentReviews)
      .values({ payment: id, operatorId: actor.operatorId, note })
      .onConflictDoNothing()
      .returning({ payment: paymentReviews.payment });
    if (!added) throw new OperatorError(409, "already_reviewed", "This payment was reviewed meanwhile.");
    await recordAudit(tx, actor, {
      action: "review_payment",
      target: `payment:${id}`,
      reason: note,
      detail: { flags: payment.flags, account_id: payment.account_id, tx_hash: payment.tx_hash },
    });
  });
  return flaggedPayment(id, database);
}

/** Marks reviewed inside an adjustment's transaction (an adjustment settles the payment it names). */
export async function markReviewedInTx(tx: Tx, actor: Actor, id: string, note: string): Promise<void> {
  await tx
    .insert(paymentReviews)
    .values({ payment: id, operatorId: actor.operatorId, note })
    .onConflictDoNothing();
}
