import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { ReinstallServerBody } from "@/lib/api/schemas/server-machine";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { reinstallServer } from "@/lib/servers/reinstall";

export const POST = authedRoute("reinstallServer", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const idempotencyKey = readIdempotencyKey(request.headers);
  const body = await parseJsonBody(request, ReinstallServerBody);
  const outcome = await reinstallServer(auth.accountId, serverId, body, idempotencyKey);
  return json(outcome.body, outcome.status, { ...outcome.headers, "cache-control": "no-store" });
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
