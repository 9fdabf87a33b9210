import { confirmTotp } from "@/lib/accounts/totp";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { TotpCodeRequestSchema } from "@/lib/schemas/sessions";

export const POST = authedRoute(async ({ request, auth, client }) => {
  const body = await parseJsonBody(request, TotpCodeRequestSchema, {
    fieldCodes: { code: "invalid_totp_code" },
  });
  return json(await confirmTotp(auth.accountId, body.code, client));
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
