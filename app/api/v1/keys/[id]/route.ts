import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";
import { revokeKey } from "@/lib/keys/service";

export const DELETE = authedRoute(async ({ auth, params }) =>
  json(await revokeKey(auth.accountId, pathId(params, "id", "API key"))),
);

export const { GET, POST, PUT, PATCH } = methodNotAllowed(["DELETE"]);
