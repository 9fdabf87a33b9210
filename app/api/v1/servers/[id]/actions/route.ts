import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { ServerActionBody } from "@/lib/api/schemas/servers";
import { powerAction } from "@/lib/servers/control";

export const POST = authedRoute("serverPowerAction", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const body = await parseJsonBody(request, ServerActionBody);
  return json(await powerAction(auth.accountId, serverId, body.action));
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
