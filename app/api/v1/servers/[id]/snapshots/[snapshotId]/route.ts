import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { serverReader } from "@/lib/servers/reads";
import { deleteSnapshot, getSnapshot } from "@/lib/servers/snapshots/requests";

export const GET = authedRoute("getSnapshot", async ({ auth, params }) =>
  json(
    await getSnapshot(
      serverReader(auth),
      pathId(params, "id", "server"),
      pathId(params, "snapshotId", "snapshot"),
    ),
  ),
);

export const DELETE = authedRoute("deleteSnapshot", async ({ auth, params }) =>
  json(
    await deleteSnapshot(
      auth.accountId,
      pathId(params, "id", "server"),
      pathId(params, "snapshotId", "snapshot"),
    ),
    202,
  ),
);

export const { POST, PUT, PATCH } = methodNotAllowed(["GET", "DELETE"]);
