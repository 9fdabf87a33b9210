import "server-only";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { ApiError, badRequest, notFound } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { type Database, db } from "@/lib/db/client";
import { accounts, ledgerAdjustments, ledgerEntries, operators } from "@/lib/db/schema";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { centsToUsd, formatUsd } from "@/lib/util/cents";
import { type Actor, recordAudit } from "./audit";
import { OperatorError } from "./errors";
import { flaggedPayment, markReviewedInTx } from "./payments";

/** The largest adjustment one request may post, either way: a slip of the keyboard stays bounded. */
export const MAX_ADJUSTMENT_CENTS = 10_000_00;

export type Adjustment = {
  id: number;
  account_id: number;
  amount_usd: number;
  reason: string;
  payment: string | null;
  operator: string;
  created_at: string;
  balance_after_usd: number;
};

export type AdjustmentRequest = {
  accountId: number;
  /** Positive: a credit to the account; negative: a debit. */
  amountCents: number;
  reason: string;
  /** The flagged payment it settles (marked reviewed with it), if any. */
  payment?: string;
  /** The client's idempotency key: the same key never posts twice. */
  key?: string;
};

/**
 * Posts a credit or a debit to an account through the ledger, with its reason, in ONE transaction that locks
 * the account: the ledger row (kind `adjustment`, so the balance stays the sum of the ledger), the reason and
 * who gave it, the flagged payment it settles marked reviewed, and the audit entry. A debit larger than the
 * balance is refused (409) and changes nothing. A repeated request with the same key answers the first one's
 * result and posts nothing.
 */
export async function postAdjustment(
  actor: Actor,
  request: AdjustmentRequest,
  database?: Database,
): Promise<{ status: 200 | 201; adjustment: Adjustment }> {
  const { accountId, amountCents, reason } = request;
  if (
    !Number.isSafeInteger(amountCents) ||
    amountCents === 0 ||
    Math.abs(amountCents) > MAX_ADJUSTMENT_CENTS
  ) {
    throw badRequest(
      "invalid_amount",
      `Send amount_usd as a non-zero amount of at most ${formatUsd(MAX_ADJUSTMENT_CENTS)} either way, in whole cents.`,
    );
  }
  database ??= await db();
  if (request.payment) {
    const payment = await flaggedPayment(request.payment, database);
    if (payment.account_id !== accountId) {
      throw badRequest("invalid_request", `The payment ${request.payment} is not this account's.`);
    }
  }
  const reference = `adjustment:${request.key ?? randomUUID()}`;
  return database.transaction(async (tx) => {
    const [account] = await tx
      .select({ balanceCents: accounts.balanceCents })
      .from(accounts)
      .where(eq(accounts.id, accountId))
      .for("update");
    if (!account) throw notFound(`No account with id ${accountId}.`);
    const [earlier] = await tx
      .select()
      .from(ledgerAdjustments)
      .where(eq(ledgerAdjustments.reference, reference));
    if (earlier) {
      if (
        earlier.accountId !== accountId ||
        earlier.amountCents !== amountCents ||
        earlier.reason !== reason
      ) {
        throw new ApiError(
          422,
          "idempotency_key_reused",
          "This Idempotency-Key was used for another adjustment; use a new key.",
        );
      }
      return { status: 200 as const, adjustment: await presentAdjustment(tx, earlier.id) };
    }
    if (amountCents < 0 && account.balanceCents < -amountCents) {
      throw new OperatorError(
        409,
        "adjustment_exceeds_balance",
        `The account holds ${formatUsd(account.balanceCents)}: a debit of ${formatUsd(-amountCents)} would take it below zero.`,
      );
    }
    const posted = await postLedgerEntry(tx, {
      accountId,
      amountCents,
      kind: "adjustment",
      reference,
      apiKeyId: null,
    });
    const [row] = await tx
      .insert(ledgerAdjustments)
      .values({
        reference,
        accountId,
        amountCents,
        reason,
        operatorId: actor.operatorId,
        payment: request.payment ?? null,
      })
      .returning({ id: ledgerAdjustments.id });
    if (!row) throw new Error("adjustment insert returned no row");
    if (request.payment) await markReviewedInTx(tx, actor, request.payment, `Adjusted: ${reason}`);
    await recordAudit(tx, actor, {
      action: "adjust_ledger",
      target: `account:${accountId}`,
      reason,
      detail: {
        amount_usd: centsToUsd(amountCents),
        balance_after_usd: centsToUsd(posted.balanceAfterCents ?? 0),
        payment: request.payment ?? null,
        reference,
      },
    });
    return { status: 201 as const, adjustment: await presentAdjustment(tx, row.id) };
  });
}

async function presentAdjustment(tx: Tx | Database, id: number): Promise<Adjustment> {
  const [row] = await tx
    .select({
      adjustment: ledgerAdjustments,
      operator: operators.name,
      balanceAfterCents: ledgerEntries.balanceAfterCents,
    })
    .from(ledgerAdjustments)
    .innerJoin(operators, eq(operators.id, ledgerAdjustments.operatorId))
    .innerJoin(ledgerEntries, eq(ledgerEntries.reference, ledgerAdjustments.reference))
    .where(eq(ledgerAdjustments.id, id));
  if (!row) throw new Error(`adjustment ${id} vanished`);
  return {
    id: row.adjustment.id,
    account_id: row.adjustment.accountId,
    amount_usd: centsToUsd(row.adjustment.amountCents),
    reason: row.adjustment.reason,
    payment: row.adjustment.payment,
    operator: row.operator,
    created_at: row.adjustment.createdAt.toISOString(),
    balance_after_usd: centsToUsd(row.balanceAfterCents),
  };
}
