import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { ResizeServerBody } from "@/lib/api/schemas/resize";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { payerOf } from "@/lib/servers/billing";
import { resizeServer } from "@/lib/servers/resize/requests";

export const POST = authedRoute("resizeServer", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const idempotencyKey = readIdempotencyKey(request.headers);
  const body = await parseJsonBody(request, ResizeServerBody);
  const outcome = await resizeServer(payerOf(auth), serverId, body, idempotencyKey);
  return json(outcome.body, outcome.status, { ...outcome.headers, "cache-control": "no-store" });
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
