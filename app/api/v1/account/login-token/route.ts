import { rotateLoginToken } from "@/lib/accounts/sessions";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { RotateLoginTokenBody } from "@/lib/api/schemas/sessions";

/** Replaces the login token; the new one is in this answer only. */
export const POST = authedRoute("rotateLoginToken", async ({ request, auth, client }) => {
  const body = await parseJsonBody(request, RotateLoginTokenBody);
  const input = {
    factor: { totpCode: body.totp_code, recoveryCode: body.recovery_code },
    revokeApiKeys: body.revoke_api_keys ?? false,
  };
  return json(await rotateLoginToken(auth, input, client), 200, { "cache-control": "no-store" });
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
