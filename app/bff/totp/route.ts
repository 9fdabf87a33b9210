import { bffRoute, relay } from "@/lib/bff-session/bff";

/** Starts TOTP setup: the secret and its QR, for the security page. */
export const POST = bffRoute(async ({ api }) => relay(await api.POST("/account/totp")), {
  signedIn: true,
});
