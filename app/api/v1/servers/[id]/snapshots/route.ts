import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { CreateSnapshotBody } from "@/lib/api/schemas/snapshots";
import { readIdempotencyKey } from "@/lib/idempotency/idempotency";
import { serverReader } from "@/lib/servers/reads";
import { listSnapshots, takeSnapshot } from "@/lib/servers/snapshots/requests";

export const GET = authedRoute("listSnapshots", async ({ auth, params }) =>
  json(await listSnapshots(serverReader(auth), pathId(params, "id", "server"))),
);

export const POST = authedRoute("takeSnapshot", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const idempotencyKey = readIdempotencyKey(request.headers);
  const body = await parseJsonBody(request, CreateSnapshotBody);
  const outcome = await takeSnapshot(auth.accountId, serverId, body, idempotencyKey);
  return json(outcome.body, outcome.status, outcome.headers);
});

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
