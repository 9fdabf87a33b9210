import { bffRoute, idempotencyHeader, jsonBody, notFound, numericId, relay } from "@/lib/dashboard/bff/bff";
import { forward } from "@/lib/dashboard/bff/forward";

/**
 * Boots the rescue system. Its temporary password is revealed on request (from /credentials, like the root
 * password), never kept in this answer.
 */
export const POST = bffRoute(
  async ({ request, api, params }) => {
    const id = numericId(params);
    if (!id) return notFound("server");
    await jsonBody(request);
    const result = await api.POST("/servers/{id}/rescue", {
      params: { path: { id } },
      body: {},
      headers: idempotencyHeader(request),
    });
    if (result.data) delete (result.data as { rescue_password?: string }).rescue_password;
    return relay(result);
  },
  { signedIn: true },
);

/** Leaving rescue mode, as FORWARDED passes it (this folder's own route takes the path from the catch-all). */
export const DELETE = bffRoute(forward, { signedIn: true });
