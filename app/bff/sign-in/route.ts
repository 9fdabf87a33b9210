import { z } from "zod";
import { bffJson, bffRoute, jsonBody, relay, startSession } from "@/lib/dashboard/bff/bff";

const SignInBody = z.object({
  login_token: z.string().max(64),
  totp_code: z.string().max(16).optional(),
  recovery_code: z.string().max(32).optional(),
});

/**
 * Signs in with the login token (and, with TOTP on, a code from the app or a recovery code); the session key
 * goes into the cookie only.
 */
export const POST = bffRoute(
  async ({ request, api, session }) => {
    const body = SignInBody.safeParse(await jsonBody(request));
    if (!body.success) {
      return bffJson(
        {
          error: "invalid_body",
          message: "Send {login_token, totp_code?} or {login_token, recovery_code?}.",
        },
        400,
      );
    }
    const signedIn = await api.POST("/sessions", { body: body.data });
    if (!signedIn.data) return relay(signedIn);
    await startSession(session, signedIn.data);
    return bffJson({ signed_in: true, expires_at: signedIn.data.expires_at });
  },
  { signedIn: false },
);
