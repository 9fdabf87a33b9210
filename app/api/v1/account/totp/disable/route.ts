import { disableTotp } from "@/lib/accounts/two-factor";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { DisableTotpBody } from "@/lib/api/schemas/sessions";

export const POST = authedRoute("disableTotp", async ({ request, auth, client }) => {
  const body = await parseJsonBody(request, DisableTotpBody);
  const factor = { totpCode: body.code, recoveryCode: body.recovery_code };
  return json(await disableTotp(auth.accountId, factor, client));
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
