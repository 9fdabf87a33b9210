import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { RescueBody } from "@/lib/api/schemas/snapshots";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { enterRescue, leaveRescue } from "@/lib/servers/rescue";

/** Boots the rescue system; the answer carries its temporary root password, so it is never cached. */
export const POST = authedRoute("enterRescue", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const idempotencyKey = readIdempotencyKey(request.headers);
  await parseJsonBody(request, RescueBody);
  const outcome = await enterRescue(auth.accountId, serverId, idempotencyKey);
  return json(outcome.body, outcome.status, { ...outcome.headers, "cache-control": "no-store" });
});

/** Boots the server's own system again. */
export const DELETE = authedRoute("leaveRescue", async ({ auth, params }) =>
  json(await leaveRescue(auth.accountId, pathId(params, "id", "server")), 202),
);

export const { GET, PUT, PATCH } = methodNotAllowed(["POST", "DELETE"]);
