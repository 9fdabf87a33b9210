import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { RestoreSnapshotBody } from "@/lib/api/schemas/snapshots";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { restoreSnapshot } from "@/lib/servers/snapshots/requests";

export const POST = authedRoute("restoreSnapshot", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const snapshotId = pathId(params, "snapshotId", "snapshot");
  const idempotencyKey = readIdempotencyKey(request.headers);
  const body = await parseJsonBody(request, RestoreSnapshotBody);
  const outcome = await restoreSnapshot(auth.accountId, serverId, snapshotId, body, idempotencyKey);
  return json(outcome.body, outcome.status, outcome.headers);
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
