import { recoveryCodeStatus } from "@/lib/accounts/recovery-codes";
import { regenerateRecoveryCodes } from "@/lib/accounts/two-factor";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { SecondFactorBody } from "@/lib/api/schemas/sessions";

/** How many recovery codes are left; never the codes. */
export const GET = authedRoute("getRecoveryCodeStatus", async ({ auth }) =>
  json(await recoveryCodeStatus(auth.accountId)),
);

/** A new set of recovery codes, shown this once; the old set stops working. */
export const POST = authedRoute("regenerateRecoveryCodes", async ({ request, auth, client }) => {
  const body = await parseJsonBody(request, SecondFactorBody);
  const factor = { totpCode: body.totp_code, recoveryCode: body.recovery_code };
  return json(await regenerateRecoveryCodes(auth.accountId, factor, client), 200, {
    "cache-control": "no-store",
  });
});

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
