import { parseJsonBody } from "@/lib/api/body";
import { decideAdjustment } from "@/lib/operator/adjustments";
import { json, operatorMethodNotAllowed, operatorPathId, operatorRoute } from "@/lib/operator/route";
import { DecisionBody } from "@/lib/operator/schemas";

export const POST = operatorRoute("adjust_ledger", async (context) => {
  const id = operatorPathId(context);
  const body = await parseJsonBody(context.request, DecisionBody);
  return json(
    await decideAdjustment(context.operator, id, { approve: body.decision === "approve", note: body.note }),
  );
});

export const { GET, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["POST"]);
