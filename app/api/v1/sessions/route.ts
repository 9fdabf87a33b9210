import { listSessions, signIn } from "@/lib/accounts/sessions";
import { parseJsonBody } from "@/lib/api/body";
import { authedRoute, json, methodNotAllowed, publicRoute } from "@/lib/api/route";
import { SignInBody } from "@/lib/api/schemas/sessions";

/** Public: exchanges a login token (and a TOTP or recovery code when TOTP is on) for a dashboard session key. */
export const POST = publicRoute(async ({ request, client }) => {
  const body = await parseJsonBody(request, SignInBody);
  const factor = { totpCode: body.totp_code, recoveryCode: body.recovery_code };
  return json(await signIn({ loginToken: body.login_token, factor, client }), 201);
});

/** The account's live dashboard sessions; any of its keys may list them. */
export const GET = authedRoute("listSessions", async ({ auth }) =>
  json({ sessions: await listSessions(auth) }),
);

export const { PUT, PATCH, DELETE } = methodNotAllowed(["GET", "POST"]);
