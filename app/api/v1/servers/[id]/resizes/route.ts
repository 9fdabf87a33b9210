import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { serverReader } from "@/lib/servers/reads";
import { listResizes } from "@/lib/servers/resize/requests";

export const GET = authedRoute("listResizes", async ({ auth, params }) =>
  json(await listResizes(serverReader(auth), pathId(params, "id", "server"))),
);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
