import { parseJsonBody } from "@/lib/api/body";
import { operatorMethodNotAllowed, operatorPathId, operatorRoute } from "@/lib/operator/route";
import { LiftBody, SuspendBody } from "@/lib/operator/schemas";
import { liftAccount, suspendAccount } from "@/lib/operator/suspensions";

export const POST = operatorRoute("suspend", async (context) => {
  const accountId = operatorPathId(context);
  const body = await parseJsonBody(context.request, SuspendBody);
  await suspendAccount(context.operator, accountId, { reason: body.reason, pausesPeriod: body.pause_period });
  return new Response(null, { status: 204 });
});

export const DELETE = operatorRoute("suspend", async (context) => {
  const accountId = operatorPathId(context);
  const body = await parseJsonBody(context.request, LiftBody);
  await liftAccount(context.operator, accountId, body.reason);
  return new Response(null, { status: 204 });
});

export const { GET, PUT, PATCH } = operatorMethodNotAllowed(["POST", "DELETE"]);
