import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { expiryWarnings } from "@/lib/servers/expiry-warnings";
import { serverReader } from "@/lib/servers/reads";

export const GET = authedRoute("getServerExpiryWarnings", async ({ auth, params }) =>
  json(await expiryWarnings(serverReader(auth), pathId(params, "id", "server"))),
);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
