import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { EmptyBody } from "@/lib/api/schemas/common";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { payerOf } from "@/lib/servers/billing";
import { renewServer } from "@/lib/servers/control";

export const POST = authedRoute("renewServer", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const idempotencyKey = readIdempotencyKey(request.headers);
  await parseJsonBody(request, EmptyBody);
  const outcome = await renewServer(payerOf(auth), serverId, idempotencyKey);
  return json(outcome.body, outcome.status, outcome.headers);
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
