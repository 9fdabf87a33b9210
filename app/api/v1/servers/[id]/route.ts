import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { UpdateServerBody } from "@/lib/api/schemas/servers";
import { setAutoRenew, terminateServer } from "@/lib/servers/control";
import { getServer, serverReader } from "@/lib/servers/reads";

export const GET = authedRoute("getServer", async ({ auth, params }) =>
  json(await getServer(serverReader(auth), pathId(params, "id", "server"))),
);

export const PATCH = authedRoute("updateServer", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const body = await parseJsonBody(request, UpdateServerBody);
  return json(await setAutoRenew(auth.accountId, serverId, body.auto_renew));
});

/** Terminates the server at once (no refund); the dashboard asks for a typed confirmation first. */
export const DELETE = authedRoute("terminateServer", async ({ auth, params }) =>
  json(await terminateServer(auth.accountId, pathId(params, "id", "server"))),
);

export const { POST, PUT } = methodNotAllowed(["GET", "PATCH", "DELETE"]);
