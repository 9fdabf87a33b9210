import { bffRoute, notFound, refParam, relay } from "@/lib/bff-session/bff";

export const POST = bffRoute(
  async ({ api, params }) => {
    const ref = refParam(params);
    if (!ref) return notFound("top-up");
    return relay(await api.POST("/topups/{ref}/cancel", { params: { path: { ref } } }));
  },
  { signedIn: true },
);
