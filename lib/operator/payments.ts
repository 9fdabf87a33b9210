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
 * Each stays under "needs attention" until an operator marks it reviewed or posts an adjustment for it. An
 * adjustment that settles one closes it on its rail too (closeOnRail), so the rail never credits it again.
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
        or(
          and(
            eq(x402Authorizations.state, "in_flight"),
            or(isNull(x402Authorizations.leaseUntil), lt(x402Authorizations.leaseUntil, at)),
          ),
          // Settled by an adjustment: still listed, as reviewed, with what settled it.
          eq(x402Authorizations.state, "adjusted"),
        ),
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
export async function markReviewedInTx(tx: Tx, operatorId: number, id: string, note: string): Promise<void> {
  await tx.insert(paymentReviews).values({ payment: id, operatorId, note }).onConflictDoNothing();
}

const numericId = (payment: FlaggedPayment) => Number(payment.id.split(":")[1]);

/**
 * Locks the rail's own record of a payment an adjustment is about to settle, before the account: the
 * order the rail's crediting takes them in (x402: the authorization, then the account; deposits: the top-up,
 * then the account), so the two wait for each other instead of deadlocking.
 */
export async function lockRailRecord(tx: Tx, payment: FlaggedPayment): Promise<void> {
  const id = numericId(payment);
  if (payment.id.startsWith("x402:")) {
    await tx
      .select({ id: x402Authorizations.id })
      .from(x402Authorizations)
      .where(eq(x402Authorizations.id, id))
      .for("update");
    return;
  }
  const [row] = await tx
    .select({ topupId: depositPayments.topupId })
    .from(depositPayments)
    .where(eq(depositPayments.id, id));
  if (row) await tx.select({ id: topups.id }).from(topups).where(eq(topups.id, row.topupId)).for("update");
}

/**
 * Closes a flagged payment on its own rail, in the adjustment's transaction (its record locked by
 * lockRailRecord), so the rail can never credit what the adjustment credits:
 * - `x402:<id>`, an authorization whose settlement's outcome was never recorded: it becomes `adjusted`, naming
 *   the adjustment; its owner's retry with the same payment then answers 409 `payment_settled_by_operator`.
 *   Refused (409) when its owner's retry is settling it right now or has credited it from the chain.
 * - `deposit:<id>` not yet counted (dropped): it counts from now as settled by the adjustment, crediting
 *   nothing through its top-up, whatever the chain shows later (a rebroadcast, a late block). A payment that
 *   counted already (reorged, late, overpaid: credited) has nothing left to close.
 */
export async function closeOnRail(tx: Tx, payment: FlaggedPayment, reference: string): Promise<void> {
  const id = numericId(payment);
  if (payment.id.startsWith("x402:")) {
    const [closed] = await tx
      .update(x402Authorizations)
      .set({ state: "adjusted", adjustmentReference: reference, leaseUntil: null })
      .where(
        and(
          eq(x402Authorizations.id, id),
          eq(x402Authorizations.state, "in_flight"),
          or(isNull(x402Authorizations.leaseUntil), lt(x402Authorizations.leaseUntil, new Date())),
        ),
      )
      .returning({ id: x402Authorizations.id });
    if (closed) return;
    const [row] = await tx.select().from(x402Authorizations).where(eq(x402Authorizations.id, id));
    if (row?.state === "in_flight") {
      throw new OperatorError(
        409,
        "payment_being_settled",
        "Its owner's retry is settling this payment from the chain right now; look again in a minute.",
      );
    }
    throw new OperatorError(
      409,
      "payment_already_settled",
      row?.state === "settled"
        ? "Its owner's retry credited this payment from the chain meanwhile: no adjustment is needed."
        : "This payment was settled by an adjustment already.",
    );
  }
  const [counted] = await tx
    .update(depositPayments)
    .set({ settledBy: reference, confirmedAt: new Date() })
    .where(and(eq(depositPayments.id, id), isNull(depositPayments.confirmedAt)))
    .returning({ id: depositPayments.id });
  if (!counted && payment.credited_usd === null) {
    throw new OperatorError(
      409,
      "payment_already_settled",
      "This payment was credited through its top-up meanwhile (its transaction confirmed): no adjustment is needed.",
    );
  }
}
