import { bffJson, bffRoute } from "@/lib/dashboard/bff/bff";

/** Revokes the session key at the API (so a copied cookie stops working), then clears the cookie. */
export const POST = bffRoute(
  async ({ api, session }) => {
    if (session.apiKey) await api.DELETE("/sessions/current");
    session.destroy();
    return bffJson({ signed_out: true });
  },
  { signedIn: false },
);
