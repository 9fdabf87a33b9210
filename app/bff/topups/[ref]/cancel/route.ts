import { bffJson, bffRoute, relay } from "@/lib/session/bff";
import { noSuchTopup, topupRef } from "@/lib/session/bff-paths";

export const POST = bffRoute(
  async ({ request, api }) => {
    const ref = topupRef(request);
    if (!ref) return bffJson(noSuchTopup, 404);
    return relay(await api.POST("/topups/{ref}/cancel", { params: { path: { ref } } }));
  },
  { signedIn: true },
);
