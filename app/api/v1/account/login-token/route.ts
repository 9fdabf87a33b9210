import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed } from "@/lib/api/route";
import { RotateLoginTokenRequestSchema } from "@/lib/schemas/sessions";
import { rotateLoginToken } from "@/lib/session-keys/service";

/** Replaces the login token; the new one is in this answer only. */
export const POST = authedRoute(async ({ request, auth, client }) => {
  const body = await parseJsonBody(request, RotateLoginTokenRequestSchema, {
    fieldCodes: { totp_code: "invalid_totp_code" },
  });
  return json(await rotateLoginToken(auth, body.totp_code, client), 200, { "cache-control": "no-store" });
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed(["POST"]);
