import { parseJsonBody } from "@/lib/api/body";
import { db } from "@/lib/db/client";
import { disableOperator } from "@/lib/operator/operators";
import { json, operatorMethodNotAllowed, operatorRoute } from "@/lib/operator/route";
import { DeactivationBody } from "@/lib/operator/schemas";

export const POST = operatorRoute("manage_operators", async (context) => {
  const body = await parseJsonBody(context.request, DeactivationBody);
  const outcome = await disableOperator(
    await db(),
    context.operator,
    String(context.params.name ?? ""),
    body.reason,
  );
  return json({ sessions_ended: outcome.sessionsEnded });
});

export const { GET, PUT, PATCH, DELETE } = operatorMethodNotAllowed(["POST"]);
