import { currentKey } from "@/lib/accounts/keys";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";

/** What the calling key is: scopes, conditions, cap and spending, last use. */
export const GET = authedRoute("getCurrentKey", async ({ auth }) => json(await currentKey(auth)));

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed(["GET"]);
