import "server-only";
import { randomUUID } from "node:crypto";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { ApiError, badRequest, notFound } from "@/lib/api/errors";
import type { Tx } from "@/lib/db/client";
import { type Database, db } from "@/lib/db/client";
import { adjustmentApprovals, ledgerAdjustments, ledgerEntries, operators } from "@/lib/db/schema";
import { postLedgerEntry } from "@/lib/ledger/ledger";
import { centsToUsd, formatUsd } from "@/lib/util/cents";
import { type Actor, recordAudit } from "./audit";
import { operatorSettings } from "./config";
import { OperatorError } from "./errors";
import { lockAccount } from "./locks";
import {
  closeOnRail,
  type FlaggedPayment,
  flaggedPayment,
  lockRailRecord,
  markReviewedInTx,
} from "./payments";

/** The largest adjustment one request may post, either way: a slip of the keyboard stays bounded. */
export const MAX_ADJUSTMENT_CENTS = 10_000_00;

/** What the audit log calls each decision on an adjustment waiting for approval. */
const DECIDED = { approved: "approve_adjustment", refused: "refuse_adjustment" } as const;

/** An operator's own adjustments are capped over this window (OPERATOR_ADJUSTMENT_DAILY_CAP_USD). */
const CAP_WINDOW_MS = 24 * 3_600_000;

export type Adjustment = {
  id: number;
  account_id: number;
  amount_usd: number;
  reason: string;
  payment: string | null;
  operator: string;
  approved_by: string | null;
  created_at: string;
  balance_after_usd: number;
};

/** An adjustment past its operator's daily cap, waiting for (or decided by) another admin. */
export type PendingAdjustment = {
  id: number;
  account_id: number;
  amount_usd: number;
  reason: string;
  payment: string | null;
  requested_by: string;
  requested_at: string;
  state: "pending" | "approved" | "refused";
  decided_by: string | null;
  decided_at: string | null;
  note: string | null;
};

export type AdjustmentRequest = {
  accountId: number;
  /** Positive: a credit to the account; negative: a debit. */
  amountCents: number;
  reason: string;
  /** The flagged payment it settles (closed on its rail and marked reviewed with it), if any. */
  payment?: string;
  /** The client's idempotency key: the same key never posts twice. */
  key?: string;
};

export type AdjustmentOutcome =
  | { status: 200 | 201; adjustment: Adjustment }
  | { status: 202; approval: PendingAdjustment };

type Posting = {
  accountId: number;
  amountCents: number;
  reason: string;
  payment: string | null;
  reference: string;
  /** Who asked for it (its ledger row is theirs), and the second admin who let it past the cap, if any. */
  operatorId: number;
  approvedBy: number | null;
};

/**
 * Posts a credit or a debit to an account through the ledger, with its reason, in ONE transaction: the flagged
 * payment it settles closed on its own rail (so the rail can never credit it again) and marked reviewed, the
 * ledger row (kind `adjustment`, so the balance stays the sum of the ledger), the reason and who gave it, and
 * the audit entry. A debit larger than the balance is refused (409); so is a second adjustment for a payment
 * one has settled. Past the operator's daily cap the adjustment is not posted: it waits (202) for another
 * admin's approval. A repeated request with the same key answers the first one's result and posts nothing.
 */
export async function postAdjustment(
  actor: Actor,
  request: AdjustmentRequest,
  database?: Database,
): Promise<AdjustmentOutcome> {
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
  const payment = request.payment ? await flaggedPayment(request.payment, database) : undefined;
  if (payment && payment.account_id !== accountId) {
    throw badRequest("invalid_request", `The payment ${payment.id} is not this account's.`);
  }
  const posting: Posting = {
    accountId,
    amountCents,
    reason,
    payment: request.payment ?? null,
    reference: `adjustment:${request.key ?? randomUUID()}`,
    operatorId: actor.operatorId,
    approvedBy: null,
  };
  return database.transaction(async (tx): Promise<AdjustmentOutcome> => {
    // The payment's own record first, then the account: the order the rail's crediting locks them in.
    if (payment) await lockRailRecord(tx, payment);
    const balanceCents = await lockAccount(tx, accountId);
    const replay = await earlierAnswer(tx, posting);
    if (replay) return replay;
    refuseOverdraft(balanceCents, amountCents);
    if (payment) await refuseSettledTwice(tx, payment.id);
    if (await pastDailyCap(tx, actor.operatorId, amountCents)) {
      const [waiting] = await tx
        .insert(adjustmentApprovals)
        .values({
          reference: posting.reference,
          accountId,
          amountCents,
          reason,
          payment: posting.payment,
          requestedBy: actor.operatorId,
        })
        .returning({ id: adjustmentApprovals.id });
      if (!waiting) throw new Error("approval insert returned no row");
      await recordAudit(tx, actor, {
        action: "request_adjustment",
        target: `account:${accountId}`,
        reason,
        detail: {
          amount_usd: centsToUsd(amountCents),
          payment: posting.payment,
          approval: waiting.id,
          daily_cap_usd: centsToUsd(operatorSettings().adjustmentDailyCapCents),
        },
      });
      return { status: 202, approval: await presentApproval(tx, waiting.id) };
    }
    const id = await postInTx(tx, posting, payment);
    await recordAudit(tx, actor, {
      action: "adjust_ledger",
      target: `account:${accountId}`,
      reason,
      detail: await postedDetail(tx, id, posting.reference),
    });
    return { status: 201, adjustment: await presentAdjustment(tx, id) };
  });
}

