import { bffJson, bffRoute, relay } from "@/lib/session/bff";
import { noSuchTopup, topupRef } from "@/lib/session/bff-paths";

/** One top-up; the API settles what has arrived as it answers, so polling this shows progress. */
export const GET = bffRoute(
  async ({ request, api }) => {
    const ref = topupRef(request);
    if (!ref) return bffJson(noSuchTopup, 404);
    return relay(await api.GET("/topups/{ref}", { params: { path: { ref } } }));
  },
  { signedIn: true },
);
