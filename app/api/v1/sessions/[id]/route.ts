import { revokeSession } from "@/lib/accounts/sessions";
import { authedRoute, json, methodNotAllowed, pathId } from "@/lib/api/route";

/** Revokes one dashboard session of the account (the caller's own included). */
export const DELETE = authedRoute("revokeSession", async ({ auth, params }) =>
  json(await revokeSession(auth.accountId, pathId(params, "id", "session"))),
);

export const { GET, POST, PUT, PATCH } = methodNotAllowed(["DELETE"]);
