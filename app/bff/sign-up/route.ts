import { bffJson, bffRoute, relay, startSession } from "@/lib/dashboard/bff/bff";

/**
 * Creates an account and signs it in. The answer carries the API key and the login token this one time,
 * for the user to copy or download; the session itself holds a separate session key in the cookie.
 */
export const POST = bffRoute(
  async ({ api, session }) => {
    const created = await api.POST("/account");
    if (!created.data) return relay(created);
    const signedIn = await api.POST("/sessions", { body: { login_token: created.data.login_token } });
    if (!signedIn.data) return relay(signedIn);
    await startSession(session, signedIn.data);
    return bffJson({ api_key: created.data.api_key, login_token: created.data.login_token }, 201);
  },
  { signedIn: false },
);
