import { createKey, listKeys } from "@/lib/accounts/keys";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { CreateKeyBody } from "@/lib/api/schemas/keys";

export const GET = authedRoute("listKeys", async ({ auth }) =>
  json({ keys: await listKeys(auth.accountId) }),
);

export const POST = authedRoute("createKey", async ({ request, auth, client }) => {
  const body = await parseJsonBody(request, CreateKeyBody);
  const factor = { totpCode: body.totp_code, recoveryCode: body.recovery_code };
  return json(await createKey(auth, { request: body, factor }, client), 201);
});

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
