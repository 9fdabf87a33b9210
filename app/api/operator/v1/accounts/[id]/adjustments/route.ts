import { parseJsonBody } from "@/lib/api/body";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { postAdjustment } from "@/lib/operator/adjustments";
import { json, operatorMethodNotAllowed, operatorPathId, operatorRoute } from "@/lib/operator/route";
import { AdjustmentBody } from "@/lib/operator/schemas";
import { apiUsdToCents } from "@/lib/util/cents";

export const POST = operatorRoute("adjust_ledger", async (context) => {
  const accountId = operatorPathId(context);
  const key = readIdempotencyKey(context.request.headers);
  const body = await parseJsonBody(context.request, AdjustmentBody);
  const cents = apiUsdToCents(body.amount_usd);
  // Whole cents only: 12.345 is refused rather than rounded.
  const amountCents = Math.abs(body.amount_usd * 100 - cents) < 1e-6 ? cents : Number.NaN;
  const outcome = await postAdjustment(context.operator, {
    accountId,
    amountCents,
    reason: body.reason,
    payment: body.payment,
    key: key === undefined ? undefined : `${context.operator.operatorId}:${key}`,
  });
  // Past the operator's daily cap nothing is posted: it waits (202) for another admin's approval.
  return outcome.status === 202 ? json(outcome.approval, 202) : json(outcome.adjustment, outcome.status);
});

export const { GET, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["POST"]);
