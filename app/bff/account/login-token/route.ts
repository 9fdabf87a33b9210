import { z } from "zod";
import { bffJson, bffRoute, jsonBody, relay, startSession } from "@/lib/dashboard/bff/bff";

const RotateBody = z.strictObject({
  totp_code: z.string().max(16).optional(),
  recovery_code: z.string().max(32).optional(),
  revoke_api_keys: z.boolean().optional(),
});

/**
 * Replaces the login token. The API revokes every session, this one included (and, when asked, every API
 * key), and hands back a new session key, which goes into the cookie only; the browser gets the new token,
 * this one time.
 */
export const POST = bffRoute(
  async ({ request, api, session }) => {
    const body = RotateBody.safeParse(await jsonBody(request));
    if (!body.success) {
      return bffJson(
        { error: "invalid_body", message: "Send {totp_code?, recovery_code?, revoke_api_keys?}." },
        400,
      );
    }
    const rotated = await api.POST("/account/login-token", { body: body.data });
    if (!rotated.data) return relay(rotated);
    if (rotated.data.session) await startSession(session, rotated.data.session);
    else session.destroy();
    return bffJson({
      login_token: rotated.data.login_token,
      sessions_revoked: rotated.data.sessions_revoked,
      api_keys_revoked: rotated.data.api_keys_revoked,
    });
  },
  { signedIn: true },
);