/**
 * Another admin decides an adjustment that waits past its requester's daily cap: approved, it is posted as
 * postAdjustment posts (the requester's ledger row, this admin named as its approver), with every check made
 * again now; refused, nothing is posted. The requester cannot decide their own. Audited either way.
 */
export async function decideAdjustment(
  actor: Actor,
  approvalId: number,
  decision: { approve: boolean; note: string },
  database?: Database,
): Promise<PendingAdjustment> {
  database ??= await db();
  const [asked] = await database
    .select()
    .from(adjustmentApprovals)
    .where(eq(adjustmentApprovals.id, approvalId));
  if (!asked) throw notFound(`No adjustment waiting for approval with id ${approvalId}.`);
  const payment =
    decision.approve && asked.payment ? await flaggedPayment(asked.payment, database) : undefined;
  return database.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(adjustmentApprovals)
      .where(eq(adjustmentApprovals.id, approvalId))
      .for("update");
    if (!row) throw notFound(`No adjustment waiting for approval with id ${approvalId}.`);
    if (row.decidedAt) {
      throw new OperatorError(409, "approval_decided", `This adjustment was ${row.decision} already.`);
    }
    if (row.requestedBy === actor.operatorId) {
      throw new OperatorError(
        403,
        "approval_needs_another_admin",
        "You asked for this adjustment: another admin must approve or refuse it.",
      );
    }
    const detail = {
      amount_usd: centsToUsd(row.amountCents),
      payment: row.payment,
      approval: row.id,
      requested_by: await operatorName(tx, row.requestedBy),
    };
    if (decision.approve) {
      if (payment) await lockRailRecord(tx, payment);
      refuseOverdraft(await lockAccount(tx, row.accountId), row.amountCents);
      if (payment) await refuseSettledTwice(tx, payment.id);
      const id = await postInTx(
        tx,
        { ...row, operatorId: row.requestedBy, approvedBy: actor.operatorId },
        payment,
      );
      Object.assign(detail, await postedDetail(tx, id, row.reference));
    }
    await tx
      .update(adjustmentApprovals)
      .set({
        decidedBy: actor.operatorId,
        decidedAt: new Date(),
        decision: decision.approve ? "approved" : "refused",
        decisionNote: decision.note,
      })
      .where(eq(adjustmentApprovals.id, row.id));
    await recordAudit(tx, actor, {
      action: DECIDED[decision.approve ? "approved" : "refused"],
      target: `account:${row.accountId}`,
      reason: decision.note,
      detail,
    });
    return presentApproval(tx, row.id);
  });
}

/** Adjustments waiting for a second admin, oldest first (or every one of an account, newest first). */
export async function pendingAdjustments(
  options: { accountId?: number } = {},
  database?: Database,
): Promise<PendingAdjustment[]> {
  database ??= await db();
  const rows = await database
    .select({ id: adjustmentApprovals.id })
    .from(adjustmentApprovals)
    .where(
      options.accountId
        ? eq(adjustmentApprovals.accountId, options.accountId)
        : isNull(adjustmentApprovals.decidedAt),
    )
    .orderBy(adjustmentApprovals.id)
    .limit(200);
  const approvals: PendingAdjustment[] = [];
  for (const { id } of rows) approvals.push(await presentApproval(database, id));
  return options.accountId ? approvals.reverse() : approvals;
}

function refuseOverdraft(balanceCents: number, amountCents: number): void {
  if (amountCents < 0 && balanceCents < -amountCents) {
    throw new OperatorError(
      409,
      "adjustment_exceeds_balance",
      `The account holds ${formatUsd(balanceCents)}: a debit of ${formatUsd(-amountCents)} would take it below zero.`,
    );
  }
}

/**
 * The answer for a key used before: the same adjustment posted (200) or still waiting for approval (202); the
 * key with anything else (another account, amount, reason or payment) is 422. Undefined for a new key.
 */
async function earlierAnswer(tx: Tx, posting: Posting): Promise<AdjustmentOutcome | undefined> {
  const same = (earlier: {
    accountId: number;
    amountCents: number;
    reason: string;
    payment: string | null;
  }) =>
    earlier.accountId === posting.accountId &&
    earlier.amountCents === posting.amountCents &&
    earlier.reason === posting.reason &&
    earlier.payment === posting.payment;
  const reused = () =>
    new ApiError(
      422,
      "idempotency_key_reused",
      "This Idempotency-Key was used for another adjustment; use a new key.",
    );
  const [posted] = await tx
    .select()
    .from(ledgerAdjustments)
    .where(eq(ledgerAdjustments.reference, posting.reference));
  if (posted) {
    if (!same(posted)) throw reused();
    return { status: 200, adjustment: await presentAdjustment(tx, posted.id) };
  }
  const [waiting] = await tx
    .select()
    .from(adjustmentApprovals)
    .where(eq(adjustmentApprovals.reference, posting.reference));
  if (waiting) {
    if (!same(waiting)) throw reused();
    return { status: 202, approval: await presentApproval(tx, waiting.id) };
  }
  return undefined;
}

