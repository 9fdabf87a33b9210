import { confirmTotp } from "@/lib/accounts/two-factor";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { TotpCodeBody } from "@/lib/api/schemas/sessions";

/** Turns TOTP on; the answer holds the recovery codes, shown this once. */
export const POST = authedRoute("confirmTotp", async ({ request, auth, client }) => {
  const body = await parseJsonBody(request, TotpCodeBody);
  return json(await confirmTotp(auth.accountId, body.code, client), 200, { "cache-control": "no-store" });
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
