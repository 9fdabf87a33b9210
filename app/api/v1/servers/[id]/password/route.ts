import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { RootPasswordBody } from "@/lib/api/schemas/server-machine";
import { changeRootPassword } from "@/lib/servers/root-password";

export const POST = authedRoute("setServerRootPassword", async ({ request, auth, params }) => {
  const serverId = pathId(params, "id", "server");
  const body = await parseJsonBody(request, RootPasswordBody);
  // The answer is the credentials, so it is kept out of caches like GET /credentials.
  return json(await changeRootPassword(auth.accountId, serverId, body.root_password), 200, {
    "cache-control": "no-store",
    pragma: "no-cache",
  });
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
