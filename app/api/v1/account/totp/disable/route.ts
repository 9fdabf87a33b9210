import { disableTotp } from "@/lib/accounts/two-factor";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { DisableTotpRequestSchema } from "@/lib/api/schemas/sessions";

export const POST = authedRoute(async ({ request, auth, client }) => {
  const body = await parseJsonBody(request, DisableTotpRequestSchema, {
    fieldCodes: { code: "invalid_totp_code", recovery_code: "invalid_recovery_code" },
  });
  const factor = { totpCode: body.code, recoveryCode: body.recovery_code };
  return json(await disableTotp(auth.accountId, factor, client));
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
