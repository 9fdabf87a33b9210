import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { getCredentials, serverReader } from "@/lib/servers/reads";

export const GET = authedRoute("getServerCredentials", async ({ auth, params }) =>
  json(await getCredentials(serverReader(auth), pathId(params, "id", "server")), 200, {
    "cache-control": "no-store",
    pragma: "no-cache",
  }),
);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
