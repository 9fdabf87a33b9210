import { bffRoute, notFound, numericId, relay } from "@/lib/bff-session/bff";

export const DELETE = bffRoute(
  async ({ api, params }) => {
    const id = numericId(params);
    if (!id) return notFound("session");
    return relay(await api.DELETE("/sessions/{id}", { params: { path: { id } } }));
  },
  { signedIn: true },
);
