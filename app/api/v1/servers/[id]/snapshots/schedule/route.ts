import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { SetSnapshotScheduleBody } from "@/lib/api/schemas/snapshots";
import { serverReader } from "@/lib/servers/reads";
import { clearSchedule, getSchedule, setSchedule } from "@/lib/servers/snapshots/schedule";

export const GET = authedRoute("getSnapshotSchedule", async ({ auth, params }) =>
  json(await getSchedule(serverReader(auth), pathId(params, "id", "server"))),
);

export const PUT = authedRoute("setSnapshotSchedule", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const body = await parseJsonBody(request, SetSnapshotScheduleBody);
  return json(await setSchedule(auth.accountId, serverId, body));
});

export const DELETE = authedRoute("clearSnapshotSchedule", async ({ auth, params }) =>
  json(await clearSchedule(auth.accountId, pathId(params, "id", "server"))),
);

export const { POST, PATCH } = methodNotAllowed(["GET", "PUT", "DELETE"]);
