import { bffRoute, notFound, numericId, relay } from "@/lib/session/bff";

/** A new generated root password, set inside the running machine; the answer is the new login (no-store). */
export const POST = bffRoute(
  async ({ api, params }) => {
    const id = numericId(params);
    if (!id) return notFound("server");
    return relay(await api.POST("/servers/{id}/password", { params: { path: { id } }, body: {} }));
  },
  { signedIn: true },
);
