import { revokeKey } from "@/lib/accounts/keys";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";

export const DELETE = authedRoute("revokeKey", async ({ auth, params }) =>
  json(await revokeKey(auth, pathId(params, "id", "API key"))),
);

export const { GET, POST, PUT, PATCH } = methodNotAllowed(["DELETE"]);