/** One adjustment per flagged payment: a posted one, or one waiting for approval, settles it already. */
async function refuseSettledTwice(tx: Tx, payment: string): Promise<void> {
  const [posted] = await tx
    .select({ reference: ledgerAdjustments.reference, at: ledgerAdjustments.createdAt })
    .from(ledgerAdjustments)
    .where(eq(ledgerAdjustments.payment, payment));
  if (posted) {
    throw new OperatorError(
      409,
      "payment_already_settled",
      `The payment ${payment} was settled by the adjustment ${posted.reference} of ${posted.at.toISOString()}; one adjustment settles a payment.`,
    );
  }
  const [waiting] = await tx
    .select({ id: adjustmentApprovals.id })
    .from(adjustmentApprovals)
    .where(and(eq(adjustmentApprovals.payment, payment), isNull(adjustmentApprovals.decidedAt)));
  if (waiting) {
    throw new OperatorError(
      409,
      "payment_already_settled",
      `An adjustment for the payment ${payment} waits for approval (${waiting.id}); decide that one.`,
    );
  }
}

/**
 * Whether `amountCents` would take the operator's adjustments of the last 24 hours (credits and debits alike,
 * those a second admin approved left out) past the daily cap. The operator's row is locked first, so two of
 * their adjustments at once are counted one after the other.
 */
async function pastDailyCap(tx: Tx, operatorId: number, amountCents: number): Promise<boolean> {
  await tx.select({ id: operators.id }).from(operators).where(eq(operators.id, operatorId)).for("update");
  const [used] = await tx
    .select({ cents: sql<string>`coalesce(sum(abs(${ledgerAdjustments.amountCents})), 0)` })
    .from(ledgerAdjustments)
    .where(
      and(
        eq(ledgerAdjustments.operatorId, operatorId),
        isNull(ledgerAdjustments.approvedBy),
        gt(ledgerAdjustments.createdAt, new Date(Date.now() - CAP_WINDOW_MS)),
      ),
    );
  return Number(used?.cents ?? 0) + Math.abs(amountCents) > operatorSettings().adjustmentDailyCapCents;
}

/** The ledger row, the adjustment and the settled payment closed on its rail and marked reviewed. */
async function postInTx(tx: Tx, posting: Posting, payment: FlaggedPayment | undefined): Promise<number> {
  const { accountId, amountCents, reference } = posting;
  if (payment) await closeOnRail(tx, payment, reference);
  await postLedgerEntry(tx, { accountId, amountCents, kind: "adjustment", reference, apiKeyId: null });
  const [row] = await tx
    .insert(ledgerAdjustments)
    .values({
      reference,
      accountId,
      amountCents,
      reason: posting.reason,
      operatorId: posting.operatorId,
      approvedBy: posting.approvedBy,
      payment: posting.payment,
    })
    .returning({ id: ledgerAdjustments.id });
  if (!row) throw new Error("adjustment insert returned no row");
  if (payment) {
    await markReviewedInTx(tx, posting.operatorId, payment.id, `Adjusted: ${posting.reason}`);
  }
  return row.id;
}

/** What the audit log keeps of a posted adjustment. */
async function postedDetail(tx: Tx, id: number, reference: string) {
  const adjustment = await presentAdjustment(tx, id);
  return {
    amount_usd: adjustment.amount_usd,
    balance_after_usd: adjustment.balance_after_usd,
    payment: adjustment.payment,
    reference,
    ...(adjustment.approved_by ? { approved_by: adjustment.approved_by } : {}),
  };
}

async function operatorName(tx: Tx | Database, id: number | null): Promise<string | null> {
  if (id === null) return null;
  const [row] = await tx.select({ name: operators.name }).from(operators).where(eq(operators.id, id));
  return row?.name ?? null;
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
    approved_by: await operatorName(tx, row.adjustment.approvedBy),
    created_at: row.adjustment.createdAt.toISOString(),
    balance_after_usd: centsToUsd(row.balanceAfterCents),
  };
}

async function presentApproval(tx: Tx | Database, id: number): Promise<PendingAdjustment> {
  const [row] = await tx.select().from(adjustmentApprovals).where(eq(adjustmentApprovals.id, id));
  if (!row) throw new Error(`approval ${id} vanished`);
  return {
    id: row.id,
    account_id: row.accountId,
    amount_usd: centsToUsd(row.amountCents),
    reason: row.reason,
    payment: row.payment,
    requested_by: (await operatorName(tx, row.requestedBy)) ?? "?",
    requested_at: row.requestedAt.toISOString(),
    state: row.decision ?? "pending",
    decided_by: await operatorName(tx, row.decidedBy),
    decided_at: row.decidedAt?.toISOString() ?? null,
    note: row.decisionNote,
  };
}
