import { beginTotpSetup } from "@/lib/accounts/totp";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { EmptyBody } from "@/lib/api/schemas/common";

/** Starts enabling two-factor sign-in: a new secret that the next /confirm makes active. */
export const POST = authedRoute("beginTotpSetup", async ({ request, auth }) => {
  await parseJsonBody(request, EmptyBody);
  return json(await beginTotpSetup(auth.accountId));
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
