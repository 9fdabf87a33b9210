import { bffRoute, idempotencyHeader, notFound, numericId, relay } from "@/lib/bff-session/bff";

/** Renews for one more cycle from the balance. */
export const POST = bffRoute(
  async ({ request, api, params }) => {
    const id = numericId(params);
    if (!id) return notFound("server");
    return relay(
      await api.POST("/servers/{id}/renew", {
        params: { path: { id } },
        headers: idempotencyHeader(request),
      }),
    );
  },
  { signedIn: true },
);
