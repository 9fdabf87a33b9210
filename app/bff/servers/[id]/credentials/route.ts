import { bffRoute, notFound, numericId, relay } from "@/lib/bff-session/bff";

/** The root credentials, fetched only when the user reveals them; the BFF answers with no-store like the API. */
export const GET = bffRoute(
  async ({ api, params }) => {
    const id = numericId(params);
    if (!id) return notFound("server");
    return relay(await api.GET("/servers/{id}/credentials", { params: { path: { id } } }));
  },
  { signedIn: true },
);
